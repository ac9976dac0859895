import { posix } from 'node:path';
import { usageError } from '../errors.js';
import { express4Ranges } from './dependencies.js';
import { describeFileEdits } from '../project/module-system.js';
import type { ProjectShape } from '../project/shape.js';
import { compiledPath, compilesToCommonJs, tsconfigCovers } from '../project/shape.js';

/** The flag that lets the CLI switch a CommonJS project to ESM. */
export const convertEsmFlag = '--convert-esm';

function indent(lines: readonly string[], spaces = 4): string {
  return lines.map((line) => `${' '.repeat(spaces)}${line}`).join('\n');
}

/** What an ESM project needs of package.json, tsconfig.json and the listed files, one line each. */
function esmChanges(shape: ProjectShape): string[] {
  const tsconfigChange =
    shape.tsconfig && (shape.tsconfig.module !== 'nodenext' || shape.tsconfig.moduleResolution !== 'nodenext')
      ? ['tsconfig.json: "module" and "moduleResolution": "NodeNext"']
      : [];
  return [`package.json: "type": "module"${shape.module.packageType === undefined ? '' : ` (now ${JSON.stringify(shape.module.packageType)})`}`, ...tsconfigChange];
}

/**
 * Checks the project's module system against the ESM auth module. TypeScript compiled to CommonJS is extended as it is
 * (see compilesToCommonJs). Another CommonJS project is refused (usage error, exit
 * 2, nothing written) with what would have to change, unless `convertEsm`: then the plan makes the package.json and
 * tsconfig.json changes, and the notes say so and list the files the user converts (sources are never rewritten:
 * turning `require` into `import` safely needs the author's judgement, e.g. about load order and JSON files).
 */
export function moduleSystemNotes(shape: ProjectShape, root: string, convertEsm: boolean): string[] {
  const report = shape.module;
  // A JavaScript module is written in the project's own module system: nothing to convert.
  if (shape.code === 'javascript-commonjs') return [];
  const fileLines = describeFileEdits(report.filesToEdit);
  if (report.system === 'commonjs' && !convertEsm && compilesToCommonJs(shape)) {
    if (shape.tsconfig?.verbatimModuleSyntax === true) {
      throw usageError(
        `${root} compiles TypeScript to CommonJS with "verbatimModuleSyntax": true, which forbids import/export in its .ts files; the auth module is written with import/export, so it would not compile. Nothing was written.`,
        `Set "verbatimModuleSyntax": false in tsconfig.json (your "import x = require()" and "export =" keep working), or run again with ${convertEsmFlag} to make the project ESM.`,
      );
    }
    return [`CommonJS TypeScript (tsconfig.json "module": "${shape.tsconfig?.module ?? ''}"): the auth module stays TypeScript and compiles to CommonJS with your settings; jose and oauth4webapi, ES modules, load through require(), which needs Node.js 20.19+ or 22.12+`];
  }
  if (report.system === 'commonjs') {
    const changes = [...esmChanges(shape), ...(fileLines.length > 0 ? ['and in these files (ESM has no require/module.exports, and its imports name their file):', ...fileLines.map((line) => `  ${line}`)] : [])];
    if (!convertEsm) {
      throw usageError(
        `${root} is a CommonJS project: ${report.evidence.join('; ')}. The auth module is ESM (import/export), and create-framework-auth does not switch a project to ESM unasked; nothing was written.`,
        `To run it, the project becomes ESM:\n${indent(changes)}\n  Run again with ${convertEsmFlag} to make the package.json${shape.tsconfig ? ' and tsconfig.json' : ''} changes (the files are listed, never rewritten), or convert the project first.`,
      );
    }
    const tsconfigChanged = esmChanges(shape).length > 1 ? ', tsconfig.json "module"/"moduleResolution" to "NodeNext"' : '';
    const notes = [`${convertEsmFlag}: set package.json "type" to "module"${tsconfigChanged} (the project was CommonJS: ${report.evidence.join('; ')})`];
    if (fileLines.length > 0) {
      notes.push(`${convertEsmFlag} did not rewrite your sources; change these before you start the app:\n${indent(fileLines, 2)}`);
    }
    return notes;
  }
  const notes: string[] = [];
  if (report.system === 'unset' && report.hasSources && report.packageType === undefined) {
    notes.push('package.json: "type": "module" added; nothing in the project depends on CommonJS');
  }
  if (shape.extensionFixes.length > 0) {
    notes.push(`tsconfig.json moves to NodeNext resolution, where a relative import names its file; change these imports:\n${indent(describeFileEdits(shape.extensionFixes), 2)}`);
  }
  return notes;
}

/** Notes on what was read: the Express major when it is not the default, the workspace, the layout. */
export function shapeNotes(shape: ProjectShape): string[] {
  const notes: string[] = [];
  if (shape.express.major === 4) {
    notes.push(`Express 4 (${shape.express.source === 'installed' ? `${shape.express.detail} installed` : `"${shape.express.detail}" in package.json`}): the auth routes mount on ${shape.mountPattern}`);
  }
  if (shape.workspace) notes.push(`Workspace package: dependencies install from ${shape.workspace.root}`);
  if (shape.tsconfig && !shape.tsconfig.ownInclude && !tsconfigCovers(shape.tsconfig, shape.authDir)) {
    notes.push(`tsconfig.json takes its "include" from the config it extends, which leaves out ${shape.authDir}/: add it there so that tsc compiles the auth module`);
  }
  if (shape.tsconfig?.hasPaths) notes.push('tsconfig.json "paths" kept; the auth module imports itself by relative path, so it runs without them');
  if (shape.language === 'javascript' && shape.code === 'typescript') {
    notes.push(`The auth module is TypeScript: "build" compiles it to ${shape.outDir}/, which your JavaScript imports; run it after changing ${shape.authDir}/`);
  }
  return notes;
}

/** The scripts the plan adds: dev/build/start around a generated server, else the build alone. */
export function shapeScripts(shape: ProjectShape): Record<string, string> {
  if (shape.code !== 'typescript') return {};
  if (!shape.serverEntry.generated) return { build: 'tsc' };
  return { dev: `tsx watch ${shape.serverEntry.path}`, build: 'tsc', start: `node ${compiledPath(shape, shape.serverEntry.path)}` };
}

/** Dev dependency ranges that depend on the project's Express (its types). */
export function expressDevDependencies(shape: ProjectShape): Record<string, string> {
  return shape.express.major === 4 ? { '@types/express': express4Ranges().types } : {};
}

/** Runtime dependency ranges that depend on the project's Express (a project without Express gets 5). */
export function expressDependencies(shape: ProjectShape): Record<string, string> {
  return shape.express.major === 4 ? { express: express4Ranges().express } : {};
}

/** A root-relative path inside the auth module. */
export function authPath(shape: ProjectShape, path: string): string {
  return posix.join(shape.authDir, path);
}

/**
 * How to mount the auth module in the user's own app, as lines to paste: the import, then the calls on the app
 * made in `serverEntry.mount.file` (which may differ from the entry: `src/index.ts` listens, `src/app.ts` makes it).
 */
export function mountInstructions(shape: ProjectShape, buildCommand: string): string[] {
  const entry = shape.serverEntry;
  const mount = entry.mount;
  if (entry.generated || !mount) return [];
  const app = mount.appName;
  const where = `Mount the auth module in ${mount.file}:`;
  const commonJs = shape.code === 'javascript-commonjs';
  const placement = mount.found
    ? `(the ${commonJs ? 'require' : 'import'} beside your other ${commonJs ? 'requires' : 'imports'}, the rest right after \`const ${app} = express()\`, before your routes)`
    : `(no express() call was found from ${entry.path}: put these where your app is made, right after it is created)`;
  const guard = shape.code === 'typescript' ? '(_req, res)' : '(req, res)';
  return [
    ...(shape.language === 'javascript' && shape.code === 'typescript' ? [`Build the auth module: ${buildCommand} (compiles ${shape.authDir}/ to ${shape.outDir}/; again after you change it)`, ''] : []),
    where,
    commonJs
      ? `  const { authHandler, requireAuth, sessionLocals } = require('${mount.importPath}');`
      : `  import { authHandler, requireAuth, sessionLocals } from '${mount.importPath}';`,
    `  ${app}.set('trust proxy', Number(process.env.TRUST_PROXY) || 'loopback');  // X-Forwarded-* only from your proxy: its hop count, never true`,
    `  ${app}.use('${shape.mountPattern}', authHandler);`,
    `  ${app}.use(sessionLocals);`,
    `  ${app}.get('/me', requireAuth(), ${guard} => res.json({ user: res.locals.session.user }));`,
    placement,
  ];
}
