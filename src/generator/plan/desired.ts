import { findAdapter } from '../../catalog/adapters.js';
import type { AdapterId } from '../../catalog/adapters.js';
import { defaultMountPath, reauthPath, sessionsPath, signInPath, signOutPath } from '../../catalog/mount-path.js';
import { getProvider } from '../../catalog/providers.js';
import type { ProviderEntry, ProviderId } from '../../catalog/providers.js';
import { featureAnswers, featureCatalog, featureDependencies, featuresOn, optInLines } from '../../catalog/features.js';
import type { FeatureAnswers, FeatureEntry } from '../../catalog/features.js';
import type { Answers } from '../answers.js';
import type { EnvGroup } from '../edit/env-file.js';
import { readProjectTemplate, renderTemplate } from '../edit/render-template.js';
import type { Release } from '../release.js';
import { compilesToCommonJs, mountPatternFor } from '../project/shape.js';
import type { ExpressMajor, ProjectShape } from '../project/shape.js';
import { cliPackageName } from '../version.js';
import { express4Ranges, runtimeDependencies, testedRanges, toolDevDependencies } from './dependencies.js';
import { adapterEnvGroup, featureEnvGroup, originEnvGroup, providerEnvGroup, secretEnvGroup } from './env-groups.js';
import { readRuntimeFiles, runtimeHeader, withRuntimeHeader } from './runtime-files.js';
import { isJavaScript } from '../code-format.js';
import type { CodeFormat } from '../code-format.js';
import { projectFileAsJavaScript } from '../javascript/project-file.js';
import { javaScriptPath, javaScriptRuntime } from '../javascript/runtime.js';
import type { TypeScriptApi } from '../typescript-api.js';

/** The choices that decide what a project holds: its providers, its adapter, its features (`twoFactor: true`) and its mount path. */
export type DesiredChoices = {
  providers: readonly ProviderId[];
  adapter: AdapterId;
  /** The mount path of the auth routes (default `/auth`). */
  mount?: string | undefined;
} & FeatureAnswers;

/** What of the project, beside the choices, the generated files depend on: read from its shape and its .env. */
export interface ProjectSetting {
  /** The project's Express major: an Express 4 project keeps Express 4 (and its types). */
  expressMajor: ExpressMajor;
  /** The server entry: the starter server is generated at `path` only when the project has no entry of its own. */
  serverEntry: { path: string; generated: boolean };
  /** The package.json scripts around the entry (dev/build/start, or build alone). */
  scripts: Readonly<Record<string, string>>;
  /** The app's origin, which the env comments' callback URLs start with. */
  origin: string;
  /** `commonjs` for TypeScript compiled to CommonJS, which keeps its package.json `"type"`; else `esm`. */
  moduleSystem: 'esm' | 'commonjs';
  /** The language and module system of the auth module (default TypeScript). */
  code?: CodeFormat;
  /** The compiler that writes the auth module's own files as JavaScript (a JavaScript `code` needs it). */
  typescript?: () => TypeScriptApi | undefined;
}

/** The setting of a new TypeScript project on Express 5 (`src/server.ts`), for callers with no project at hand. */
export const newProjectSetting: ProjectSetting = {
  expressMajor: 5,
  serverEntry: { path: 'src/server.ts', generated: true },
  scripts: { dev: 'tsx watch src/server.ts', build: 'tsc', start: 'node dist/server.js' },
  origin: 'http://localhost:3000',
  moduleSystem: 'esm',
};

/**
 * What a project holds for its choices at one CLI version: every artefact the CLI generates or merges. Every command
 * reconciles the project against it (reconcile.ts): `create` writes it, `add-provider` and `add-two-factor` add what
 * the project lacks of it, `remove-provider` and `remove-two-factor` delete what left it, `update` replaces it and
 * deletes what this version no longer holds. So "create with X" and "create, then add X" reach the same project.
 */
export interface DesiredProject {
  /** The answers it stands for, the mount path filled in. */
  answers: Answers;
  /** The runtime files below the auth module's `core/` (posix paths), with the version header, sorted by path. */
  runtime: ReadonlyMap<string, string>;
  /** The auth module's own files, by path below the auth module's folder: `env.ts`, `index.ts`, `config.ts`. */
  module: ReadonlyMap<string, string>;
  /** The starter server, when the project has no server entry of its own. */
  server: { path: string; content: string } | undefined;
  /** The dependencies the providers, the adapter and the features bring (their tested ranges), beyond every project's own. */
  dependencies: Readonly<Record<string, string>>;
  /** The dev dependencies they bring (an adapter driver's types). */
  devDependencies: Readonly<Record<string, string>>;
  /** What package.json must hold: every project's own dependencies and scripts, and what the choices bring. */
  packageJson: {
    scripts: Readonly<Record<string, string>>;
    dependencies: Readonly<Record<string, string>>;
    devDependencies: Readonly<Record<string, string>>;
    /** Dependencies whose install script must run (a native driver). */
    installScripts: readonly string[];
    /** The `"type"` package.json must have (`module`), or undefined to leave it as it is (a CommonJS project). */
    moduleType: 'module' | undefined;
  };
  /** The groups of `.env` and `.env.example`, in file order; the first is `AUTH_SECRET`, given as `secret`. */
  envGroups: (secret: string) => EnvGroup[];
  /** The env keys the providers, the features and the adapter read, in the catalog's order. */
  envKeys: readonly string[];
  /** `.gitignore`: the lines it must hold, and the file a project without one starts from. */
  gitignore: { entries: readonly string[]; template: string };
  /** What the auth module is written in. */
  code: CodeFormat;
}

/** The first line of every file the CLI generates (runtime copies have their own). */
export function generatedHeader(version: string): string {
  return `// Written by create-framework-auth ${version}. This file is yours: read it, edit it.`;
}

/** `src/auth/config.ts` as this version renders it for `answers`. */
export function renderAuthConfig(answers: Answers, release: Release): string {
  const { version, templates } = release;
  const providers = answers.providers.map((id) => getProvider(id));
  const adapter = findAdapter(answers.adapter);
  const features = featuresOn(answers);
  return renderTemplate(
    'auth/config.ts.hbs',
    {
      header: generatedHeader(version),
      imports: providers.map((entry) => ({ name: entry.importName, path: entry.importPath })),
      adapterImport: adapter?.importName && adapter.importPath ? { name: adapter.importName, path: adapter.importPath } : null,
      featureImports: features.map((feature) => ({ name: feature.importName, path: feature.importPath })),
      basePath: answers.mount,
      // A provider the features opt in (credentials under two-factor) starts with their options.
      providers: providers.map((entry: ProviderEntry) => {
        const lines = optInLines(entry.id, features);
        return lines.length > 0 && entry.snippetWith ? entry.snippetWith(lines) : entry.snippet;
      }),
      adapter: adapter?.snippet ?? null,
      features: features.length > 0 ? features.map((feature) => feature.snippet).join(', ') : null,
    },
    templates,
  );
}

/** The auth module's config as a desired project holds it (`config.ts`, or `config.js` in a JavaScript project). */
export function desiredConfig(project: DesiredProject): string {
  const config = project.module.get('config.ts') ?? project.module.get('config.js');
  if (config === undefined) throw new Error('a desired project always holds its config');
  return config;
}

/** config.ts as {@link renderAuthConfig} renders it, in the setting's format (config.js in a JavaScript project). */
export function renderAuthConfigIn(answers: Answers, release: Release, setting: ProjectSetting): string {
  const rendered = renderAuthConfig(answers, release);
  return moduleInFormat([['config.ts', rendered]], setting).get(setting.code !== undefined && isJavaScript(setting.code) ? 'config.js' : 'config.ts')!;
}

/** The setting of a project as read (its shape at the mount path, and the origin from its .env). */
export function settingOf(shape: ProjectShape, origin: string, scripts: Readonly<Record<string, string>>, typescript?: () => TypeScriptApi | undefined): ProjectSetting {
  return {
    expressMajor: shape.express.major,
    serverEntry: { path: shape.serverEntry.path, generated: shape.serverEntry.generated },
    scripts,
    origin,
    moduleSystem: compilesToCommonJs(shape) ? 'commonjs' : 'esm',
    code: shape.code,
    ...(typescript ? { typescript } : {}),
  };
}

/**
 * The runtime files in a JavaScript format: each `.ts` as its compiled `.js` (ES module or CommonJS) and `.d.ts`,
 * with the version header; files of other kinds as they are.
 */
function runtimeAsJavaScript(files: readonly { path: string; content: string }[], code: 'javascript-esm' | 'javascript-commonjs', release: Release): [string, string][] {
  const compiled = javaScriptRuntime(release.templates);
  const modules = code === 'javascript-esm' ? compiled.esm : compiled.commonjs;
  const header = runtimeHeader(release.version);
  return files.flatMap(({ path, content }): [string, string][] => {
    if (!path.endsWith('.ts')) return [[path, content]];
    const module = modules[javaScriptPath(path)];
    const declaration = compiled.declarations[javaScriptPath(path, '.d.ts')];
    if (module === undefined || declaration === undefined) throw new Error(`templates/runtime/${path} has no compiled JavaScript`);
    return [
      [javaScriptPath(path), `${header}\n${module}`],
      [javaScriptPath(path, '.d.ts'), `${header}\n${declaration}`],
    ];
  });
}

/** The auth module's own files (`env.ts`, `index.ts`, `config.ts` as rendered) in the project's format. */
function moduleInFormat(rendered: readonly [string, string][], setting: ProjectSetting): Map<string, string> {
  const code = setting.code ?? 'typescript';
  if (!isJavaScript(code)) return new Map(rendered);
  const api = setting.typescript?.();
  if (!api) throw new Error('a JavaScript auth module is written with the TypeScript compiler, and none was loaded');
  return new Map(rendered.flatMap(([path, content]) => [...projectFileAsJavaScript(api, path, content, code === 'javascript-esm' ? 'esm' : 'commonjs')]));
}

/**
 * The features that are on as the auth module's index template and the starter server's see them, in catalog order:
 * the partial that holds what each adds to src/auth/index.ts and the starter server
 * (`templates/project/auth/features/<id>.ts.hbs`, by section) and the path of its page.
 */
function templateFeatures(features: readonly FeatureEntry[], mount: string): { partial: string; page: string | null }[] {
  return featureCatalog.filter((entry: FeatureEntry) => features.includes(entry)).map((entry: FeatureEntry) => ({ partial: featurePartial(entry), page: entry.page?.path(mount) ?? null }));
}

/** What the starter server imports from the auth module: its own names and those the features' routes use, sorted. */
function serverImports(features: readonly FeatureEntry[]): string[] {
  return [...new Set(['authHandler', 'requireAuth', 'sessionLocals', ...features.flatMap((entry) => entry.starterServer?.imports ?? [])])].sort();
}

/** The partial of a feature's lines in src/auth/index.ts, by its name (its path below templates/project/, without `.hbs`). */
export function featurePartial(entry: FeatureEntry): string {
  return `auth/features/${entry.id}.ts`;
}

/** What a project holds for these choices at a release of this CLI (see {@link DesiredProject}). */
export function desired(choices: DesiredChoices, release: Release, setting: ProjectSetting = newProjectSetting): DesiredProject {
  const { version, templates } = release;
  const mount = choices.mount ?? defaultMountPath;
  const features = featuresOn(choices);
  const answers: Answers = { providers: [...choices.providers], mount, adapter: choices.adapter, ...featureAnswers(features) };
  const providers = choices.providers.map((id) => getProvider(id));
  const adapter = findAdapter(choices.adapter);
  const header = generatedHeader(version);
  const mountPattern = mountPatternFor(setting.expressMajor, mount);
  const databaseSessions = choices.adapter !== 'none';

  const code = setting.code ?? 'typescript';
  const runtimeFiles = readRuntimeFiles(choices.providers, choices.adapter, templates, features);
  const runtime = new Map(
    isJavaScript(code) ? runtimeAsJavaScript(runtimeFiles, code, release) : runtimeFiles.map((file) => [file.path, withRuntimeHeader(file.path, file.content, version)] as const),
  );
  const featurePages = features.flatMap(({ page }) => (page?.linkText ? [{ path: page.path(mount), text: page.linkText }] : []));
  const module = moduleInFormat(
    [
      ['env.ts', renderTemplate('auth/env.ts.hbs', { header }, templates)],
      ['index.ts', renderTemplate('auth/index.ts.hbs', { header, mountPattern, databaseSessions, sessionsPath: sessionsPath(mount), reauthPath: reauthPath(mount), features: templateFeatures(features, mount) }, templates)],
      ['config.ts', renderAuthConfig(answers, release)],
    ],
    setting,
  );
  const server = setting.serverEntry.generated
    ? {
        path: setting.serverEntry.path,
        content: renderTemplate(
          'server.ts.hbs',
          {
            header,
            mountPattern,
            signInPath: signInPath(mount),
            signOutPath: signOutPath(mount),
            sessionsPath: databaseSessions ? sessionsPath(mount) : undefined,
            featurePages,
            imports: serverImports(features).join(', '),
            features: templateFeatures(features, mount),
          },
          templates,
        ),
      }
    : undefined;

  const brought = [...providers, ...(adapter ? [adapter] : [])].map((entry) => entry.dependencies);
  const dependencies = Object.assign({}, ...[...brought, ...features.map(featureDependencies)].map(testedRanges)) as Record<string, string>;
  // A JavaScript project gets no types packages (the auth module's own declarations sit beside it).
  const devDependencies = isJavaScript(code) ? {} : testedRanges(adapter?.devDependencies ?? {});
  const express4 = setting.expressMajor === 4 ? express4Ranges() : undefined;
  // A JavaScript project gets no TypeScript toolchain: only the pin of the CLI that wrote it, and no "type" change.
  const javaScript = isJavaScript(code);
  const toolDev: Record<string, string> = javaScript ? { [cliPackageName]: version } : { ...toolDevDependencies(version), ...(express4 ? { '@types/express': express4.types } : {}) };
  const packageJson = {
    scripts: javaScript ? {} : setting.scripts,
    dependencies: { ...runtimeDependencies(), ...(express4 ? { express: express4.express } : {}), ...dependencies },
    devDependencies: { ...toolDev, ...devDependencies },
    installScripts: adapter?.installScripts ?? [],
    // A CommonJS project keeps its "type": JavaScript in CommonJS, or TypeScript that tsc compiles to CommonJS.
    moduleType: code === 'javascript-commonjs' || setting.moduleSystem === 'commonjs' ? undefined : ('module' as const),
  };

  // A feature's keys after the providers': a key a provider (or a feature before it) reads too is written once, under
  // the first one's name.
  const written = new Set(providers.flatMap((entry) => entry.env));
  const featureGroups = features.flatMap((entry) => {
    const group = featureEnvGroup(entry, written);
    for (const key of entry.env) written.add(key.name);
    return group ?? [];
  });
  const envGroups = (secret: string): EnvGroup[] => [
    secretEnvGroup(secret),
    originEnvGroup(setting.origin),
    ...providers.flatMap((entry) => providerEnvGroup(entry, setting.origin, mount) ?? []),
    ...featureGroups,
    ...(adapter ? [adapterEnvGroup(adapter)] : []).filter((group): group is EnvGroup => group !== undefined),
  ];
  const envKeys = [...new Set([...providers.flatMap((entry) => entry.env), ...features.flatMap((entry) => entry.env.map((key) => key.name)), ...Object.keys(adapter?.env ?? {})])];
  const gitignore = { entries: ['.env', ...(adapter?.gitignore ?? [])], template: readProjectTemplate('_gitignore', templates) };
  return { answers, runtime, module, server, dependencies, devDependencies, packageJson, envGroups, envKeys, gitignore, code };
}
