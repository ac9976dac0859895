// `npm run build`: compiles templates/runtime/ to JavaScript (ES modules, CommonJS) and declarations, into
// dist/runtime-js.json.gz, which the CLI reads for JavaScript projects (src/generator/javascript/runtime.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import ts from 'typescript';
import { builtRuntimePath, compileRuntime } from '../src/generator/javascript/runtime.js';
import { packageTemplateDirs } from '../src/generator/paths.js';
import { readTemplates } from '../src/generator/release.js';

const compiled = compileRuntime(ts, readTemplates(packageTemplateDirs).runtime);
mkdirSync(dirname(builtRuntimePath), { recursive: true });
writeFileSync(builtRuntimePath, gzipSync(`${JSON.stringify(compiled)}\n`, { level: 9 }));
console.log(`Compiled ${Object.keys(compiled.esm).length} runtime files to ${builtRuntimePath}`);
