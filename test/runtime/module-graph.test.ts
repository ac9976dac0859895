// The runtime's imports run one way (issue 15): config.ts sits above providers/ and pages/, which read their shared
// types (Theme, AuthEnv) from leaf modules rather than from the config.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const runtime = fileURLToPath(new URL('../../templates/runtime/', import.meta.url));

function importsOf(folder: string): { file: string; specifier: string }[] {
  return readdirSync(join(runtime, folder))
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const text = readFileSync(join(runtime, folder, name), 'utf8');
      return [...text.matchAll(/\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => ({ file: `${folder}/${name}`, specifier: match[1]! }));
    });
}

describe('the runtime module graph', () => {
  it('has no provider module that imports the config (the config imports the providers)', () => {
    expect(importsOf('providers').filter(({ specifier }) => specifier === '../config.js')).toEqual([]);
  });

  it('has no page module that imports the config', () => {
    expect(importsOf('pages').filter(({ specifier }) => specifier === '../config.js')).toEqual([]);
  });
});
