// Runs a bin from source (no build needed): `node --import tsx test/cli/helpers/cli-entry.ts <bin> ...args`.
import { binNames, main } from '../../../src/cli/main.js';
import type { BinName } from '../../../src/cli/main.js';

const bin = process.argv[2];
if (!(binNames as readonly string[]).includes(bin ?? '')) throw new Error(`unknown bin ${bin}`);
process.argv.splice(2, 1);
await main(bin as BinName);
