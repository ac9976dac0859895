import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { runAdapterSuite } from './adapter-suite.js';
import { withAllFeatures } from '../support/all-features.js';

runAdapterSuite('memory', async () => ({ adapter: withAllFeatures(MemoryAdapter()), cleanup: async () => {} }));
