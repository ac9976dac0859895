import { authModuleFiles, locateAuthModule } from '../generator/project/auth-module.js';
import type { CodeFormat } from '../generator/code-format.js';
import { defaultMountPath, mountOfPattern, mountPattern } from '../catalog/mount-path.js';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command } from 'commander';
import { findProvider, providerCatalog } from '../catalog/providers.js';
import type { ProviderEntry } from '../catalog/providers.js';
import { callbackUrl } from '../generator/plan/env-groups.js';
import { manifestPath, readManifest } from '../generator/project/manifest.js';
import { readEnvLines } from '../generator/edit/env-file.js';
import { compilesGeneratedModules } from '../generator/edit/tsconfig.js';
import { readProjectFile } from '../generator/planned-file.js';
import { type AuthConfigInfo, featureOptionNames, normaliseModule, readAuthConfig } from '../generator/edit/provider-list.js';
import { featureCatalog, featureCommandName, missingNeededFeatures, whyNeeded } from '../catalog/features.js';
import type { FeatureEntry } from '../catalog/features.js';
import type { TypeScriptApi } from '../generator/typescript-api.js';
import { listSourceFiles, readSourceText, scriptKindOf } from '../generator/project/files.js';
import { compilesToCommonJs, readProjectShape } from '../generator/project/shape.js';
import type { PackageJsonInfo } from '../generator/project/shape.js';
import { checkFeatureDatabases } from './doctor-database.js';
import { CliError } from './errors.js';
import { requireEsmNodeProblem } from './node-version.js';
import type { CliIo } from './io.js';
import { messageIo, writeJson } from './json-output.js';
import { readScaffoldedConfig, requireTypeScript } from './project.js';
import type ts from 'typescript';

/** Flags of `framework-auth doctor`. */
export interface DoctorFlags {
  cwd?: string;
  offline?: boolean;
  json?: boolean;
}

const examples = `
Examples:
  $ npx framework-auth doctor
  $ npx framework-auth doctor --cwd apps/web
  $ npx framework-auth doctor --offline      skip the issuer discovery requests and the database
  $ npx framework-auth doctor --json         findings as one JSON document

Checks what a first start needs: AUTH_SECRET, each provider's env vars (and a feature's, such as the admins'
addresses in AUTH_ADMINS), that each issuer answers its discovery document (3 s timeout), that the server mounts the
auth routes at the config's basePath, 'trust proxy' when AUTH_URL is https, ESM settings in package.json and
tsconfig.json, installed dependencies, the Node version, and what the features keep in an sqlite or postgres
database (memberships holding a role the config no longer defines), read with the project's own code. Each problem
comes with its fix; the exit code is 1 when there is one. Values of secrets are never printed.
`;

/** How long an issuer may take to answer its discovery document. */
export const discoveryTimeoutMs = 3_000;

/** The lowest Node version the generated code and the CLI support (SPEC §2). */
const minimumNode = [20, 12] as const;

/** How bad a finding is: `error` fails the run (exit 1), `warn` does not. */
export type FindingStatus = 'ok' | 'warn' | 'error';

/** One check's result. */
export interface Finding {
  /** Stable id, e.g. `auth-secret`, `provider-env:github`, `issuer:oidc`. */
  id: string;
  status: FindingStatus;
  message: string;
  /** What to do about it (for `warn` and `error`). */
  fix?: string;
}

const ok = (id: string, message: string): Finding => ({ id, status: 'ok', message });
const problem = (id: string, status: 'warn' | 'error', message: string, fix: string): Finding => ({ id, status, message, fix });

/** The env the app will see: `.env` (loaded without overriding) under the real environment. */
function projectEnv(root: string, env: NodeJS.ProcessEnv): { values: Record<string, string | undefined>; source: (key: string) => string } {
  const fileValues = Object.fromEntries(readEnvLines(readProjectFile(root, '.env') ?? '').map((line) => [line.key, line.value]));
  const values: Record<string, string | undefined> = { ...fileValues };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) values[key] = value;
  return { values, source: (key) => (env[key] !== undefined ? 'the environment' : '.env') };
}

/**
 * The Node version check (exported for its test: the running Node cannot be changed). A CommonJS project (`commonJs`)
 * also needs `require(esm)` to load jose and oauth4webapi.
 */
export function checkNode(version: string, commonJs = false): Finding {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const good = major > minimumNode[0] || (major === minimumNode[0] && minor >= minimumNode[1]);
  if (!good) {
    return problem('node-version', 'error', `Node ${version} is older than ${minimumNode.join('.')}, which the generated code needs (process.loadEnvFile, fetch).`, `Install Node ${minimumNode.join('.')} or later (nvm install 20).`);
  }
  const requireEsm = commonJs ? requireEsmNodeProblem(version) : undefined;
  if (requireEsm) return problem('node-version', 'error', requireEsm.message, requireEsm.fix);
  return ok('node-version', commonJs ? `Node ${version} (require() of ES modules, which this CommonJS project needs)` : `Node ${version}`);
}

function checkSecret(values: Record<string, string | undefined>, source: (key: string) => string): Finding {
  const raw = values.AUTH_SECRET;
  const secrets = (raw ?? '').split(',').map((secret) => secret.trim()).filter(Boolean);
  const fix = 'Run "npx framework-auth secret" (writes a 43-character AUTH_SECRET to .env).';
  if (secrets.length === 0) return problem('auth-secret', 'error', 'AUTH_SECRET is not set: the app refuses to start without it.', fix);
  const short = secrets.findIndex((secret) => secret.length < 32);
  if (short !== -1) {
    const which = secrets.length > 1 ? `Secret #${short + 1} of AUTH_SECRET` : 'AUTH_SECRET';
    return problem('auth-secret', 'error', `${which} (from ${source('AUTH_SECRET')}) is ${secrets[short]?.length ?? 0} characters long; it must be at least 32.`, `${fix.slice(0, -1)}; with --force to replace a short one.`);
  }
  return ok('auth-secret', `AUTH_SECRET is set (from ${source('AUTH_SECRET')}${secrets.length > 1 ? `, ${secrets.length} secrets for rotation` : ''}).`);
}

/** The option of a provider factory that stands for one of its env vars (Auth.js names). */
function optionFor(envKey: string): string {
  if (envKey.endsWith('_ISSUER')) return 'issuer';
  if (envKey.endsWith('_SECRET')) return 'clientSecret';
  if (envKey.endsWith('_ID')) return 'clientId';
  if (envKey.endsWith('_SERVER')) return 'server';
  return 'from';
}

interface ConfiguredProvider {
  id: string;
  /** Property names of the object literal passed to the factory (options that replace env vars). */
  options: Set<string>;
}

function configuredProviders(api: TypeScriptApi, configText: string): ConfiguredProvider[] {
  const sourceFile = api.createSourceFile('config.ts', configText, api.ScriptTarget.Latest, true, api.ScriptKind.TS);
  const imports = new Map<string, string>();
  for (const statement of sourceFile.statements) {
    if (api.isImportDeclaration(statement) && api.isStringLiteral(statement.moduleSpecifier) && statement.importClause?.name) {
      imports.set(statement.importClause.name.text, normaliseModule(statement.moduleSpecifier.text));
    }
    // A CommonJS config.js (issue 36): `const GitHub = require('./core/providers/github.js').default;`
    const declaration = api.isVariableStatement(statement) ? statement.declarationList.declarations[0] : undefined;
    const initializer = declaration?.initializer;
    const call = initializer && api.isPropertyAccessExpression(initializer) && initializer.name.text === 'default' ? initializer.expression : undefined;
    if (declaration && api.isIdentifier(declaration.name) && call && api.isCallExpression(call) && api.isIdentifier(call.expression) && call.expression.text === 'require') {
      const [specifier] = call.arguments;
      if (specifier && api.isStringLiteral(specifier)) imports.set(declaration.name.text, normaliseModule(specifier.text));
    }
  }
  const found: ConfiguredProvider[] = [];
  const visit = (node: ts.Node): void => {
    if (api.isPropertyAssignment(node) && api.isIdentifier(node.name) && node.name.text === 'providers' && api.isArrayLiteralExpression(node.initializer)) {
      for (const element of node.initializer.elements) {
        const call = api.isCallExpression(element) ? element : undefined;
        const callee = call ? call.expression : element;
        if (!api.isIdentifier(callee)) continue;
        const module = imports.get(callee.text);
        const entry = providerCatalog.find((candidate) => normaliseModule(candidate.importPath) === module);
        if (!entry) continue;
        const options = new Set<string>();
        const first = call?.arguments[0];
        if (first && api.isObjectLiteralExpression(first)) {
          for (const property of first.properties) {
            if (property.name && (api.isIdentifier(property.name) || api.isStringLiteral(property.name))) options.add(property.name.text);
          }
        }
        found.push({ id: entry.id, options });
      }
    }
    api.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/** The catalog entry of a configured provider, typed with the fields any entry may have. */
function catalogEntry(provider: ConfiguredProvider): ProviderEntry | undefined {
  return findProvider(provider.id);
}

function checkProviderEnv(providers: readonly ConfiguredProvider[], values: Record<string, string | undefined>): Finding[] {
  return providers.flatMap((provider) => {
    const entry = catalogEntry(provider);
    if (!entry || entry.env.length === 0) return [];
    const missing = entry.env.filter((key) => !values[key]?.trim() && !provider.options.has(optionFor(key)));
    const id = `provider-env:${entry.id}`;
    if (missing.length === 0) return [ok(id, `${entry.name}: ${entry.env.join(', ')} set.`)];
    const fallback = entry.developmentFallback;
    if (fallback && values.NODE_ENV?.trim() !== 'production' && missing.every((key) => fallback.env.includes(key))) {
      const empty = `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} empty`;
      return [problem(id, 'warn', `${entry.name}: ${empty}, so ${fallback.instead}. In production the app refuses to start without ${missing.join(' and ')}.`, `Fill in ${missing.join(', ')} in .env with your SMTP server (smtp://user:password@host:587) and sender before going to production.`)];
    }
    const local = entry.localDevelopment;
    const hint = local ? ` For a local ${local.kind} to develop with: npx ${local.command} ${local.writeEnvFlag}.` : '';
    return [problem(id, 'error', `${entry.name}: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} empty or missing.`, `Fill in ${missing.join(', ')} in .env (from the app you registered with ${entry.name}).${hint}`)];
  });
}

async function checkIssuers(providers: readonly ConfiguredProvider[], values: Record<string, string | undefined>, offline: boolean): Promise<Finding[]> {
  const checks = providers.flatMap((provider) => {
    const entry = catalogEntry(provider);
    const key = entry?.env.find((name) => name.endsWith('_ISSUER'));
    const issuer = key ? values[key]?.trim() : undefined;
    return entry && key && issuer ? [{ entry, key, issuer }] : [];
  });
  return Promise.all(
    checks.map(async ({ entry, key, issuer }): Promise<Finding> => {
      const id = `issuer:${entry.id}`;
      let url: URL;
      try {
        url = new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
      } catch {
        return problem(id, 'error', `${key} is not a URL (got ${JSON.stringify(issuer)}).`, `Set ${key} to the issuer URL, e.g. https://login.example.com.`);
      }
      if (offline) return ok(id, `${entry.name}: discovery not checked (--offline).`);
      try {
        const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(discoveryTimeoutMs), redirect: 'manual' });
        if (!response.ok) {
          return problem(id, 'error', `${entry.name}: ${url.href} answered ${response.status}.`, `Check ${key}: the issuer URL serves /.well-known/openid-configuration.`);
        }
        const document = (await response.json().catch(() => undefined)) as { issuer?: unknown } | undefined;
        if (typeof document?.issuer !== 'string') {
          return problem(id, 'error', `${entry.name}: ${url.href} is not a discovery document (no issuer).`, `Check ${key}.`);
        }
        if (document.issuer.replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) {
          return problem(id, 'error', `${entry.name}: the provider calls itself ${document.issuer}, not ${issuer}; sign-in would fail the issuer check.`, `Set ${key}=${document.issuer}`);
        }
        return ok(id, `${entry.name}: ${issuer} answers its discovery document.`);
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        const reason = timedOut ? `no answer within ${discoveryTimeoutMs / 1000} s` : `unreachable (${error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error)})`;
        const local = entry.localDevelopment;
        return problem(id, 'error', `${entry.name}: ${url.href} is ${reason}.`, `Check ${key} and that the provider is running${local ? ` (npx ${local.command} starts a local one)` : ''}.`);
      }
    }),
  );
}

/** Source files (not the auth module, dependencies, output or dot folders) that mention authHandler: where it is mounted. */
function serverFiles(root: string, authDir: string): string[] {
  return listSourceFiles(root, { skip: [authDir] }).filter((path) => readSourceText(root, path)?.includes('authHandler') === true);
}

interface ServerFacts {
  /** Mount paths given to `app.use(path, authHandler)`, by file. */
  mounts: { file: string; pattern: string | undefined }[];
  /** Whether some file sets `trust proxy` to a truthy value. */
  trustProxy: boolean;
  /** Whether some file trusts every proxy hop (`'trust proxy', true` or `enable('trust proxy')`). */
  trustsEveryProxy: boolean;
}

function readServerFacts(api: TypeScriptApi, root: string, files: readonly string[]): ServerFacts {
  const facts: ServerFacts = { mounts: [], trustProxy: false, trustsEveryProxy: false };
  for (const file of files) {
    const sourceFile = api.createSourceFile(file, readSourceText(root, file) ?? '', api.ScriptTarget.Latest, true, scriptKindOf(api, file));
    const visit = (node: ts.Node): void => {
      if (api.isCallExpression(node) && api.isPropertyAccessExpression(node.expression)) {
        const method = node.expression.name.text;
        const [first, second] = node.arguments;
        const isHandler = (argument: ts.Expression): boolean =>
          (api.isIdentifier(argument) && argument.text === 'authHandler') || (api.isPropertyAccessExpression(argument) && argument.name.text === 'authHandler');
        if (method === 'use' && node.arguments.some(isHandler)) {
          facts.mounts.push({ file, pattern: first && (api.isStringLiteral(first) || api.isNoSubstitutionTemplateLiteral(first)) ? first.text : undefined });
        }
        const isTrustProxy = first && api.isStringLiteral(first) && first.text === 'trust proxy';
        if (isTrustProxy && method === 'enable') facts.trustProxy = facts.trustsEveryProxy = true;
        if (isTrustProxy && method === 'set' && second?.kind === api.SyntaxKind.TrueKeyword) facts.trustsEveryProxy = true;
        if (isTrustProxy && method === 'set' && second && second.kind !== api.SyntaxKind.FalseKeyword && !(api.isNumericLiteral(second) && second.text === '0')) facts.trustProxy = true;
      }
      api.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  return facts;
}

function checkMount(basePath: string | undefined, facts: ServerFacts, configPath: string): Finding {
  if (basePath === undefined) return problem('mount', 'warn', `${configPath} has no literal basePath; the routes' mount cannot be checked.`, `Set basePath: '${defaultMountPath}' (the path you mount authHandler at) in ${configPath}.`);
  const fix = `Mount it as app.use('${mountPattern(basePath, 5)}', authHandler) (Express 4: '${mountPattern(basePath, 4)}'), or change basePath in ${configPath} to the mount path.`;
  if (facts.mounts.length === 0) return problem('mount', 'warn', `No app.use(..., authHandler) found in the project's sources; the auth routes may not be mounted.`, fix);
  const wrong = facts.mounts.filter((mount) => mount.pattern !== undefined && mountOfPattern(mount.pattern) !== basePath);
  if (wrong.length > 0) {
    return problem('mount', 'error', `${wrong.map((mount) => `${mount.file} mounts authHandler at ${JSON.stringify(mount.pattern)}`).join('; ')}, but basePath is ${JSON.stringify(basePath)}: sign-in and callback URLs would not reach it.`, fix);
  }
  return ok('mount', `authHandler is mounted at ${basePath} (${facts.mounts.map((mount) => mount.file).join(', ')}), as basePath says.`);
}

/**
 * A catalog feature in the config's features (`TwoFactor()`) needs what its entry says (an adapter, one of its
 * providers, the features it works beside): without the first two the app refuses to start. One finding per feature listed, named by its id.
 */
function checkFeature(feature: FeatureEntry, info: AuthConfigInfo, configPath: string): Finding | undefined {
  if (!info.featureModules.includes(normaliseModule(feature.importPath))) return undefined;
  const { needs, doctor } = feature;
  const remove = `npx framework-auth ${featureCommandName(feature, false)}`;
  const present = providerCatalog.filter((entry) => (needs.providers?.ids ?? []).includes(entry.id) && info.providerModules.includes(normaliseModule(entry.importPath)));
  if (needs.adapter && !info.hasAdapter) return problem(feature.id, 'error', `${configPath} has ${feature.importName}() but no adapter: the app refuses to start (${doctor.withoutAdapter}).`, `Set \`adapter:\` (npx create-framework-auth . --adapter sqlite), or run ${remove}.`);
  if (needs.providers && present.length === 0) return problem(feature.id, 'error', `${configPath} has ${feature.importName}() but ${doctor.withoutProviders}: the app refuses to start.`, `Run npx framework-auth add-provider ${needs.providers.suggested}, or ${remove}.`);
  const [missing] = missingNeededFeatures(feature, featureCatalog.filter((entry) => info.featureModules.includes(normaliseModule(entry.importPath))));
  if (missing) return problem(feature.id, 'error', `${configPath} has ${feature.importName}() but not ${missing.importName}(), which it needs: it ${whyNeeded(feature, missing)}.`, `Run npx framework-auth ${featureCommandName(missing, true)}, or ${remove}.`);
  return ok(feature.id, doctor.configured(present.map((entry) => entry.name).join(', '), info.basePath ?? defaultMountPath));
}

/**
 * The env keys a configured feature starts without but is of no use without (no admin without AUTH_ADMINS): a warning
 * while one is empty, unless the config gives the feature the option that replaces it (`Admin({ admins })`).
 */
function checkFeatureEnv(api: TypeScriptApi, features: readonly FeatureEntry[], configText: string, configPath: string, values: Record<string, string | undefined>): Finding[] {
  return features.flatMap((feature) =>
    feature.env.flatMap((key) => {
      const { whenEmpty } = key;
      if (!whenEmpty) return [];
      const id = `feature-env:${key.name}`;
      if (values[key.name]?.trim()) return [ok(id, `${feature.name}: ${key.name} is set.`)];
      if (featureOptionNames(api, configText, feature.importPath, configPath)?.includes(whenEmpty.option)) {
        return [ok(id, `${feature.name}: ${feature.importName}({ ${whenEmpty.option} }) in ${configPath} stands for ${key.name}.`)];
      }
      return [problem(id, 'warn', `${feature.name}: ${key.name} is empty: ${whenEmpty.consequence}.`, whenEmpty.fix(configPath))];
    }),
  );
}

/**
 * Without AUTH_URL the runtime builds URLs on the Host header (development only, never for emailed links): a
 * production setup, or one with a provider that sends sign-in links (email), needs it.
 */
function checkMissingAuthUrl(providers: readonly ConfiguredProvider[], values: Record<string, string | undefined>): Finding | undefined {
  if (values.AUTH_URL?.trim()) return undefined;
  const trustHost = values.AUTH_TRUST_HOST?.trim() ?? '';
  const hostList = trustHost !== '' && !/^(true|false|1|0|yes|no|on|off)$/i.test(trustHost);
  const fix = 'Set AUTH_URL in .env (or the host\'s environment) to the URL users reach the app at, e.g. AUTH_URL=https://app.example.com';
  if (values.NODE_ENV?.trim() === 'production' && !hostList) {
    return problem('auth-url', 'error', 'NODE_ENV is production and AUTH_URL is not set: the app would answer every auth request with UntrustedHost, or, with AUTH_TRUST_HOST=true, build its URLs on whatever Host header a client sends.', fix);
  }
  const linkSenders = [...new Set(providers.filter((provider) => catalogEntry(provider)?.sendsLinks === true).map((provider) => provider.id))];
  if (linkSenders.length > 0 && !hostList) {
    const senders = `the ${linkSenders.join(' and ')} provider${linkSenders.length > 1 ? 's send' : ' sends'}`;
    return problem('auth-url', 'error', `AUTH_URL is not set and ${senders} links by email: the app refuses to start rather than build a link on a Host header.`, fix);
  }
  return problem('auth-url', 'warn', 'AUTH_URL is not set: the auth routes build their URLs on the request\'s Host header, which is only acceptable in development.', fix);
}

function checkCallbackUrls(providers: readonly ConfiguredProvider[], values: Record<string, string | undefined>, basePath: string, envText: string | undefined): Finding[] {
  const findings: Finding[] = [];
  const authUrl = values.AUTH_URL?.trim();
  let origin = `http://localhost:${values.PORT && /^\d+$/.test(values.PORT) ? values.PORT : '3000'}`;
  const missing = checkMissingAuthUrl(providers, values);
  if (missing) findings.push(missing);
  if (authUrl) {
    let url: URL | undefined;
    try {
      url = new URL(authUrl);
    } catch {
      findings.push(problem('auth-url', 'error', `AUTH_URL is not an absolute URL (got ${JSON.stringify(authUrl)}); the app refuses to start.`, 'Set AUTH_URL to the URL users reach the app at, e.g. https://app.example.com'));
    }
    if (url) {
      origin = url.origin;
      if (url.pathname !== '/' && url.pathname.replace(/\/+$/, '') !== basePath) {
        findings.push(problem('auth-url', 'warn', `AUTH_URL has the path ${url.pathname}; only its origin (${url.origin}) is used, the auth routes are at ${basePath}.`, `Set AUTH_URL=${url.origin}`));
      } else {
        findings.push(ok('auth-url', `AUTH_URL is ${url.origin}.`));
      }
    }
  }
  const oauth = providers.map((provider) => findProvider(provider.id)).filter((entry) => entry?.oauth === true);
  const stale: string[] = [];
  for (const entry of oauth) {
    if (!entry) continue;
    const expected = callbackUrl(origin, basePath, entry.id);
    const comment = (envText ?? '').split('\n').find((line) => line.startsWith(`# ${entry.name}: register `));
    const noted = comment === undefined ? undefined : /register (\S+) as the callback URL/.exec(comment)?.[1];
    if (noted !== undefined && noted !== expected) stale.push(`${entry.name}: .env says ${noted}, the app's is ${expected}`);
  }
  const urls = oauth.map((entry) => `${entry?.name}: ${callbackUrl(origin, basePath, entry?.id ?? '')}`).join('; ');
  if (stale.length > 0) {
    findings.push(problem('callback-urls', 'warn', `Callback URLs moved (mount path or origin changed): ${stale.join('; ')}.`, 'Register the new callback URLs with the providers (and update the comments in .env).'));
  } else if (oauth.length > 0) {
    findings.push(ok('callback-urls', `Callback URLs to register: ${urls}.`));
  }
  return findings;
}

function checkTrustProxy(values: Record<string, string | undefined>, facts: ServerFacts): Finding {
  if (facts.trustsEveryProxy) {
    return problem(
      'trust-proxy',
      'warn',
      "The app sets 'trust proxy' to true: every client can then forge X-Forwarded-For (its address, which rate limits count by), X-Forwarded-Proto and X-Forwarded-Host.",
      "Trust only your proxy: app.set('trust proxy', 'loopback') for one on the same host, or its hop count (1) or addresses.",
    );
  }
  const authUrl = values.AUTH_URL?.trim() ?? '';
  if (!authUrl.startsWith('https:')) return ok('trust-proxy', 'AUTH_URL is not https: trust proxy is not needed locally.');
  if (facts.trustProxy) return ok('trust-proxy', "AUTH_URL is https and the app sets 'trust proxy'.");
  return problem(
    'trust-proxy',
    'error',
    "AUTH_URL is https but the app does not set 'trust proxy': behind a TLS-terminating proxy, req.protocol is http, so session cookies lose Secure and their __Secure- prefix.",
    "Add app.set('trust proxy', 1) (the proxy's hop count, or its addresses) before app.use(..., authHandler).",
  );
}

/** Files that say the app runs behind a proxy it does not share a host with: a container, a PaaS router. */
const proxiedDeploymentFiles = ['Dockerfile', 'docker-compose.yml', 'docker-compose.yaml', 'compose.yml', 'compose.yaml', 'fly.toml', 'render.yaml', 'app.yaml', 'Procfile', 'heroku.yml', 'railway.json', 'k8s', 'kubernetes', 'helm'];

/**
 * The generated server trusts only a proxy on loopback unless TRUST_PROXY says otherwise. Behind Docker's,
 * Kubernetes' or a PaaS router, every client then is that proxy for the rate limits (issue 27): one client could
 * lock everyone out of credentials and email sign-in. The runtime warns on the first such request; doctor says so
 * beforehand when the project has deployment files and TRUST_PROXY is unset.
 */
function checkProxiedDeployment(root: string, values: Record<string, string | undefined>): Finding | undefined {
  if (values.TRUST_PROXY?.trim()) return undefined;
  const found = proxiedDeploymentFiles.filter((name) => existsSync(join(root, name)));
  if (found.length === 0) return undefined;
  return problem(
    'trust-proxy-deployment',
    'warn',
    `TRUST_PROXY is not set and ${found.join(', ')} ${found.length === 1 ? 'says' : 'say'} the app runs behind a proxy (a container network or a platform's router): the app trusts only a proxy on loopback, so every client would count as that proxy for rate limits, and one client could lock everyone out of credentials and email sign-in.`,
    'Set TRUST_PROXY in the deployment\'s environment to the proxy\'s hop count (1) or its addresses (10.0.0.0/8).',
  );
}

/**
 * A host-list wildcard on a public suffix (`*.github.io`, `*.co.uk`) trusts every site anyone registers there with
 * sign-in links and codes. The runtime refuses top-level and co.uk-style ones at startup without a list; this reads
 * the full public-suffix list (psl, loaded only when there is a wildcard to look up), which knows the rest.
 */
async function checkTrustHostSuffixes(api: TypeScriptApi, configText: string, configPath: string, values: Record<string, string | undefined>): Promise<Finding[]> {
  const entries: { entry: string; from: string }[] = [];
  const envList = values.AUTH_TRUST_HOST?.trim() ?? '';
  // As the runtime reads AUTH_TRUST_HOST: a boolean, or a comma-separated host list.
  if (!/^(true|false|1|0|yes|no|on|off)?$/i.test(envList)) {
    for (const entry of envList.split(',')) if (entry.trim()) entries.push({ entry: entry.trim(), from: 'AUTH_TRUST_HOST' });
  }
  const sourceFile = api.createSourceFile('config.ts', configText, api.ScriptTarget.Latest, true, api.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (api.isPropertyAssignment(node) && api.isIdentifier(node.name) && node.name.text === 'trustHost' && api.isArrayLiteralExpression(node.initializer)) {
      for (const element of node.initializer.elements) {
        if (api.isStringLiteralLike(element) && element.text.trim()) entries.push({ entry: element.text.trim(), from: `trustHost in ${configPath}` });
      }
    }
    api.forEachChild(node, visit);
  };
  visit(sourceFile);
  const wildcards = entries.filter(({ entry }) => entry.startsWith('*.'));
  if (wildcards.length === 0) return [];
  const { createRequire } = await import('node:module');
  // psl ships its types, but its package.json "exports" hides them from NodeNext resolution.
  const psl = createRequire(import.meta.url)('psl') as { parse(domain: string): { tld?: string | null; listed?: boolean } };
  const onSuffix = wildcards.flatMap(({ entry, from }) => {
    const domain = entry.slice(2).replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase();
    const parsed = psl.parse(domain);
    return parsed.listed === true && parsed.tld === domain ? [`${from} lists ${entry}, a wildcard on the public suffix ${domain}`] : [];
  });
  if (onSuffix.length === 0) return [ok('trust-host', `Host list: no wildcard on a public suffix (${wildcards.map(({ entry }) => entry).join(', ')}).`)];
  return [
    problem(
      'trust-host',
      'error',
      `${onSuffix.join('; ')}: every site anyone registers there would be trusted with sign-in links and codes.`,
      'List your own hosts instead: a host name (app.github.io) or a wildcard below a domain you own (*.preview.example.com).',
    ),
  ];
}

function checkPackageJson(root: string, code: CodeFormat | undefined, commonJs: boolean): Finding {
  const text = readProjectFile(root, 'package.json');
  if (text === undefined) return problem('package-type', 'error', 'No package.json.', 'Run "npm init -y", then "npx create-framework-auth" again.');
  let type: unknown;
  try {
    type = (JSON.parse(text) as { type?: unknown }).type;
  } catch {
    return problem('package-type', 'error', 'package.json is not valid JSON.', 'Fix package.json.');
  }
  if (commonJs) return ok('package-type', `package.json "type" is ${type === undefined ? 'not set' : JSON.stringify(type)}: tsc compiles the auth module to CommonJS with the rest of the project.`);
  // A JavaScript module is written in the project's module system (issue 36): CommonJS needs no "type".
  if (code === 'javascript-commonjs' || (code === undefined && type !== 'module')) {
    return ok('package-type', `package.json is ${type === undefined ? 'CommonJS ("type" not set)' : `"type": ${JSON.stringify(type)}`}; the auth module is CommonJS JavaScript.`);
  }
  return type === 'module'
    ? ok('package-type', 'package.json has "type": "module".')
    : problem('package-type', 'error', `package.json "type" is ${type === undefined ? 'not set (CommonJS)' : JSON.stringify(type)}; the auth module is ESM.`, 'Set "type": "module" in package.json.');
}

function checkTsconfig(api: TypeScriptApi, root: string, commonJs: boolean): Finding[] {
  const path = join(root, 'tsconfig.json');
  if (!existsSync(path)) return [problem('tsconfig', 'error', 'No tsconfig.json.', 'Run "npx create-framework-auth" again: it writes one with NodeNext, strict and outDir.')];
  const read = api.readConfigFile(path, (file) => api.sys.readFile(file));
  if (read.error) return [problem('tsconfig', 'error', `tsconfig.json cannot be read: ${api.flattenDiagnosticMessageText(read.error.messageText, ' ')}`, 'Fix tsconfig.json.')];
  const parsed = api.parseJsonConfigFileContent(read.config, api.sys, dirname(path));
  const options = parsed.options;
  const findings: Finding[] = [];
  const moduleName = options.module === undefined ? 'not set' : api.ModuleKind[options.module];
  const resolutionName = options.moduleResolution === undefined ? undefined : api.ModuleResolutionKind[options.moduleResolution];
  // Only what would fail: NodeNext/Node16, or an ES module target with Bundler resolution (the seed's ESNext setup);
  // compiled to CommonJS, a module that lets a CommonJS file import an ES module, without verbatimModuleSyntax.
  if (commonJs) {
    findings.push(checkCommonJsTsconfig(moduleName, options.verbatimModuleSyntax === true));
  } else if (compilesGeneratedModules(options.module === undefined ? undefined : moduleName, resolutionName)) {
    findings.push(ok('tsconfig-module', `tsconfig.json: module ${moduleName}${resolutionName ? `, moduleResolution ${resolutionName}` : ''}.`));
  } else if (options.module === undefined || (!/^node/i.test(moduleName) && !compilesGeneratedModules(moduleName, 'Bundler'))) {
    findings.push(problem('tsconfig-module', 'error', `tsconfig.json "module" is ${moduleName}; the generated imports ("./config.js") need NodeNext. ESNext with "moduleResolution": "Bundler" works too.`, 'Set "module": "NodeNext" and "moduleResolution": "NodeNext" in compilerOptions.'));
  } else {
    const needed = /^node/i.test(moduleName) ? 'NodeNext' : 'Bundler';
    findings.push(problem('tsconfig-module', 'error', `tsconfig.json "moduleResolution" is ${resolutionName ?? 'not set'}; with "module": "${moduleName}" it must be ${needed}.`, `Set "moduleResolution": "${needed}"${needed === 'NodeNext' ? ' (or remove it)' : ''}.`));
  }
  findings.push(options.strict === true ? ok('tsconfig-strict', 'tsconfig.json: strict.') : problem('tsconfig-strict', 'warn', 'tsconfig.json does not set "strict": true; the generated code is written for it.', 'Set "strict": true in compilerOptions.'));
  return findings;
}

function checkCommonJsTsconfig(moduleName: string, verbatimModuleSyntax: boolean): Finding {
  if (verbatimModuleSyntax) {
    return problem('tsconfig-module', 'error', 'tsconfig.json compiles to CommonJS with "verbatimModuleSyntax": true, which forbids the auth module\'s import/export.', 'Set "verbatimModuleSyntax": false in compilerOptions.');
  }
  if (/^node1[68]$/i.test(moduleName)) {
    return problem('tsconfig-module', 'error', `tsconfig.json "module" is ${moduleName}: tsc refuses a CommonJS file's import of jose and oauth4webapi, ES modules (TS1479).`, 'Set "module": "NodeNext" (and "moduleResolution": "NodeNext", or remove it) in compilerOptions.');
  }
  return ok('tsconfig-module', `tsconfig.json: module ${moduleName}, compiled to CommonJS.`);
}

function isInstalled(root: string, name: string): boolean {
  for (let directory = root; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'node_modules', name, 'package.json'))) return true;
    if (dirname(directory) === directory) return false;
  }
}

function checkDependencies(root: string, providers: readonly ConfiguredProvider[]): Finding {
  const needed = ['express', 'jose', 'oauth4webapi', ...providers.flatMap((provider) => Object.keys(findProvider(provider.id)?.dependencies ?? {}))];
  const missing = [...new Set(needed)].filter((name) => !isInstalled(root, name));
  return missing.length === 0
    ? ok('dependencies', `Installed: ${[...new Set(needed)].join(', ')}.`)
    : problem('dependencies', 'error', `Not installed: ${missing.join(', ')}.`, 'Run your package manager\'s install (npm install).');
}

function checkGitignore(root: string): Finding {
  const text = readProjectFile(root, '.gitignore') ?? '';
  const ignored = text.split(/\r?\n/).some((line) => ['.env', '/.env', '.env*', '*.env'].includes(line.trim()));
  return ignored ? ok('gitignore', '.env is in .gitignore.') : problem('gitignore', 'warn', '.env is not in .gitignore: its secrets could be committed.', 'Add a line ".env" to .gitignore.');
}

/** Whether the project is TypeScript compiled to CommonJS, as create-framework-auth reads it (issue 36). */
function isCommonJsTypeScript(api: TypeScriptApi, root: string): boolean {
  const text = readProjectFile(root, 'package.json');
  let packageJson: PackageJsonInfo | undefined;
  try {
    packageJson = text === undefined ? undefined : (JSON.parse(text) as PackageJsonInfo);
  } catch {
    return false;
  }
  return compilesToCommonJs(readProjectShape(root, { packageJson, typescript: () => api }));
}

/**
 * Checks a scaffolded project as a new user would need it to work, and reports each finding with its fix. Exit 1
 * when there is an `error`.
 */
export async function runDoctor(flags: DoctorFlags, io: CliIo): Promise<void> {
  const root = resolve(io.cwd, flags.cwd ?? '.');
  const json = flags.json === true;
  const manifest = readManifest(root);
  const authDir = locateAuthModule(root, manifest);
  const configText = readScaffoldedConfig(root, authDir);
  const { config: configPath, coreIndex, javaScript } = authModuleFiles(root, authDir);
  const api = await requireTypeScript(root, io);
  const { createUi } = await import('./ui.js');
  const ui = createUi(messageIo(io, json));
  ui.intro(`framework-auth doctor (${root})`);

  const { values, source } = projectEnv(root, io.env);
  let basePath: string | undefined;
  const commonJs = isCommonJsTypeScript(api, root);
  const findings: Finding[] = [checkNode(io.nodeVersion ?? process.versions.node, commonJs)];
  // The features the config lists as they should be, whose rows doctor may then ask the database about.
  const configured: FeatureEntry[] = [];
  try {
    const info = readAuthConfig(api, configText);
    basePath = info.basePath;
    for (const feature of featureCatalog) {
      const finding = checkFeature(feature, info, configPath);
      if (finding) findings.push(finding);
      if (finding?.status === 'ok') configured.push(feature);
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    findings.push(problem('config', 'error', error.message, 'Keep `export const authConfig = { basePath, providers: [...] }` as an object literal.'));
  }
  const providers = configuredProviders(api, configText);
  const facts = readServerFacts(api, root, serverFiles(root, authDir));
  findings.push(
    checkSecret(values, source),
    ...checkProviderEnv(providers, values),
    ...checkFeatureEnv(api, configured, configText, configPath, values),
    ...(await checkIssuers(providers, values, flags.offline === true)),
    checkMount(basePath, facts, configPath),
    ...checkCallbackUrls(providers, values, basePath ?? defaultMountPath, readProjectFile(root, '.env')),
    checkTrustProxy(values, facts),
    ...[checkProxiedDeployment(root, values)].filter((finding): finding is Finding => finding !== undefined),
    ...(await checkTrustHostSuffixes(api, configText, configPath, values)),
    checkPackageJson(root, javaScript ? (manifest?.code ?? undefined) : 'typescript', commonJs),
    ...(javaScript ? [ok('tsconfig', `No tsconfig needed: the auth module is JavaScript (${configPath}), with declarations beside it.`)] : checkTsconfig(api, root, commonJs)),
    checkDependencies(root, providers),
    checkGitignore(root),
    ...(await checkFeatureDatabases(configured, { root, authDir, configPath, coreIndex, javaScript, mount: basePath ?? defaultMountPath, env: values, offline: flags.offline === true, signal: io.signal })),
    manifest ? ok('manifest', `${manifestPath} lists ${Object.keys(manifest.files).length} generated files (written by ${manifest.cliVersion}).`) : problem('manifest', 'warn', `No ${manifestPath}: framework-auth update cannot tell your changes from the CLI's.`, 'Re-run "npx create-framework-auth" with the project\'s answers to write it.'),
  );

  const icon = { ok: '✔', warn: '▲', error: '✖' } as const;
  const body = findings.map((finding) => `${icon[finding.status]} ${finding.message}${finding.fix ? `\n    fix: ${finding.fix}` : ''}`).join('\n');
  ui.lines('Checks', body);
  const errors = findings.filter((finding) => finding.status === 'error');
  const warnings = findings.filter((finding) => finding.status === 'warn');
  if (json) {
    writeJson(io, 'doctor', errors.length === 0, {
      root,
      findings,
      summary: { ok: findings.length - errors.length - warnings.length, warn: warnings.length, error: errors.length },
    });
  }
  if (errors.length > 0) {
    throw new CliError('checks-failed', `${errors.length} ${errors.length === 1 ? 'problem' : 'problems'} to fix (see "fix:" above).`, { exitCode: 1, reported: json });
  }
  ui.outro(warnings.length === 0 ? 'All good.' : `No problems; ${warnings.length} ${warnings.length === 1 ? 'warning' : 'warnings'}.`);
}

/** The `doctor` command of `framework-auth`. */
export function createDoctorCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return new Command('doctor')
    .description('check the project: secret, provider env vars, issuers, mount path, trust proxy, ESM settings, Node')
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--offline', 'do not request the issuers\' discovery documents, nor ask the database')
    .option('--json', 'print the findings as one JSON document on stdout (messages go to stderr)')
    .addHelpText('after', examples)
    .action((flags: DoctorFlags) => run(() => runDoctor(flags, io)));
}
