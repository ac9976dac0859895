// `npm run docs`: rewrites the parts of README.md that are generated from the code, between their marker comments.
// test/docs.test.ts fails when the committed README differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { providerReadmeTable, replaceGenerated } from './docs-sections.js';

const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(readmePath, 'utf8');
const after = replaceGenerated(before, 'providers', providerReadmeTable());
if (after !== before) writeFileSync(readmePath, after);
console.log(after === before ? 'README.md is up to date.' : 'README.md: the provider table was regenerated.');
