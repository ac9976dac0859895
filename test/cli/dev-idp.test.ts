// framework-auth dev-idp: a local OpenID provider registered for the project's callback URL, in the foreground
// until Ctrl-C (the injected signal here).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { snapshotTree } from '../e2e/helpers/project.js';
import { createJar } from '../support/cookie-jar.js';
import { loginThroughProvider } from '../support/oidc-provider.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { makeTempDir, runInProcess, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

/** Starts dev-idp in this process; resolves with its JSON document once it listens, and a stop (Ctrl-C). */
async function startDevIdp(argv: readonly string[], cwd: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const controller = new AbortController();
  let out = '';
  let err = '';
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const ready = new Promise<Record<string, unknown>>((resolve) => {
    stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      try {
        resolve(parseJsonOutput(out));
      } catch {
        // Not the whole document yet.
      }
    });
  });
  const exited = run('framework-auth', ['dev-idp', '--port', '0', '--json', ...argv], {
    stdin: new PassThrough(), stdout, stderr, env: {}, cwd, interactive: false, signal: controller.signal,
  });
  const document = await Promise.race([ready, exited.then((code) => Promise.reject(new Error(`dev-idp exited with ${code}: ${err}`)))]);
  return { document, stderr: () => err, stop: async () => { controller.abort(); return exited; } };
}

async function scaffold(): Promise<string> {
  const parent = await makeTempDir();
  await runInProcess('create-framework-auth', ['app', '--yes', '--no-install'], { cwd: parent });
  return join(parent, 'app');
}

describe('framework-auth dev-idp', () => {
  it('registers the project\'s callback URL, writes AUTH_OIDC_* with --write-env, and stops on Ctrl-C (130)', async () => {
    const root = await scaffold();
    const envBefore = await readFile(join(root, '.env'), 'utf8');
    const idp = await startDevIdp(['--write-env'], root);
    try {
      const { issuer, clientId, clientSecret, redirectUris } = idp.document as { issuer: string; clientId: string; clientSecret: string; redirectUris: string[] };
      expect(issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(clientId).toBe('framework-auth-dev');
      expect(redirectUris).toEqual(['http://localhost:3000/auth/callback/oidc', 'http://127.0.0.1:3000/auth/callback/oidc']);
      const env = await readFile(join(root, '.env'), 'utf8');
      expect(env).toContain(`AUTH_OIDC_ISSUER=${issuer}\n`);
      expect(env).toContain('AUTH_OIDC_ID=framework-auth-dev\n');
      expect(env).toContain(`AUTH_OIDC_SECRET=${clientSecret}\n`);
      // Every other line is kept.
      expect(env.split('\n').filter((line) => !line.startsWith('AUTH_OIDC_'))).toEqual(envBefore.split('\n').filter((line) => !line.startsWith('AUTH_OIDC_')));
      const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { issuer: string };
      expect(discovery.issuer).toBe(issuer);
      // The test login signs in and comes back to the registered callback.
      const jar = createJar();
      const authorize = new URL(`${issuer}/auth`);
      authorize.search = new URLSearchParams({ client_id: clientId, redirect_uri: redirectUris[0] ?? '', response_type: 'code', scope: 'openid', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString();
      const back = await loginThroughProvider(jar, authorize);
      expect(back).toMatch(/^http:\/\/localhost:3000\/auth\/callback\/oidc\?code=/);
    } finally {
      expect(await idp.stop()).toBe(130);
    }
  });

  it('keeps the client secret of .env across restarts on the same issuer', async () => {
    const root = await scaffold();
    const first = await startDevIdp(['--write-env'], root);
    const { clientSecret } = first.document as { clientSecret: string };
    await first.stop();
    const env = await readFile(join(root, '.env'), 'utf8');
    // Port 0 gives another issuer: the secret is new. Same issuer (same port) reuses it.
    const port = new URL(/AUTH_OIDC_ISSUER=(\S+)/.exec(env)?.[1] ?? '').port;
    const second = await (async () => {
      const stdout = new PassThrough();
      let out = '';
      const controller = new AbortController();
      const ready = new Promise<Record<string, unknown>>((resolve) => stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); try { resolve(JSON.parse(out) as Record<string, unknown>); } catch { /* partial */ } }));
      const exited = run('framework-auth', ['dev-idp', '--port', port, '--json'], { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {}, cwd: root, interactive: false, signal: controller.signal });
      const document = await ready;
      controller.abort();
      await exited;
      return document;
    })();
    expect(second.clientSecret).toBe(clientSecret);
  });

  it('writes nothing without --write-env', async () => {
    const root = await scaffold();
    const before = await snapshotTree(root);
    const idp = await startDevIdp([], root);
    expect((idp.document as { env: { written: string[] } }).env.written).toEqual([]);
    await idp.stop();
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('uses --redirect-uri outside a project', async () => {
    const idp = await startDevIdp(['--redirect-uri', 'http://localhost:8080/api/auth/callback/oidc', '--client-id', 'mine'], await makeTempDir());
    expect(idp.document).toMatchObject({ clientId: 'mine', redirectUris: ['http://localhost:8080/api/auth/callback/oidc'] });
    await idp.stop();
  });

  const refusals = [
    { argv: ['--port', '70000'], words: '--port must be a number from 0 to 65535 (got "70000")' },
    { argv: ['--port', 'abc'], words: '--port must be a number from 0 to 65535' },
    { argv: ['--redirect-uri', 'not a url'], words: '--redirect-uri must be an absolute URL' },
    { argv: ['--client-id', 'a b'], words: '--client-id may only use letters' },
    { argv: [], words: 'No scaffolded project in' },
  ];
  it.each(refusals)('refuses $argv before starting (exit 2)', async ({ argv, words }) => {
    const dir = await makeTempDir();
    const result = await runInProcess('framework-auth', ['dev-idp', ...argv], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(words);
  });

  it('prints help with examples', async () => {
    const result = await runInProcess('framework-auth', ['dev-idp', '--help'], { cwd: await makeTempDir() });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Examples:\n  $ npx framework-auth dev-idp --write-env');
  });
});

describe('the loopback OpenID provider while it starts', () => {
  it('answers the first request that reaches its port with the provider, never a 503 (issue 15)', async () => {
    const { startOidcProvider } = await import('../../src/dev-idp/oidc-provider.js');
    const { freePort } = await import('../support/listen.js');
    const port = await freePort();
    const starting = startOidcProvider({ port });
    // Knock until the port accepts a connection: the first answer is whatever the server gives in the window
    // between listening and the provider existing.
    let first: number | undefined;
    for (let attempt = 0; attempt < 2000 && first === undefined; attempt++) {
      first = await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`).then(
        (response) => response.status,
        () => undefined,
      );
      if (first === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const provider = await starting;
    try {
      expect(first).toBe(200);
    } finally {
      await provider.close();
    }
  });
});
