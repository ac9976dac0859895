import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { runAdapterSuite } from './adapter-suite.js';

runAdapterSuite('memory', async () => ({ adapter: MemoryAdapter(), cleanup: async () => {} }));
