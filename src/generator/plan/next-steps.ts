import { signInPath } from '../../catalog/mount-path.js';
import { posix } from 'node:path';
import type { PackageManager } from '../../catalog/package-managers.js';
import { findAdapter, postgresUrlExample } from '../../catalog/adapters.js';
import { runBinCommand, runScriptCommand } from '../../catalog/package-managers.js';
import { findProvider, getProvider } from '../../catalog/providers.js';
import { callbackUrl } from './env-groups.js';
import { findEnvLine } from '../edit/env-file.js';
import type { ProjectPlan } from './project.js';
import { mountInstructions } from './shape-plan.js';

/** The callback URL to register for each OAuth provider of the list. */
export function callbackUrls(origin: string, mount: string, providers: readonly string[]): { provider: string; url: string }[] {
  return providers
    .map((id) => findProvider(id))
    .filter((entry) => entry?.oauth === true)
    .map((entry) => ({ provider: entry?.id ?? '', url: callbackUrl(origin, mount, entry?.id ?? '') }));
}

/** What the chosen adapter needs before the first start: the database URL and `framework-auth migrate`. */
function databaseSteps(plan: ProjectPlan, pm: PackageManager): string[] {
  const adapter = findAdapter(plan.answers.adapter);
  const migrate = runBinCommand(pm, 'framework-auth migrate');
  switch (adapter?.id) {
    case 'sqlite': {
      const envText = plan.files.find((file) => file.path === '.env')?.content ?? '';
      const url = findEnvLine(envText, 'DATABASE_URL')?.value || adapter.env.DATABASE_URL;
      // Only a file: URL is shown: another kind of URL may hold a password.
      return [
        '',
        `Database (SQLite): ${url.startsWith('file:') ? `${url}, from ` : 'the file in '}DATABASE_URL in .env.`,
        `  The tables are created automatically on first use; to create them now: ${migrate}`,
      ];
    }
    case 'postgres':
      return [
        '',
        'Database (PostgreSQL): set DATABASE_URL in .env, e.g.',
        `  DATABASE_URL=${postgresUrlExample}`,
        `  then create the tables: ${migrate}`,
      ];
    case 'memory':
      return ['', 'Sessions are kept in memory (memory adapter): everyone is signed out when the server restarts.'];
    default:
      return [];
  }
}

/** What the user does next: install, fill .env, register callback URLs, mount (existing server), start. */
export function nextSteps(plan: ProjectPlan, options: { cwd: string; pm: PackageManager; installed: boolean }): string {
  const lines: string[] = [];
  const relativeRoot = posix.normalize(options.cwd === plan.root ? '.' : plan.root.startsWith(`${options.cwd}/`) ? plan.root.slice(options.cwd.length + 1) : plan.root);
  if (relativeRoot !== '.') lines.push(`cd ${relativeRoot}`);
  if (!options.installed) lines.push(plan.shape.workspace ? `${options.pm} install  (at the workspace root, ${plan.shape.workspace.root})` : `${options.pm} install`);
  const providers = plan.answers.providers.map((id) => getProvider(id));
  const envVars = [...new Set(providers.flatMap((entry) => entry.env))];
  if (envVars.length > 0) lines.push('', 'Fill in .env:', ...envVars.map((name) => `  ${name}=`));
  for (const { name, developmentFallback: fallback } of providers) {
    if (fallback) lines.push(`  ${name}: until ${fallback.env.join(' and ')} are set, ${fallback.instead}; production refuses to start without them.`);
  }
  const oauth = providers.filter((entry) => entry.oauth);
  if (oauth.length > 0) {
    lines.push('', 'Register these callback URLs with the providers:');
    for (const entry of oauth) lines.push(`  ${entry.name}: ${callbackUrl(plan.origin, plan.answers.mount, entry.id)}`);
  }
  for (const { localDevelopment: local } of providers) {
    if (!local) continue;
    lines.push('', `No ${local.kind} to register with yet? A local one for development (sign in as "${local.signInAs}"):`, `  ${runBinCommand(options.pm, `${local.command} ${local.writeEnvFlag}`)}`);
  }
  lines.push(...databaseSteps(plan, options.pm));
  const entry = plan.serverEntry;
  if (entry && !entry.generated) {
    lines.push('', ...mountInstructions(plan.shape, runScriptCommand(options.pm, 'build')));
  } else {
    lines.push('', `Start: ${runScriptCommand(options.pm, 'dev')}  →  ${plan.origin} (sign in at ${plan.origin}${signInPath(plan.answers.mount)})`);
  }
  return lines.join('\n');
}
