import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// src/generator/ and dist/generator/ both sit two levels below the package root, beside templates/.
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Directory of the auth runtime copied verbatim into the auth module's `core/`. */
export const runtimeTemplateDir: string = fileURLToPath(new URL('../../templates/runtime/', import.meta.url));

/** Directory of the handlebars templates of answer-dependent files. */
export const projectTemplateDir: string = fileURLToPath(new URL('../../templates/project/', import.meta.url));

/** Root of this package (where package.json is). */
export const cliPackageRoot: string = packageRoot;

/** Where the generated auth module lives inside a project. */
export const authModuleDir = 'src/auth';

/** Where the templates are read from: this package's, or a copy named by {@link templatesDirEnv} (tests only). */
export interface TemplateDirs {
  /** The auth runtime (`templates/runtime/`). */
  runtime: string;
  /** The handlebars templates (`templates/project/`). */
  project: string;
}

/** This package's own templates. */
export const packageTemplateDirs: TemplateDirs = { runtime: runtimeTemplateDir, project: projectTemplateDir };

/**
 * An environment variable naming a copy of `templates/` (with `runtime/` and `project/`) to generate from instead
 * of this package's. It exists for the tests of `framework-auth update`, which stand for another CLI version by
 * changing a copy of the templates; users have no reason to set it.
 */
export const templatesDirEnv = 'FRAMEWORK_AUTH_TEMPLATES_DIR';

/** The template folders for a run: {@link templatesDirEnv} from the command's environment, else this package's. */
export function templateDirsFrom(env: NodeJS.ProcessEnv): TemplateDirs {
  const override = env[templatesDirEnv];
  if (!override) return packageTemplateDirs;
  return { runtime: join(override, 'runtime'), project: join(override, 'project') };
}
