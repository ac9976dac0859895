import { fileURLToPath } from 'node:url';

// src/generator/ and dist/generator/ both sit two levels below the package root, beside templates/.
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Directory of the auth runtime copied verbatim into `src/auth/core/`. */
export const runtimeTemplateDir: string = fileURLToPath(new URL('../../templates/runtime/', import.meta.url));

/** Directory of the handlebars templates of answer-dependent files. */
export const projectTemplateDir: string = fileURLToPath(new URL('../../templates/project/', import.meta.url));

/** Root of this package (where package.json is). */
export const cliPackageRoot: string = packageRoot;

/** Where the generated auth module lives inside a project. */
export const authModuleDir = 'src/auth';

/** Where the runtime copy lives inside a project. */
export const runtimeTargetDir = 'src/auth/core';
