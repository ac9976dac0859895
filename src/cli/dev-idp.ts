import { authModuleFiles, locateAuthModule } from '../generator/project/auth-module.js';
import { defaultMountPath } from '../catalog/mount-path.js';
import { addDevDependencyCommand } from '../catalog/package-managers.js';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command } from 'commander';
import type Provider from 'oidc-provider';
import { appOrigin, callbackUrl } from '../generator/plan/env-groups.js';
import { findEnvLine, readEnvLines, setEnvValue } from '../generator/edit/env-file.js';
import { planMergedFile, readProjectFile } from '../generator/planned-file.js';
import { inspectAuthConfig, normaliseModule } from '../generator/edit/provider-list.js';
import { resolveInstalledPackage } from '../generator/installed-package.js';
import { writePlannedFiles } from '../generator/io/write-plan.js';
import { Refusal, usageError } from '../generator/errors.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { requireTypeScript } from './project.js';
import { filesReport, messageIo, writeJson } from './json-output.js';

/** Flags of `framework-auth dev-idp`. */
export interface DevIdpFlags {
  port: string;
  clientId: string;
  redirectUri?: string[];
  writeEnv?: boolean;
  cwd?: string;
  json?: boolean;
  /** `--no-install`: refuse instead of adding oidc-provider to the project's devDependencies. */
  install: boolean;
}

/** The oidc-provider major dev-idp is tested with, added to a project that lacks it. */
export const oidcProviderSpec = 'oidc-provider@^9.13.3';

/**
 * The default port: Dex's development port, so that the issuer (and so .env) stays the same from one start to the
 * next, away from the app's 3000 and the 4000/8080 of other dev servers.
 */
export const defaultDevIdpPort = 5556;

/** The client id registered by default. */
export const defaultDevClientId = 'framework-auth-dev';

const examples = `
Examples:
  $ npx framework-auth dev-idp --write-env      start it and fill AUTH_OIDC_ISSUER/ID/SECRET in .env; then npm run dev
  $ npx framework-auth dev-idp                  print the issuer, client id and secret; write nothing
  $ npx framework-auth dev-idp --port 0 --json  any free port; one JSON document on stdout once it listens
  $ npx framework-auth dev-idp --redirect-uri http://localhost:8080/api/auth/callback/oidc

A real OpenID provider (oidc-provider) on 127.0.0.1 for development: sign in as "alice" with any password. Inside a
project it registers the app's callback URL (AUTH_URL, else http://localhost:PORT, + <mount>/callback/oidc); the
project needs the oidc provider (npx framework-auth add-provider oidc). It keeps running until Ctrl-C; a restart
on the same port with --write-env's values in .env keeps them valid.
`;

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw usageError(`--port must be a number from 0 to 65535 (got ${JSON.stringify(value)})`);
  return Number(value);
}

function parseRedirectUri(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`--redirect-uri must be an absolute URL such as http://localhost:3000/auth/callback/oidc (got ${JSON.stringify(value)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--redirect-uri must be http or https (got ${JSON.stringify(value)})`);
  if (url.hash !== '') throw usageError(`--redirect-uri must not have a #fragment (got ${JSON.stringify(value)})`);
  return url.href;
}

/** The same URL on the other loopback name (`localhost` ↔ `127.0.0.1`), as browsers reach a local app by either. */
function loopbackTwin(url: string): string | undefined {
  const parsed = new URL(url);
  if (parsed.hostname === 'localhost') parsed.hostname = '127.0.0.1';
  else if (parsed.hostname === '127.0.0.1') parsed.hostname = 'localhost';
  else return undefined;
  return parsed.href;
}

interface ProjectFacts {
  root: string;
  envText: string | undefined;
  mount: string;
  hasOidc: boolean;
}

/**
 * The scaffolded project in `root`, or undefined when there is none (dev-idp then needs --redirect-uri). Its config
 * is read with the TypeScript parser (the project's, else fetched once, as every command that reads it does), so
 * that the callback URL follows its mount path.
 */
async function readProject(root: string, io: CliIo): Promise<ProjectFacts | undefined> {
  const authDir = locateAuthModule(root);
  const configText = readProjectFile(root, authModuleFiles(root, authDir).config);
  if (configText === undefined) return undefined;
  const api = await requireTypeScript(root, io);
  let mount = defaultMountPath;
  let hasOidc = true;
  const info = inspectAuthConfig(api, configText);
  if (!(info instanceof Refusal)) {
    mount = info.basePath ?? mount;
    hasOidc = info.providerModules.includes(normaliseModule('./core/providers/oidc.js'));
  }
  return { root, envText: readProjectFile(root, '.env'), mount, hasOidc };
}

type ProviderClass = typeof Provider;

/** The file URL of oidc-provider as installed for `dir`, or undefined (found on the disk first: issue 23). */
function resolveFrom(dir: string): string | undefined {
  const entry = resolveInstalledPackage('oidc-provider', dir);
  return entry === undefined ? undefined : pathToFileURL(entry).href;
}

/**
 * Where oidc-provider is, which `npx create-framework-auth` does not install: the project's (a development dependency), else
 * this CLI's own (a development checkout), else added to the project's devDependencies on first use.
 */
async function locateOidcProvider(root: string, install: boolean, io: CliIo, announce: (message: string) => void): Promise<string> {
  const own = resolveFrom(root) ?? resolveFrom(fileURLToPath(new URL('../../', import.meta.url)));
  if (own) return own;
  const [{ detectPackageManager }, { failureDetail }] = await Promise.all([import('../generator/io/install.js'), import('../generator/errors.js')]);
  const { pm } = detectPackageManager(root, undefined, io.env);
  const { command, args } = addDevDependencyCommand(pm, oidcProviderSpec);
  const shown = `${command} ${args.join(' ')}`;
  if (!install) throw usageError(`dev-idp needs oidc-provider, which ${root} does not have.`, `Add it with "${shown}", or run dev-idp without --no-install to add it.`);
  announce(`Adding oidc-provider to the project's devDependencies (first use): ${shown}`);
  const { execa } = await import('execa');
  const result = await execa(command, args, { cwd: root, reject: false, all: true, stdin: 'ignore', cancelSignal: io.signal });
  const loaded = result.exitCode === 0 ? resolveFrom(root) : undefined;
  if (!loaded) {
    throw new CliError('dev-idp-failed', `Could not add oidc-provider to the project: ${failureDetail(result, 5)}`, {
      hint: `Run "${shown}" yourself, then dev-idp again.`,
    });
  }
  return loaded;
}

/**
 * Starts a local OpenID provider on 127.0.0.1 with the test login `alice`, registers a client for the project's
 * callback URL, prints what the app needs, optionally writes it to `.env`, and serves until Ctrl-C.
 */
export async function runDevIdp(flags: DevIdpFlags, io: CliIo): Promise<void> {
  const port = parsePort(flags.port);
  const clientId = flags.clientId.trim();
  if (!/^[A-Za-z0-9._~-]+$/.test(clientId)) throw usageError(`--client-id may only use letters, digits, ".", "_", "~" and "-" (got ${JSON.stringify(flags.clientId)})`);
  const given = (flags.redirectUri ?? []).map(parseRedirectUri);
  const root = resolve(io.cwd, flags.cwd ?? '.');
  if (!existsSync(root) || !statSync(root).isDirectory()) throw usageError(`--cwd ${root} is not a directory`);
  const project = await readProject(root, io);
  if (!project && given.length === 0) {
    throw usageError(`No scaffolded project in ${root} (no src/auth/config.ts) to read the callback URL from.`, 'Run it in the project (or pass --cwd), or name the callback URL with --redirect-uri.');
  }
  if (!project && flags.writeEnv) throw usageError(`--write-env needs a scaffolded project; ${root} has no src/auth/config.ts.`);
  const json = flags.json === true;

  // Like the app, a value from the real environment wins over .env (process.loadEnvFile never overrides).
  const envText = project?.envText;
  const fileEnv = Object.fromEntries(readEnvLines(envText ?? '').map((line) => [line.key, line.value]));
  const env: Record<string, string | undefined> = { ...fileEnv, ...io.env };
  const origin = appOrigin([`AUTH_URL=${env.AUTH_URL ?? ''}`, `PORT=${env.PORT ?? ''}`].join('\n'));
  const projectUri = project ? callbackUrl(origin, project.mount, 'oidc') : undefined;
  const redirectUris = given.length > 0 ? given : [projectUri ?? '', loopbackTwin(projectUri ?? '')].filter((uri): uri is string => Boolean(uri));

  const [{ createUi }, { startOidcProvider, DEFAULT_ACCOUNTS }] = await Promise.all([import('./ui.js'), import('../dev-idp/oidc-provider.js')]);
  const ui = createUi(messageIo(io, json));
  ui.intro('framework-auth dev-idp');
  if (project && !project.hasOidc) ui.warn('The project\'s config has no OIDC() provider: add it with "npx framework-auth add-provider oidc" to sign in through this one.');

  // Loaded (or added to the project) before anything listens; a refusal is a plain message.
  const providerModule = await locateOidcProvider(root, flags.install, io, (message) => ui.info(message));
  let provider;
  try {
    provider = await startOidcProvider({ port, loadProvider: async () => ((await import(providerModule)) as { default: ProviderClass }).default });
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError('dev-idp-failed', code === 'EADDRINUSE' ? `Port ${port} on 127.0.0.1 is in use.` : `Could not start the OpenID provider: ${error instanceof Error ? error.message : String(error)}`, {
      hint: code === 'EADDRINUSE' ? 'Stop what uses it (another dev-idp?), or pass --port <other port> (then --write-env again: the issuer changes).' : undefined,
      cause: error,
    });
  }
  try {
    // The secret in .env stays valid across restarts when it was written for this client and issuer.
    const reuse = env.AUTH_OIDC_ID === clientId && env.AUTH_OIDC_ISSUER?.replace(/\/+$/, '') === provider.issuer && env.AUTH_OIDC_SECRET ? env.AUTH_OIDC_SECRET : undefined;
    const clientSecret = reuse ?? randomBytes(24).toString('base64url');
    await provider.setClient({ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris });

    const files = [];
    if (flags.writeEnv && project) {
      let text = envText;
      for (const [key, value] of [['AUTH_OIDC_ISSUER', provider.issuer], ['AUTH_OIDC_ID', clientId], ['AUTH_OIDC_SECRET', clientSecret]] as const) {
        if (findEnvLine(text ?? '', key)?.value !== value) text = setEnvValue(text, key, value);
      }
      files.push(planMergedFile('.env', envText, text ?? '', 'sets AUTH_OIDC_ISSUER, AUTH_OIDC_ID, AUTH_OIDC_SECRET', 0o600));
      await writePlannedFiles(project.root, files, { signal: io.signal });
      const overridden = ['AUTH_OIDC_ISSUER', 'AUTH_OIDC_ID', 'AUTH_OIDC_SECRET'].filter((key) => io.env[key] !== undefined);
      if (overridden.length > 0) ui.warn(`${overridden.join(', ')} ${overridden.length === 1 ? 'is' : 'are'} set in the environment, which wins over .env: unset ${overridden.length === 1 ? 'it' : 'them'} for the app.`);
    }
    const account = DEFAULT_ACCOUNTS.alice;
    ui.lines(
      'Local OpenID provider',
      [
        `issuer:         ${provider.issuer}`,
        `client id:      ${clientId}`,
        `client secret:  ${clientSecret}`,
        `redirect URIs:  ${redirectUris.join(', ')}`,
        `test login:     alice (any password): ${account?.name ?? 'Alice'} <${account?.email ?? ''}>`,
        '',
        flags.writeEnv
          ? `Wrote AUTH_OIDC_ISSUER, AUTH_OIDC_ID and AUTH_OIDC_SECRET to ${resolve(root, '.env')}. Start the app (npm run dev) and sign in.`
          : 'For the app, in .env (or run with --write-env):',
        ...(flags.writeEnv ? [] : [`  AUTH_OIDC_ISSUER=${provider.issuer}`, `  AUTH_OIDC_ID=${clientId}`, `  AUTH_OIDC_SECRET=${clientSecret}`]),
        '',
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
    if (json) {
      writeJson(io, 'dev-idp', true, {
        root,
        issuer: provider.issuer,
        clientId,
        clientSecret,
        redirectUris,
        login: { username: 'alice', password: 'any' },
        files: filesReport(files),
        env: { written: flags.writeEnv ? ['AUTH_OIDC_ISSUER', 'AUTH_OIDC_ID', 'AUTH_OIDC_SECRET'] : [] },
      });
    }
    await new Promise<void>((done) => {
      if (io.signal.aborted) done();
      else io.signal.addEventListener('abort', () => done(), { once: true });
    });
  } finally {
    await provider.close();
  }
  ui.outro('Stopped the local OpenID provider.');
}

/** The `dev-idp` command of `framework-auth`. */
export function createDevIdpCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return new Command('dev-idp')
    .description('run a local OpenID provider for development (sign in as "alice"), registered for the app\'s callback URL')
    .option('--port <port>', `port on 127.0.0.1, 0 for any free one (default ${defaultDevIdpPort})`, String(defaultDevIdpPort))
    .option('--client-id <id>', 'client id to register', defaultDevClientId)
    .option('--redirect-uri <url...>', 'callback URLs to allow (default: the project\'s, from its mount path and AUTH_URL or PORT)')
    .option('--write-env', 'write AUTH_OIDC_ISSUER, AUTH_OIDC_ID and AUTH_OIDC_SECRET to the project\'s .env (other lines kept)')
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--json', 'print one JSON document on stdout once it listens (messages go to stderr)')
    .option('--no-install', 'do not add oidc-provider to the project\'s devDependencies when it lacks it (refuse instead)')
    .addHelpText('after', examples)
    .action((flags: DevIdpFlags) => run(() => runDevIdp(flags, io)));
}
