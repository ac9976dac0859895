import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FeatureEntry } from '../catalog/features.js';
import { resolveInstalledPackage } from '../generator/installed-package.js';
import { readProjectAdapter } from '../generator/project/adapter.js';
import { lastJsonLine, redact } from './migrate.js';

/** What doctor found of one feature's question to the database: its finding, as doctor.ts reports it. */
export interface DatabaseFinding {
  id: string;
  status: 'ok' | 'warn';
  message: string;
  fix?: string;
}

/** How long the project's code may take to answer, a database that does not answer included. */
const answerTimeoutMs = 30_000;

// Runs in the project with its own tsx, as migrate's script does: imports the project's adapter, core and config. It
// asks the adapter's dry-run migrate (which only reads) whether the database lacks a step, and asks nothing of one
// that does: the adapter's first use would apply them. Otherwise it calls each check's export with the resolved
// config, and reports one JSON line. A PostgreSQL pool would keep the process alive: it exits once it has reported.
const doctorScript = `
const report = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
try {
  const adapter = await import(process.env.FRAMEWORK_AUTH_ADAPTER_MODULE);
  const core = await import(process.env.FRAMEWORK_AUTH_CORE_MODULE);
  const { authConfig } = await import(process.env.FRAMEWORK_AUTH_CONFIG_MODULE);
  const missing = [];
  await adapter.migrate({ features: core.featuresOf(authConfig), dryRun: true, onStep: (step) => missing.push(step.id) });
  if (missing.length > 0) {
    report({ ok: true, missing });
  } else {
    const options = core.resolveConfig(authConfig);
    const answers = {};
    for (const { id, module, exportName } of JSON.parse(process.env.FRAMEWORK_AUTH_DOCTOR_CHECKS)) {
      answers[id] = await (await import(module))[exportName](options);
    }
    report({ ok: true, answers });
  }
} catch (error) {
  report({ ok: false, message: String(error?.message ?? error) });
}
process.exit();
`;

interface DoctorReport {
  ok: boolean;
  missing?: string[];
  answers?: Record<string, unknown>;
  message?: string;
}

/** The project as doctor read it, for {@link checkFeatureDatabases}. */
export interface DatabaseProject {
  root: string;
  authDir: string;
  configPath: string;
  coreIndex: string;
  javaScript: boolean;
  mount: string;
  /** The env the app will see (.env under the environment). */
  env: Record<string, string | undefined>;
  offline: boolean;
  signal: AbortSignal;
}

/**
 * Asks the project's database what the config's features want to know of their rows (`FeatureEntry.doctor.database`),
 * one finding per feature: with the project's own runtime and config, as `migrate` runs them, so that it reads the
 * database the app would. Nothing with `--offline`, without an sqlite or postgres adapter, or of a database that lacks
 * a migration step (then one finding says to run migrate). Findings are warnings: the app starts either way.
 */
export async function checkFeatureDatabases(features: readonly FeatureEntry[], project: DatabaseProject): Promise<DatabaseFinding[]> {
  const checks = features.flatMap((feature) => (feature.doctor.database ? [{ feature, check: feature.doctor.database }] : []));
  if (checks.length === 0) return [];
  const all = (status: 'ok' | 'warn', message: string, fix?: string): DatabaseFinding[] =>
    checks.map(({ feature }) => ({ id: `${feature.id}:database`, status, message: `${feature.label}: ${message}`, ...(fix === undefined ? {} : { fix }) }));
  if (project.offline) return all('ok', 'the database was not asked (--offline).');
  const adapter = readProjectAdapter(project.root)?.entry;
  // The memory adapter starts empty on every start; an adapter of the user's own has no migrate() to ask first.
  if (!adapter?.migrate || adapter.runtimeFile === null) return [];
  const runtimeFile = (path: string): string => join(project.root, project.authDir, 'core', project.javaScript ? path.replace(/\.ts$/, '.js') : path);
  const tsx = project.javaScript ? undefined : resolveInstalledPackage('tsx', project.root);
  if (!project.javaScript && tsx === undefined) return all('warn', 'the database was not asked: tsx, which runs the project\'s code, is not installed.', 'Install the project\'s dependencies (npm install), then run doctor again.');
  const url = project.env['DATABASE_URL'] || adapter.env.DATABASE_URL;
  if (!url || !existsSync(runtimeFile(adapter.runtimeFile))) return [];

  const { execa } = await import('execa');
  const result = await execa(process.execPath, [...(tsx === undefined ? [] : ['--import', pathToFileURL(tsx).href]), '--input-type=module', '--eval', doctorScript], {
    cwd: project.root,
    env: {
      ...project.env,
      DATABASE_URL: url,
      FRAMEWORK_AUTH_ADAPTER_MODULE: pathToFileURL(runtimeFile(adapter.runtimeFile)).href,
      FRAMEWORK_AUTH_CORE_MODULE: pathToFileURL(join(project.root, project.coreIndex)).href,
      FRAMEWORK_AUTH_CONFIG_MODULE: pathToFileURL(join(project.root, project.configPath)).href,
      FRAMEWORK_AUTH_DOCTOR_CHECKS: JSON.stringify(checks.map(({ feature, check }) => ({ id: feature.id, module: pathToFileURL(runtimeFile(check.module)).href, exportName: check.exportName }))),
    },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: answerTimeoutMs,
    cancelSignal: project.signal,
  });
  const report = lastJsonLine<DoctorReport>(String(result.stdout));
  if (!report?.ok) {
    const why = result.timedOut ? `no answer within ${answerTimeoutMs / 1000} s` : redact(report?.message ?? String(result.stderr).trim().split('\n').at(-1) ?? 'the project\'s code failed', url);
    return all('warn', `the database was not asked (${why}).`, 'Check DATABASE_URL and that the app starts (npm run dev).');
  }
  if (report.missing) {
    const steps = `${report.missing.length} migration step${report.missing.length === 1 ? '' : 's'}`;
    return all('warn', `the database lacks ${steps}, so its rows were not read.`, 'Run npx framework-auth migrate (or start the app once), then doctor again.');
  }
  return checks.map(({ feature, check }) => {
    const id = `${feature.id}:database`;
    const problem = check.problem(report.answers?.[feature.id], project.configPath, project.mount);
    return problem ? { id, status: 'warn', message: problem.message, fix: problem.fix } : { id, status: 'ok', message: check.ok };
  });
}
