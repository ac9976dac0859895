import { authModuleFiles, locateAuthModule } from '../generator/project/auth-module.js';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { migratableAdapterIds, postgresUrlExample } from '../catalog/adapters.js';
import { readEnvLines } from '../generator/edit/env-file.js';
import { readProjectFile } from '../generator/planned-file.js';
import { readProjectAdapter } from '../generator/project/adapter.js';
import { resolveInstalledPackage } from '../generator/installed-package.js';
import { cancelledError, usageError } from '../generator/errors.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { messageIo, writeJson } from './json-output.js';

/** Flags of `framework-auth migrate`. */
export interface MigrateFlags {
  cwd?: string;
  json?: boolean;
  dryRun?: boolean;
}

const examples = `
Examples:
  $ npx framework-auth migrate                  create the tables of the project's sqlite or postgres adapter
  $ npx framework-auth migrate --cwd apps/web
  $ DATABASE_URL=postgres://app:secret@db.internal:5432/app npx framework-auth migrate
  $ npx framework-auth migrate --dry-run         print the SQL that would run; change nothing
  $ npx framework-auth migrate --json            one JSON document on stdout (adapter, database, tables, steps)

DATABASE_URL comes from the environment, else from the project's .env. The database records the steps it has
(auth_migrations): migrate applies the missing ones and prints them; running it again, or on an up-to-date
database, changes nothing. A database made by an earlier version is upgraded in place, its rows kept.
`;

/** How long a migration may take before it is reported as a database that cannot be reached. */
const migrateTimeoutMs = 60_000;

// Runs in the project with its own tsx: imports the project's copy of the adapter and its config, runs the adapter's
// migrate() with the config's features (so only their tables are created), and reports one JSON line with the
// tables and the steps it applied (or, with FRAMEWORK_AUTH_MIGRATE_DRY_RUN, would apply). A core older than issue 35
// has no featuresOf: its migrate() creates every table, named in its schema text; one older than issue 47 reports no
// steps (and is never given a dry run: see adapterKnowsDryRun).
const migrateScript = `
const report = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
try {
  const adapter = await import(process.env.FRAMEWORK_AUTH_MIGRATE_MODULE);
  const core = await import(process.env.FRAMEWORK_AUTH_CORE_MODULE);
  const features = typeof core.featuresOf === 'function' ? core.featuresOf((await import(process.env.FRAMEWORK_AUTH_CONFIG_MODULE)).authConfig) : undefined;
  const steps = [];
  const dryRun = process.env.FRAMEWORK_AUTH_MIGRATE_DRY_RUN === '1';
  const created = await adapter.migrate({ ...(features ? { features } : {}), dryRun, onStep: (step) => steps.push(step) });
  const tables = Array.isArray(created)
    ? created
    : Object.values(adapter)
        .filter((value) => typeof value === 'string')
        .flatMap((value) => [...value.matchAll(/CREATE TABLE IF NOT EXISTS\\s+"?(\\w+)/gi)].map((match) => match[1]));
  // A core with the ledger (auth_migrations) reports its steps; an older one none.
  report({ ok: true, tables: [...new Set(tables)], steps: tables.includes('auth_migrations') ? steps : undefined });
} catch (error) {
  const errors = Array.isArray(error?.errors) ? error.errors.map((inner) => String(inner?.message ?? inner)) : [];
  report({ ok: false, code: error?.code === undefined ? undefined : String(error.code), message: String(error?.message ?? error), errors });
  process.exitCode = 1;
}
`;

/** A migration step the adapter ran or would run (`sql` empty: what it creates was there, the step only recorded). */
interface MigrationStepReport {
  id: string;
  sql: string;
}

interface MigrateReport {
  ok: boolean;
  tables?: string[];
  steps?: MigrationStepReport[];
  code?: string;
  message?: string;
  errors?: string[];
}

/** The database URL with its password (and a `password=` parameter) replaced by `***`, for messages. */
export function redactDatabaseUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:)[^@/?#]*@/i, '$1***@')
    .replace(/([?&]password=)[^&#]*/i, '$1***');
}

/** Every form of the URL's password that could appear in a driver's message. */
function secretsOf(url: string): string[] {
  const secrets: string[] = [];
  const raw = /^[a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:([^@/?#]*)@/i.exec(url)?.[1];
  const parameter = /[?&]password=([^&#]*)/i.exec(url)?.[1];
  for (const value of [raw, parameter]) {
    if (!value) continue;
    secrets.push(value);
    try {
      secrets.push(decodeURIComponent(value));
    } catch {
      // Not percent-encoded.
    }
  }
  return secrets.filter((secret) => secret.length > 0);
}

/** `text` without the database URL's password, in any form a driver's message could hold it. */
export function redact(text: string, url: string): string {
  let result = text.split(url).join(redactDatabaseUrl(url));
  for (const secret of secretsOf(url)) result = result.split(secret).join('***');
  return result;
}

/** The report a script run in the project printed last (a JSON line with `ok`), after whatever the user's code printed. */
export function lastJsonLine<Report extends { ok: boolean } = MigrateReport>(stdout: string): Report | undefined {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value === 'object' && value !== null && 'ok' in value) return value as Report;
    } catch {
      // Output of the user's code; not the report.
    }
  }
  return undefined;
}

// Error codes that mean "the database is not there or refuses us", as opposed to a bug: the hint says what to check.
const connectionCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET', '28P01', '28000', '3D000', 'SQLITE_CANTOPEN']);

/**
 * Creates the tables of a scaffolded project's database adapter (sqlite or postgres) by running the `migrate()` of
 * the project's own copy of the adapter with the project's `tsx`, `DATABASE_URL` taken from the environment or
 * `.env`. Exit 2 outside a project or without a database adapter; exit 1 when the database cannot be reached.
 */
export async function runMigrate(flags: MigrateFlags, io: CliIo): Promise<void> {
  const root = resolve(io.cwd, flags.cwd ?? '.');
  if (!existsSync(root) || !statSync(root).isDirectory()) throw usageError(`--cwd ${root} is not a directory`);
  const authDir = locateAuthModule(root);
  const { config: configPath, coreIndex, javaScript } = authModuleFiles(root, authDir);
  const configText = readProjectFile(root, configPath);
  if (configText === undefined || !existsSync(join(root, coreIndex))) {
    throw new CliError('not-a-project', `No auth module in ${root} (${configText === undefined ? configPath : coreIndex} is missing).`, {
      hint: 'Run "npx create-framework-auth --adapter sqlite" (or postgres) in the project first, or pass --cwd <project dir>.',
    });
  }
  const needing = `migrate is for the ${migratableAdapterIds.join(' and ')} adapters`;
  const project = readProjectAdapter(root);
  if (!project) {
    throw usageError(`Could not tell which adapter ${configPath} uses (no \`export const authConfig = { ... }\` found); ${needing}.`);
  }
  const adapter = project.entry;
  if (!adapter?.migrate || adapter.runtimeFile === null) {
    const what = adapter?.noMigration ?? `uses an adapter of its own${project.module ? ` (from ${project.module})` : ''}: run that adapter's own migrations`;
    throw usageError(`${configPath} ${what}; ${needing}.`, 'To move to a database: npx create-framework-auth --adapter sqlite (or postgres) in a project that has no adapter yet.');
  }
  const runtimeFile = javaScript ? adapter.runtimeFile.replace(/\.ts$/, '.js') : adapter.runtimeFile;
  const adapterFile = join(root, authDir, 'core', runtimeFile);
  if (!existsSync(adapterFile)) {
    throw new CliError('not-a-project', `${configPath} uses the ${adapter.id} adapter, but ${authDir}/core/${runtimeFile} is missing.`, {
      hint: `Run "npx create-framework-auth --adapter ${adapter.id}" in the project to copy it again.`,
    });
  }

  // Like the generated env.ts (process.loadEnvFile), a variable already set in the environment wins over .env.
  const envText = readProjectFile(root, '.env');
  const fileEnv = Object.fromEntries(readEnvLines(envText ?? '').map((line) => [line.key, line.value]));
  const env: NodeJS.ProcessEnv = { ...fileEnv, ...io.env };
  const defaultUrl = adapter.env.DATABASE_URL;
  const url = env.DATABASE_URL || defaultUrl;
  if (!url) {
    throw usageError(
      `DATABASE_URL is not set (neither in ${join(root, '.env')} nor in the environment); the ${adapter.name} adapter needs it.`,
      `Set it in .env, e.g. DATABASE_URL=${postgresUrlExample}`,
    );
  }
  env.DATABASE_URL = url;
  const shownUrl = redactDatabaseUrl(url);

  // A JavaScript module (issue 36) runs as it is; TypeScript runs with the project's tsx.
  const tsxLoader = javaScript ? undefined : resolveInstalledPackage('tsx', root);
  if (!javaScript && tsxLoader === undefined) {
    throw new CliError('migrate-failed', `tsx is not installed in ${root}; migrate runs the project's own adapter code with it.`, {
      hint: 'Install the project\'s dependencies first (npm install), then run migrate again.',
    });
  }

  // An adapter copied before issue 47 knows no dry run: its migrate() would apply everything.
  const dryRun = flags.dryRun === true;
  if (dryRun && !readProjectFile(root, join(authDir, 'core', runtimeFile))?.includes('dryRun')) {
    throw usageError(
      `${authDir}/core/${runtimeFile} was copied by an earlier version, whose migrate() has no dry run.`,
      'Run "npx framework-auth update" to update the auth runtime, then migrate --dry-run again.',
    );
  }

  // Loaded on use: clack costs more start-up time than the rest of the CLI (issue 8).
  const [{ createUi }, { execa }] = await Promise.all([import('./ui.js'), import('execa')]);
  const ui = createUi(messageIo(io, flags.json));
  ui.intro(`framework-auth migrate${dryRun ? ' --dry-run' : ''} (${adapter.name})`);
  const result = await ui.step(dryRun ? `Reading what ${shownUrl} lacks` : `Creating the tables in ${shownUrl}`, async () => {
    const loader = tsxLoader === undefined ? [] : ['--import', pathToFileURL(tsxLoader).href];
    const result = await execa(process.execPath, [...loader, '--input-type=module', '--eval', migrateScript], {
      cwd: root,
      env: {
        ...env,
        FRAMEWORK_AUTH_MIGRATE_MODULE: pathToFileURL(adapterFile).href,
        FRAMEWORK_AUTH_CORE_MODULE: pathToFileURL(join(root, coreIndex)).href,
        FRAMEWORK_AUTH_CONFIG_MODULE: pathToFileURL(join(root, configPath)).href,
        ...(dryRun && { FRAMEWORK_AUTH_MIGRATE_DRY_RUN: '1' }),
      },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: migrateTimeoutMs,
      cancelSignal: io.signal,
    });
    if (io.signal.aborted) throw cancelledError('Cancelled; the database may have some of the tables (migrate creates only missing ones: run it again).');
    if (result.timedOut) {
      throw new CliError('migrate-failed', `Could not reach the database at ${shownUrl}: no answer within ${migrateTimeoutMs / 1000} s.`, {
        hint: 'Is the database running and reachable from here? Check DATABASE_URL in .env.',
      });
    }
    const parsed = lastJsonLine(String(result.stdout));
    if (parsed?.ok) return parsed;
    throw migrateError(parsed, redact(String(result.stderr), url), adapter.id, url);
  }, (value) =>
    dryRun
      ? `${shownUrl} lacks ${stepCount(value.steps ?? [])} (nothing applied)`
      : `Tables in place in ${shownUrl} (created where missing): ${(value.tables ?? []).join(', ')}`);
  const steps = result.steps ?? [];
  if (steps.length > 0) ui.lines(dryRun ? 'The SQL that would run (nothing applied):' : `Applied ${stepCount(steps)}:`, stepsText(steps));
  else if (result.steps) ui.info('The database is up to date: no step to apply.');
  ui.outro(dryRun ? (steps.length === 0 ? 'Nothing to apply.' : 'Run "npx framework-auth migrate" to apply them.') : `The ${adapter.name} database is ready.`);
  if (flags.json) writeJson(io, 'migrate', true, { root, adapter: adapter.id, database: shownUrl, tables: result.tables ?? [], dryRun, ...(result.steps && { steps }) });
}

function stepCount(steps: readonly MigrationStepReport[]): string {
  return `${steps.length} migration step${steps.length === 1 ? '' : 's'}`;
}

/** Each step's SQL under its id; a step that finds what it creates there is only recorded in the ledger. */
function stepsText(steps: readonly MigrationStepReport[]): string {
  return steps.map((step) => (step.sql ? `-- ${step.id}\n${step.sql}` : `-- ${step.id}: already there, recorded`)).join('\n');
}

function migrateError(report: MigrateReport | undefined, stderr: string, adapterId: string, url: string): CliError {
  const shownUrl = redactDatabaseUrl(url);
  if (!report) {
    return new CliError('migrate-failed', `migrate failed in the project's code:\n${stderr.trim().split('\n').slice(-15).join('\n')}`);
  }
  const detail = redact([report.message, ...(report.errors ?? [])].filter((text) => text).join('; ') || report.code || 'unknown error', url);
  if (report.code === 'ERR_MODULE_NOT_FOUND') {
    return new CliError('migrate-failed', `A package the ${adapterId} adapter needs is not installed: ${detail}`, {
      hint: 'Install the project\'s dependencies (npm install), then run migrate again.',
    });
  }
  if (detail.includes('Could not locate the bindings file')) {
    return new CliError('migrate-failed', 'better-sqlite3 is installed but its native module was not built (its install script did not run).', {
      hint: 'npm 11 runs it only when package.json has "allowScripts": { "better-sqlite3": true }; add it, then run "npm rebuild better-sqlite3".',
    });
  }
  const unreachable = report.code !== undefined && connectionCodes.has(report.code);
  return new CliError('migrate-failed', `Could not ${unreachable ? 'reach the database at' : 'create the tables in'} ${shownUrl}: ${detail}`, {
    hint: adapterId === 'postgres'
      ? `Is PostgreSQL running, and is DATABASE_URL in .env right (${postgresUrlExample})?`
      : 'Check DATABASE_URL in .env: a file: URL or a path the app can write to.',
  });
}

/** The `migrate` command of `framework-auth`. */
export function createMigrateCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return new Command('migrate')
    .description(`create the database tables of the project's adapter (${migratableAdapterIds.join(', ')})`)
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--dry-run', 'print the SQL that would run, and change nothing')
    .option('--json', 'print one JSON document on stdout (messages go to stderr)')
    .addHelpText('after', examples)
    .action((flags: MigrateFlags) => run(() => runMigrate(flags, io)));
}
