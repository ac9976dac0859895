// The copied runtime holds only what the chosen providers and adapter need (issue 15): the files the generated auth
// module reaches by its imports. OAuth 1.0a comes only with microblog, WebAuthn only with passkeys, email sign-in
// only with email, and each adapter's files only with that adapter.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFeature } from '../../src/catalog/features.js';
import { packageTemplateDirs } from '../../src/generator/paths.js';
import { readRuntimeFiles, reachableRuntimeFiles, relativeImports } from '../../src/generator/plan/runtime-files.js';
import { readTemplates } from '../../src/generator/release.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const templates = readTemplates(packageTemplateDirs);

/**
 * Lines the default scaffold's src/auth/ may hold (issue 24's target, issue 35's). It holds the OAuth/OIDC core with
 * its documentation, JWT sessions and getAccessToken; every feature it does not use stays out: the database feature
 * (adapter interface, account linking, database sessions, tokens in the account row, session management), rate
 * limits, and the email, passkey and credentials flows with their routes and error types. 5,980 before issue 24;
 * 5,368 after it, 5,398 before issue 34, 5,473 after it (the second factor after every first factor, recent
 * authentication, `auth_time`, OAuth providers' `twoFactor`). Issue 35 moved out what only features use: the "check
 * your email" page (to the email feature), the `User-Agent` of a session row and the withdrawn-account test (to the
 * database feature), a sign-in form's `callbackUrl` (http/requested-callback-url.ts, which only the flows import),
 * `session.reauthMaxAge`, the second-factor hook's types and the adapter's `storeFeatures` (to the database
 * feature), OAuth providers' `twoFactor` option (to the two-factor feature), `AdapterAuthenticator` (to the passkey
 * feature), the features' warning hints, and dead aliases (FrameworkRequest, AccountInput, clientSafeErrorTypes):
 * 5,399, with the features' contract (storage, rules, warnings) added and the pieces features and the core both call
 * in files of their own (oauth/start-sign-in.ts, http/safe-equal.ts). Issue 37's bearer hook for API keys made it
 * 5,456; folding logic written twice (the session key found by `kid`, the `nbf`/`exp` checks, JSON answers, a
 * request's cookie options, a chunked cookie's names) and moving the adapter's row types (`AdapterAccount`,
 * `VerificationToken`, the session list's fields of `AdapterSession`) to the database feature: 5,383. Issue 38's
 * security-event hook made it 5,441; folding what was written twice (requestOrigin's settings and answer, the HTML
 * answer, a request's path and query, try/catch around `new URL`), moving the features' form styles to
 * pages/form-styles.ts, and saying each comment once: 5,317. Issue 39's faster session reads (the remembered-token
 * admission, the protected-header cache, the same-turn read, the single-cookie lookup, one-query database reads, the
 * token request's timer) made it 5,529; folding what was written twice (the JWT session's cookie into startSession,
 * the OAuth callback's check cookies and ID token checks, a refreshed token's write, a route's 404 and 405 checks),
 * removing dead code (the resolved config's unread `debug` and `redirectProxyUrl`, a repeated
 * `CredentialsSignin.kind`) and saying each comment once: 5,392. Issue 46's session clock (one answer to when a
 * session authenticated, session/session-clock.ts) and review 5's A6 (`nosniff` on every answer of the runtime,
 * written by one function in context.ts; `form-action` from the providers' origins, computed in config.ts) made it
 * 5,443; folding what was written twice (the guards' session read and its failure into readSessionThen, a provider
 * endpoint's URL and request into endpointOf, a cookie value's unquoting and decoding) and saying each comment once:
 * 5,347 (5,348 counted afresh). Issue 47's hooks as lists (`Feature.session`, `beforeSignIn`, `afterSignIn`; the
 * bearer, security-event, signed-in-page and second-factor slots over every feature) and `SafeHtml` without a
 * parameter property (erasableSyntaxOnly): 5,395. Issue 48's organizations: routes' `subpaths` with `*` segments
 * (router.ts), the rest declared by the features that use it (the API-key organizations by the database feature's
 * adapter.ts, an event's organization by the security events): 5,398. Issue 49's administration: a hook before every
 * route (`Feature.beforeRoute`), a banner a feature puts on the pages (`RequestContext.banner`) and one CSRF token per
 * request however often it is asked, the rest declared by the features that use it: 5,405; a guard's refusal
 * answered as a page or JSON on every route (not a redirect on the sign-in, callback and reauth routes): 5,408.
 * Issue 50's counted reads: a session's `expires` written by session/iso-date.ts rather than V8's `toISOString` (some
 * 7,000 instructions a request), the guards taking an API key's answer at once where SQLite gives it
 * (`SqlDatabase.first`, the adapters' `isPromiseLike` shared by the session read), a cookie value of a token's
 * characters written without `encodeURIComponent`: 5,432. A remembered token found by a fingerprint of its tag (not
 * by hashing all of its text) with its flat claims copied rather than parsed, and `expires` written from the day
 * number by integer arithmetic: 5,463. The headers of our shape a list compared by text, derived keys found by the
 * config's own strings: 5,464. A `__proto__` claim kept out of the copied claims: 5,465. A token never seen before
 * opened without waiting once its key is derived (`decodeAtOnce`: the derived key kept beside its promise, the
 * opening of our shape synchronous), and `remember` copying the claims just decrypted rather than parsing them again:
 * 5,491. One AES-256-CBC decipher per key fed the IV as a block before the ciphertext (`decryptCbc`, with the PKCS #7
 * check OpenSSL's final call made) instead of a decipher per token: 5,519.
 */
const defaultScaffoldLineBudget = 5519;

function sourceFiles(directory: string, prefix = ''): string[] {
  return readdirSync(join(directory, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return sourceFiles(directory, path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function pathsOf(providers: Parameters<typeof readRuntimeFiles>[0], adapter: Parameters<typeof readRuntimeFiles>[1]): string[] {
  return readRuntimeFiles(providers, adapter, templates).map((file) => file.path);
}

describe('the default scaffold (create-framework-auth app --yes --no-install)', () => {
  let authDir: string;
  beforeAll(async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install'], { cwd: parent });
    if (result.exitCode !== 0) throw new Error(result.stderr);
    authDir = join(parent, 'app', 'src', 'auth');
  });

  it(`holds at most ${defaultScaffoldLineBudget} lines in src/auth/`, () => {
    const lines = sourceFiles(authDir).reduce((total, path) => total + readFileSync(join(authDir, path), 'utf8').split('\n').length - 1, 0);
    expect(lines).toBeLessThanOrEqual(defaultScaffoldLineBudget);
  });

  it('holds only files reachable from src/auth/index.ts and config.ts', () => {
    const read = (path: string): string | undefined => {
      try {
        return readFileSync(join(authDir, path), 'utf8');
      } catch {
        return undefined;
      }
    };
    expect(reachableRuntimeFiles(['index.ts', 'config.ts'], read)).toEqual(sourceFiles(authDir).sort());
  });

  it('copies no OAuth 1.0a, WebAuthn, email sign-in, credentials, rate-limit or adapter code', () => {
    const copied = sourceFiles(authDir);
    for (const path of ['core/oauth1/flow.ts', 'core/features/passkey/webauthn.ts', 'core/features/passkey/passkey-script.ts', 'core/features/email-sign-in/email-sign-in.ts', 'core/email-address.ts', 'core/features/credentials/index.ts', 'core/adapters/sql-rows.ts', 'core/features/rate-limit/rate-limit.ts']) {
      expect(copied, path).not.toContain(path);
    }
  });
});

/**
 * Exported names (functions, constants, classes, interfaces, types, enums; types count) of a scaffold's src/
 * files that no other file of the scaffold names: an export is for the project's other files, or for the user's
 * own code through a module they import (core/index.ts, a feature's index.ts, src/auth/index.ts). Tests are not
 * users: a project has none.
 */
function exportsNoOtherFileNames(srcDir: string): string[] {
  const files = sourceFiles(srcDir).map((path) => ({ path, text: readFileSync(join(srcDir, path), 'utf8') }));
  return files.flatMap((file) =>
    [...file.text.matchAll(/^export (?:declare )?(?:async )?(?:function|const|let|class|interface|type|enum) ([A-Za-z0-9_$]+)/gm)]
      .map((match) => match[1]!)
      .filter((name) => !files.some((other) => other.path !== file.path && new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(other.text)))
      .map((name) => `${file.path}: ${name}`),
  );
}

/**
 * Exports that the CLI calls in the user's project, not the project itself: `framework-auth migrate`
 * (src/cli/migrate.ts) imports the adapter's `migrate` and the core's `featuresOf`.
 */
const calledByTheCli = new Set(['migrate', 'featuresOf']);

/**
 * Public API of a module users import that no other file of the scaffold names yet (issue 35 leaves them for the
 * generated src/auth/index.ts to re-export): the SQLite adapter's options (`SqliteAdapter(options)`) and the session
 * id helper of session-management.ts (docs/runtime-contract.md).
 */
const publicButUnnamed = new Set(['SqliteAdapterOptions', 'sessionIdOf']);

describe('every export of a scaffold is used by another of its files (issue 35)', () => {
  it.each([
    ['the default scaffold', []],
    ['--providers oidc --adapter sqlite', ['--providers', 'oidc', '--adapter', 'sqlite']],
  ])('%s exports nothing its other files leave unnamed (types included; tests do not count)', async (_title, flags) => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...flags], { cwd: parent });
    if (result.exitCode !== 0) throw new Error(result.stderr);
    const unused = exportsNoOtherFileNames(join(parent, 'app', 'src')).filter((entry) => {
      const name = entry.slice(entry.lastIndexOf(' ') + 1);
      return !calledByTheCli.has(name) && !publicButUnnamed.has(name);
    });
    expect(unused).toEqual([]);
  });
});

describe('readRuntimeFiles', () => {
  it('copies the database feature (linking, database sessions, session management) only with an adapter', () => {
    for (const path of ['features/database/index.ts', 'features/database/sign-in.ts', 'features/database/session.ts', 'features/database/access-token.ts', 'features/database/session-management.ts', 'features/database/sessions-route.ts', 'features/database/sessions-page.ts']) {
      expect(pathsOf(['oidc', 'credentials'], 'none'), path).not.toContain(path);
      for (const adapter of ['memory', 'sqlite', 'postgres'] as const) expect(pathsOf(['oidc'], adapter), `${path} with ${adapter}`).toContain(path);
    }
  });

  it('copies the OAuth 1.0a flow only with microblog', () => {
    expect(pathsOf(['oidc'], 'none')).not.toContain('oauth1/flow.ts');
    expect(pathsOf(['oidc', 'microblog'], 'none')).toEqual(expect.arrayContaining(['providers/microblog.ts', 'oauth1/flow.ts', 'oauth1/signature.ts']));
  });

  it('copies WebAuthn and the passkey page script only with passkey', () => {
    expect(pathsOf(['oidc', 'email'], 'sqlite')).not.toContain('features/passkey/webauthn.ts');
    expect(pathsOf(['passkey'], 'sqlite')).toEqual(expect.arrayContaining(['providers/passkey.ts', 'features/passkey/webauthn.ts', 'features/passkey/passkey-script.ts']));
  });

  it('copies email sign-in only with email', () => {
    expect(pathsOf(['oidc', 'passkey'], 'sqlite')).not.toContain('features/email-sign-in/email-sign-in.ts');
    expect(pathsOf(['email'], 'sqlite')).toEqual(expect.arrayContaining(['providers/email.ts', 'features/email-sign-in/email-sign-in.ts', 'features/email/verify-request-route.ts', 'email-address.ts']));
  });

  it('copies the shared SQL row mapping with either SQL adapter, and no other adapter', () => {
    expect(pathsOf(['oidc'], 'sqlite').filter((path) => path.startsWith('adapters/'))).toEqual(['adapters/sql-rows.ts', 'adapters/sql-tables.ts', 'adapters/sqlite.ts']);
    expect(pathsOf(['oidc'], 'postgres').filter((path) => path.startsWith('adapters/'))).toEqual(['adapters/postgres.ts', 'adapters/sql-rows.ts', 'adapters/sql-tables.ts']);
    expect(pathsOf(['oidc'], 'memory').filter((path) => path.startsWith('adapters/'))).toEqual(['adapters/memory.ts']);
  });

  it('copies two-factor\'s folder with administration, which brings it, and neither without', () => {
    const paths = (features: Parameters<typeof readRuntimeFiles>[3]): string[] => readRuntimeFiles(['oidc'], 'sqlite', templates, features).map((file) => file.path);
    const without = paths([]);
    for (const path of ['features/admin/index.ts', 'features/two-factor/index.ts']) expect(without, path).not.toContain(path);
    expect(paths([getFeature('admin')])).toEqual(expect.arrayContaining(['features/admin/index.ts', 'features/admin/storage.ts', 'features/two-factor/index.ts', 'features/two-factor/totp.ts']));
  });

  it('copies every file that a copied file imports', () => {
    const files = readRuntimeFiles(['oidc', 'credentials', 'email', 'passkey', 'microblog', 'github'], 'postgres', templates);
    const copied = new Set(files.map((file) => file.path));
    const missing = files.flatMap((file) =>
      relativeImports(file.content)
        .map((specifier) => posix.join(posix.dirname(file.path), specifier).replace(/\.js$/, '.ts'))
        .filter((path) => !copied.has(path)),
    );
    expect(missing).toEqual([]);
  });
});

describe('add-provider and remove-provider keep the copied runtime to what the providers need', () => {
  it('copies the email flow with the email provider and removes it with the provider', async () => {
    const parent = await makeTempDir();
    const created = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--adapter', 'sqlite'], { cwd: parent });
    expect(created.exitCode, created.stderr).toBe(0);
    const app = join(parent, 'app');
    const core = join(app, 'src', 'auth', 'core');
    expect(sourceFiles(core)).not.toContain('features/email-sign-in/email-sign-in.ts');

    const added = await runInProcess('framework-auth', ['add-provider', 'email', '--no-install'], { cwd: app });
    expect(added.exitCode, added.stderr).toBe(0);
    expect(sourceFiles(core)).toEqual(expect.arrayContaining(['providers/email.ts', 'features/email-sign-in/email-sign-in.ts', 'features/email/verify-request-route.ts', 'email-address.ts']));

    const removed = await runInProcess('framework-auth', ['remove-provider', 'email'], { cwd: app });
    expect(removed.exitCode, removed.stderr).toBe(0);
    const left = sourceFiles(core);
    for (const path of ['providers/email.ts', 'features/email-sign-in/email-sign-in.ts', 'features/email/verify-request-route.ts', 'email-address.ts']) expect(left, path).not.toContain(path);
  });
});
