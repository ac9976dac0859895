// Issue 14's acceptance path on a real scaffold: a project with email sign-in (memory adapter), compiled and started
// as users start it, against a real SMTP server on loopback. Started with only AUTH_TRUST_HOST=true it refuses to
// start, naming AUTH_URL; started with AUTH_URL, a sign-in request carrying an attacker's Host and X-Forwarded-Host
// still emails a link on AUTH_URL, and the honest user's link signs them in.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody } from '../support/cookie-jar.js';
import { startSmtpServer } from '../support/smtp-server.js';
import type { RunningSmtpServer } from '../support/smtp-server.js';
import { compileProject, fillEnv, makeTempDir, removeTempDirs, runBuiltCli, startApp } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';
import { linkProjectDeps, prepareSharedDeps } from './helpers/shared-deps.js';

const attacker = 'attacker.example';
let projectDir: string;
let smtp: RunningSmtpServer;
let compile: { exitCode: number; output: string };
const running: RunningApp[] = [];

beforeAll(async () => {
  await prepareSharedDeps();
  const root = await makeTempDir();
  projectDir = join(root, 'app');
  const scaffold = await runBuiltCli('create', ['app', '--providers', 'email', '--adapter', 'memory', '--yes', '--no-install'], { cwd: root });
  if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  await linkProjectDeps(projectDir, []);
  compile = await compileProject(projectDir);
  smtp = await startSmtpServer();
  await fillEnv(projectDir, { AUTH_EMAIL_SERVER: smtp.url, AUTH_EMAIL_FROM: 'App <auth@app.example.test>' });
}, 600_000);

afterAll(async () => {
  await Promise.all(running.map((app) => app.stop()));
  await smtp?.close();
  await removeTempDirs();
});

/** The sign-in link of a message's plain-text part. */
function linkIn(text: string | undefined): URL {
  const match = /https?:\/\/\S+\/callback\/email\?\S+/.exec(text ?? '');
  if (!match) throw new Error(`no sign-in link in:\n${text}`);
  return new URL(match[0]);
}

describe('a scaffolded app with email sign-in', () => {
  it('compiles, and its .env, .env.example and server set the origin and trust only a loopback proxy', async () => {
    expect(compile.output).toBe('');
    expect(compile.exitCode).toBe(0);
    expect(await readFile(join(projectDir, '.env'), 'utf8')).toMatch(/^AUTH_URL=http:\/\/localhost:3000$/m);
    expect(await readFile(join(projectDir, '.env.example'), 'utf8')).toMatch(/^AUTH_URL=http:\/\/localhost:3000$/m);
    const server = await readFile(join(projectDir, 'src/server.ts'), 'utf8');
    expect(server).toContain("app.set('trust proxy', trustProxy(process.env.TRUST_PROXY));");
    expect(server).not.toContain("'trust proxy', true");
  });

  it('refuses to start with only AUTH_TRUST_HOST=true (no AUTH_URL), naming AUTH_URL, and sends nothing', async () => {
    const failed = await startApp(projectDir, 'dist/server.js', { AUTH_TRUST_HOST: 'true', AUTH_URL: '' }).then(
      (app) => {
        running.push(app);
        return undefined;
      },
      (error: Error) => error,
    );
    expect(failed?.message).toContain('exited');
    expect(failed?.message).toContain('AUTH_URL');
    expect(smtp.messages).toHaveLength(0);
  });

  it('with AUTH_URL, emails a link on AUTH_URL to a request naming another Host and X-Forwarded-Host', async () => {
    const app = await startApp(projectDir);
    running.push(app);
    const jar = createJar();
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const before = smtp.messages.length;
    const response = await jar.fetch(`${app.url}/auth/signin/email`, {
      method: 'POST',
      headers: { host: attacker, 'x-forwarded-host': attacker },
      body: formBody({ csrfToken, email: 'victim@example.test' }).body,
    });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location') ?? '').origin).toBe(app.url);
    const message = await smtp.waitForMessage(before);
    expect(message.rcptTo).toEqual(['victim@example.test']);
    expect(linkIn(message.text).origin).toBe(app.url);
    expect(message.raw).not.toContain(attacker);
  });

  it('with AUTH_URL, still signs an honest user in through the emailed link', async () => {
    const app = running.at(-1)!;
    const jar = createJar();
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const before = smtp.messages.length;
    await jar.fetch(`${app.url}/auth/signin/email`, { method: 'POST', ...formBody({ csrfToken, email: 'ada@example.test', callbackUrl: `${app.url}/me` }) });
    const link = linkIn((await smtp.waitForMessage(before)).text);
    const used = await jar.fetch(link);
    expect(used.status).toBe(302);
    expect(used.headers.get('location')).toBe(`${app.url}/me`);
    const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { email: 'ada@example.test' } });
  });
});
