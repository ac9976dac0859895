// `npm run docs`: rewrites the parts of docs/providers.md and docs/cli.md that are generated from the code, between their
// marker comments, and the feature parts of docs/schemas/ (scripts/schemas.ts). test/docs.test.ts and
// test/cli/feature-catalog.test.ts fail when the committed docs differ from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandReference, providerReadmeTable, replaceGenerated } from './docs-sections.js';
import { regeneratedSchema } from './schemas.js';

const sections: { file: string; name: string; content: string }[] = [
  { file: '../docs/providers.md', name: 'providers', content: providerReadmeTable() },
  { file: '../docs/cli.md', name: 'commands', content: await commandReference() },
];
for (const { file, name, content } of sections) {
  const path = fileURLToPath(new URL(file, import.meta.url));
  const before = readFileSync(path, 'utf8');
  const after = replaceGenerated(before, name, content);
  if (after !== before) writeFileSync(path, after);
  console.log(`${file.slice(3)}: ${name} ${after === before ? 'up to date' : 'regenerated'}`);
}
for (const name of ['cli-output', 'manifest'] as const) {
  const path = fileURLToPath(new URL(`../docs/schemas/${name}.schema.json`, import.meta.url));
  const before = readFileSync(path, 'utf8');
  const after = regeneratedSchema(name, before);
  if (after !== before) writeFileSync(path, after);
  console.log(`docs/schemas/${name}.schema.json: features ${after === before ? 'up to date' : 'regenerated'}`);
}
