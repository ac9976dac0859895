import { createHash } from 'node:crypto';
import { adapterIds, findAdapterByModule } from '../../catalog/adapters.js';
import type { AdapterId } from '../../catalog/adapters.js';
import { providerCatalog } from '../../catalog/providers.js';
import type { ProviderId } from '../../catalog/providers.js';
import { featureAnswers, featureCatalog, featuresOn } from '../../catalog/features.js';
import type { FeatureAnswers } from '../../catalog/features.js';
import { Refusal } from '../errors.js';
import type { Answers } from '../answers.js';
import { planDeletedFile, planMergedFile, readProjectFile } from '../planned-file.js';
import type { PlannedFile } from '../planned-file.js';
import { inspectAuthConfig, normaliseModule } from '../edit/provider-list.js';
import type { TypeScriptApi } from '../typescript-api.js';
import { codeFormats } from '../code-format.js';
import type { CodeFormat } from '../code-format.js';

/** The manifest, at the project root: what the CLI wrote, so that `update` and `remove-provider` know what is theirs. */
export const manifestPath = 'framework-auth.json';

/**
 * Where the base of each generated file is kept (what the CLI rendered, before the user's edits): the common
 * ancestor of `framework-auth update`'s 3-way merges. `<path>.base` so that no tool of the project (tsc, ESLint,
 * test runners, formatters) takes the copies for sources.
 */
export const baseDir = '.framework-auth/base';

/** The format of {@link Manifest}; a later CLI that changes the shape bumps it and reads the old one. */
export const manifestFormat = 1;

/** One generated file in the manifest. */
export interface ManifestFile {
  /** SHA-256 (hex) of the content the CLI last wrote (or found identical) at this path. */
  sha256: string;
  /** SHA-256 (hex) of the base kept in {@link baseDir}: the render for the answers, before any merge. */
  base: string;
}

/** The answers the generated files were rendered for; a feature's key (`twoFactor`) is written only when on (older manifests have none). */
export type ManifestAnswers = {
  providers: ProviderId[];
  mount: string;
  adapter: AdapterId;
} & FeatureAnswers;

/** `framework-auth.json`. */
export interface Manifest {
  manifestFormat: number;
  /** The version of the CLI that last wrote the project. */
  cliVersion: string;
  answers: ManifestAnswers;
  /** Generated files by path (runtime copy, auth module, starter server). Merged files (package.json, .env, ...) are not listed. */
  files: Record<string, ManifestFile>;
  /** Dependencies the CLI added to package.json, name → range (remove-provider removes a provider's own). */
  dependencies: Record<string, string>;
  /** What the auth module is written in, when it is JavaScript (`javascript-commonjs`, `javascript-esm`); absent for TypeScript. */
  code?: CodeFormat;
}

/** SHA-256 of a text, as hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The path of the kept base of a generated file. */
export function basePathOf(path: string): string {
  return `${baseDir}/${path}.base`;
}

function invalid(detail: string): Refusal {
  return new Refusal('usage', `${manifestPath} is not a manifest this CLI can read: ${detail}.`, {
    hint: `It is written by create-framework-auth; restore it from version control, or remove it and re-run "npx create-framework-auth" with the same answers.`,
  });
}

const hexPattern = /^[0-9a-f]{64}$/;

/**
 * Why `path`, a path read from the manifest, is not one the CLI writes, or undefined when it is. framework-auth.json
 * may come from a repository someone cloned, and update and remove-provider read, write and delete what it names (and
 * its base under {@link baseDir}): so only a relative path with "/" separators whose every segment is a name is
 * taken, never one that Windows (which also splits on "\" and reads drive letters, UNC and device paths) or POSIX
 * would resolve anywhere but inside the project.
 */
function manifestPathProblem(path: string): string | undefined {
  // Control characters first, so that the rules below are not fooled by a NUL that the OS would cut the path at.
  if (/\p{Cc}/u.test(path)) return 'it contains a control character';
  if (path.includes('\\')) return 'it contains "\\"';
  if (/^[A-Za-z]:/.test(path)) return 'it starts with a drive letter';
  if (path.startsWith('//')) return 'it is a UNC or device path';
  if (path.startsWith('/')) return 'it is absolute';
  const segments = path.split('/');
  if (segments.includes('..')) return 'it has a ".." segment';
  if (segments.includes('.')) return 'it has a "." segment';
  if (segments.includes('')) return 'it has an empty segment';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses and checks the text of a manifest. Throws a usage error naming what is wrong. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isRecord(value)) throw invalid('not an object');
  if (value.manifestFormat !== manifestFormat) throw invalid(`manifestFormat is ${JSON.stringify(value.manifestFormat)}, this CLI reads ${manifestFormat}`);
  if (typeof value.cliVersion !== 'string') throw invalid('cliVersion is missing');
  const answers = value.answers;
  if (!isRecord(answers) || !Array.isArray(answers.providers) || typeof answers.mount !== 'string' || typeof answers.adapter !== 'string') {
    throw invalid('answers must have providers, mount and adapter');
  }
  const providers = answers.providers.map((id) => {
    const entry = providerCatalog.find((candidate) => candidate.id === id);
    if (!entry) throw invalid(`answers.providers has an unknown provider ${JSON.stringify(id)}`);
    return entry.id;
  });
  const adapter = adapterIds.find((id) => id === answers.adapter);
  if (!adapter) throw invalid(`answers.adapter ${JSON.stringify(answers.adapter)} is not one of ${adapterIds.join(', ')}`);
  for (const { answersKey } of featureCatalog) {
    if (answers[answersKey] !== undefined && typeof answers[answersKey] !== 'boolean') throw invalid(`answers.${answersKey} must be true or false`);
  }
  if (!isRecord(value.files)) throw invalid('files must be an object');
  const files: Record<string, ManifestFile> = {};
  for (const [path, entry] of Object.entries(value.files)) {
    if (!isRecord(entry) || typeof entry.sha256 !== 'string' || !hexPattern.test(entry.sha256) || typeof entry.base !== 'string' || !hexPattern.test(entry.base)) {
      throw invalid(`files[${JSON.stringify(path)}] must have sha256 and base (SHA-256 hex)`);
    }
    const problem = manifestPathProblem(path);
    if (problem !== undefined) {
      throw invalid(`files[${JSON.stringify(path)}] is not a path inside the project (${problem}); each must be a relative path with "/" separators inside the project, such as "package.json"`);
    }
    files[path] = { sha256: entry.sha256, base: entry.base };
  }
  const dependencies: Record<string, string> = {};
  if (value.dependencies !== undefined) {
    if (!isRecord(value.dependencies)) throw invalid('dependencies must be an object');
    for (const [name, range] of Object.entries(value.dependencies)) if (typeof range === 'string') dependencies[name] = range;
  }
  let code: CodeFormat | undefined;
  if (value.code !== undefined) {
    code = codeFormats.find((format) => format === value.code);
    if (code === undefined) throw invalid(`code ${JSON.stringify(value.code)} is not one of ${codeFormats.join(', ')}`);
  }
  const answersRead = { providers, mount: answers.mount, adapter, ...featureAnswers(featuresOn(answers as FeatureAnswers)) };
  return { manifestFormat, cliVersion: value.cliVersion, answers: answersRead, files, dependencies, ...(code === undefined || code === 'typescript' ? {} : { code }) };
}

/** The project's manifest, or undefined when it has none. */
export function readManifest(root: string): Manifest | undefined {
  const text = readProjectFile(root, manifestPath);
  return text === undefined ? undefined : parseManifest(text);
}

function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The manifest's text: keys in a fixed order, files sorted by path, so that the same state is the same bytes. */
export function serializeManifest(manifest: Manifest): string {
  const ordered = {
    manifestFormat: manifest.manifestFormat,
    cliVersion: manifest.cliVersion,
    answers: manifest.answers,
    files: sortedRecord(manifest.files),
    dependencies: sortedRecord(manifest.dependencies),
    ...(manifest.code === undefined ? {} : { code: manifest.code }),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/**
 * The answers a project's config stands for: its catalog providers in list order, its `basePath` and its adapter,
 * read from the syntax tree; `fallback` fills what cannot be read (no `authConfig` literal, an adapter of the user's
 * own). The bases of generated files are rendered for these, so that they match the project as it is.
 */
export function answersFromConfig(api: TypeScriptApi | undefined, configText: string | undefined, fallback: Answers): Answers {
  if (!api || configText === undefined) return fallback;
  const info = inspectAuthConfig(api, configText);
  if (info instanceof Refusal) return fallback;
  const providers: ProviderId[] = [];
  for (const module of info.providerModules) {
    const entry = providerCatalog.find((candidate) => normaliseModule(candidate.importPath) === module);
    if (entry && !providers.includes(entry.id)) providers.push(entry.id);
  }
  const adapter = !info.hasAdapter ? 'none' : ((info.adapterModule === undefined ? undefined : findAdapterByModule(info.adapterModule)?.id) ?? fallback.adapter);
  const features = featureCatalog.filter((entry) => info.featureModules.includes(normaliseModule(entry.importPath)));
  return { providers: providers.length > 0 ? providers : fallback.providers, mount: info.basePath ?? fallback.mount, adapter, ...featureAnswers(features) };
}

/** Inputs of {@link planManifest}. */
export interface ManifestPlanInput {
  /** A project file's text as read (the snapshot's `fileIn`), undefined when absent: the manifest and its bases. */
  read: (path: string) => string | undefined;
  previous: Manifest | undefined;
  version: string;
  answers: ManifestAnswers;
  /** The command's plan. Generated files carry `base`; a `delete` of a listed file drops it. */
  files: readonly PlannedFile[];
  /** Dependencies this run adds to package.json. */
  addedDependencies?: Readonly<Record<string, string>>;
  /** Dependencies this run removes from package.json. */
  removedDependencies?: readonly string[];
  /** Generated files whose entry (and base) this run must keep as they are, e.g. a conflict left for the user. */
  keep?: readonly string[];
  /** What the auth module is written in (recorded when JavaScript). */
  code?: CodeFormat;
}

/**
 * The manifest and the kept bases after a plan is written: one entry per generated file that the plan writes or
 * finds identical (its hash, and its base beside the manifest), earlier entries kept for files the plan leaves
 * alone (a conflict keeps the base it had). Returns planned files, so that the writer applies them with the rest.
 */
export function planManifest(input: ManifestPlanInput): PlannedFile[] {
  const { read, previous } = input;
  const entries: Record<string, ManifestFile> = { ...previous?.files };
  const bases = new Map<string, string>();
  const keep = new Set(input.keep ?? []);
  for (const file of input.files) {
    if (keep.has(file.path)) continue;
    if (file.action === 'delete') {
      delete entries[file.path];
      continue;
    }
    if (file.base === undefined || file.action === 'conflict') continue;
    // A file left as it is keeps its entry when the user changed it since the CLI wrote it: "what was written" stays
    // what the CLI wrote, and a run that writes nothing leaves the manifest as it was.
    const known = previous?.files[file.path];
    if (file.action === 'unchanged' && known !== undefined && known.sha256 !== sha256(file.content)) continue;
    entries[file.path] = { sha256: sha256(file.content), base: sha256(file.base) };
    bases.set(file.path, file.base);
  }
  const dependencies: Record<string, string> = { ...previous?.dependencies, ...input.addedDependencies };
  for (const name of input.removedDependencies ?? []) delete dependencies[name];
  const answers = { providers: input.answers.providers, mount: input.answers.mount, adapter: input.answers.adapter, ...featureAnswers(featuresOn(input.answers)) };
  const code = input.code ?? previous?.code;
  const manifest: Manifest = { manifestFormat, cliVersion: input.version, answers, files: entries, dependencies, ...(code === undefined || code === 'typescript' ? {} : { code }) };

  const planned: PlannedFile[] = [];
  const paths = new Set([...Object.keys(previous?.files ?? {}), ...Object.keys(entries)]);
  for (const path of [...paths].sort()) {
    const sidecar = basePathOf(path);
    const current = read(sidecar);
    const base = bases.get(path);
    if (!(path in entries)) {
      if (current !== undefined) planned.push(planDeletedFile(sidecar, current));
    } else if (base !== undefined) {
      planned.push(planMergedFile(sidecar, current, base));
    }
  }
  planned.push(planMergedFile(manifestPath, read(manifestPath), serializeManifest(manifest)));
  return planned;
}

/** Whether a planned file is a kept base (reports list them as one line, not one per file). */
export function isBaseFile(path: string): boolean {
  return path.startsWith(`${baseDir}/`);
}
