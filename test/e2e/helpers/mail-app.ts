/**
 * A compiled scaffold that sends mail, as the password and two-factor e2e tests start it: created with `flags`,
 * linked to the shared dependencies, compiled, given a real SMTP server on loopback (and PostgreSQL for that
 * adapter), migrated, and started `processes` times on one database; `edit` changes the project's files (as its user
 * would) before it is compiled. Also what its database stores, as text, and
 * the two requests those tests make all the time: a form POST with the app's CSRF token, and the session's address.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { type CookieJar, createJar, formBody } from '../../support/cookie-jar.js';
import { findForm } from '../../support/html-form.js';
import { startPostgres } from '../../support/postgres.js';
import type { RunningPostgres } from '../../support/postgres.js';
import { startSmtpServer } from '../../support/smtp-server.js';
import type { ReceivedMessage, RunningSmtpServer } from '../../support/smtp-server.js';
import { compileProject, fillEnv, makeTempDir, runBuiltCli, startApp } from './project.js';
import type { RunningApp } from './project.js';
import { linkProjectDeps, prepareSharedDeps } from './shared-deps.js';

export interface MailApp {
  projectDir: string;
  compile: { exitCode: number; output: string };
  smtp: RunningSmtpServer;
  postgres: RunningPostgres | undefined;
  apps: RunningApp[];
  stop(): Promise<void>;
}

export async function startMailApp(
  adapter: 'sqlite' | 'postgres',
  flags: readonly string[],
  processes: number,
  edit?: (projectDir: string) => Promise<void>,
): Promise<MailApp> {
  await prepareSharedDeps();
  const root = await makeTempDir();
  const scaffold = await runBuiltCli('create', ['app', ...flags, '--adapter', adapter, '--yes', '--no-install'], { cwd: root });
  if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  const projectDir = join(root, 'app');
  await linkProjectDeps(projectDir, adapter === 'sqlite' ? ['better-sqlite3'] : []);
  await edit?.(projectDir);
  const compile = await compileProject(projectDir);
  const smtp = await startSmtpServer();
  const postgres = adapter === 'postgres' ? await startPostgres() : undefined;
  await fillEnv(projectDir, { AUTH_EMAIL_SERVER: smtp.url, AUTH_EMAIL_FROM: 'App <auth@app.example.test>', ...(postgres ? { DATABASE_URL: postgres.url } : {}) });
  const migrate = await runBuiltCli('frameworkAuth', ['migrate'], { cwd: projectDir });
  if (migrate.exitCode !== 0) throw new Error(`migrate failed: ${migrate.stdout}\n${migrate.stderr}`);
  const apps: RunningApp[] = [];
  for (let index = 0; index < processes; index += 1) apps.push(await startApp(projectDir));
  return {
    projectDir,
    compile,
    smtp,
    postgres,
    apps,
    async stop() {
      await Promise.all(apps.map((app) => app.stop()));
      await smtp.close();
      await postgres?.stop();
    },
  };
}

/** Everything the app's database holds, as text: the SQLite files (WAL included) or every PostgreSQL table's rows. */
export async function storedText(app: MailApp): Promise<string> {
  if (!app.postgres) {
    const dataDir = join(app.projectDir, 'data');
    return (await Promise.all((await readdir(dataDir)).map((file) => readFile(join(dataDir, file))))).map((bytes) => bytes.toString('latin1')).join('\n');
  }
  const client = new pg.Client({ connectionString: app.postgres.url });
  await client.connect();
  try {
    const tables = (await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map((row) => row.table_name);
    // One query at a time: pg deprecates queueing queries on one client.
    const rows: string[] = [];
    for (const table of tables) rows.push(JSON.stringify((await client.query(`SELECT * FROM "${table}"`)).rows));
    return rows.join('\n');
  } finally {
    await client.end();
  }
}

/** The app's CSRF token for `jar` (GET /auth/csrf sets its cookie in the jar). */
export async function csrfToken(jar: CookieJar, app: RunningApp): Promise<string> {
  return ((await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

/**
 * POSTs `fields` as a form to `<app>/auth/<path>` with the jar's CSRF token; `json` asks for a JSON answer. `client` is
 * the address the app counts the request against (X-Forwarded-For, trusted from loopback): a test making more users
 * than a client's rate limits allow gives each their own.
 */
export async function postForm(jar: CookieJar, app: RunningApp, path: string, fields: Record<string, string>, json = false, client?: string): Promise<Response> {
  const form = formBody({ csrfToken: await csrfToken(jar, app), ...fields });
  const headers = { ...form.headers, ...(json && { accept: 'application/json' }), ...(client !== undefined && { 'x-forwarded-for': client }) };
  return jar.fetch(`${app.url}/auth/${path}`, { method: 'POST', body: form.body, headers });
}

/** The address of the jar's session, from GET /auth/session (null when signed out). */
export async function sessionEmail(jar: CookieJar, app: RunningApp): Promise<string | null> {
  const session = (await (await jar.fetch(`${app.url}/auth/session`)).json()) as { user?: { email?: string } } | null;
  return session?.user?.email ?? null;
}

/**
 * Opens a confirmation link (its page changes nothing) and sends the page's form with `fields` (the sign-up's
 * `password`, or a `newPassword`): the answer of that POST.
 */
export async function confirmAddress(jar: CookieJar, link: string, fields: Record<string, string>): Promise<Response> {
  const opened = await jar.fetch(link);
  const form = findForm(await opened.text(), link, Object.keys(fields)[0]);
  if (opened.status !== 200 || !form) throw new Error(`the confirmation link answered ${opened.status} without its form`);
  return jar.fetch(form.action, { method: 'POST', ...formBody({ ...form.fields, ...fields }) });
}

/** Signs up with `password` through the link emailed to `email`: a confirmed user. Throws when a step fails. */
export async function signUpByMail(app: RunningApp, smtp: RunningSmtpServer, email: string, password: string, client?: string): Promise<void> {
  const count = smtp.messages.length;
  await postForm(createJar(), app, 'signup/password', { email, password }, false, client);
  // The message to this address: another user's notice, sent after its answer, may arrive in between.
  const link = /https?:\/\/\S+\/auth\/callback\/password\S*/.exec((await messageTo(smtp, count, email, /./)).text ?? '')?.[0];
  if (!link) throw new Error(`no confirmation link was mailed to ${email}`);
  const confirmed = await confirmAddress(createJar(), link, { password });
  if (confirmed.status !== 302) throw new Error(`confirming ${email} answered ${confirmed.status}`);
}

/** A jar signed in with the password (just now: a recent sign-in) as `email`. Throws when it is not. */
export async function signedInWithPassword(app: RunningApp, email: string, password: string, client?: string): Promise<CookieJar> {
  const jar = createJar();
  const response = await postForm(jar, app, 'callback/password', { email, password }, false, client);
  if (response.status !== 302 || (await sessionEmail(jar, app)) !== email) throw new Error(`signing in as ${email} answered ${response.status}`);
  return jar;
}

/**
 * The jar's cookies of `from` sent to `to` as well: one browser using both processes (a browser's cookies ignore the
 * port; the test jar keeps them per port).
 */
export function shareCookies(jar: CookieJar, from: RunningApp, to: RunningApp): CookieJar {
  for (const cookie of jar.cookies(from.url)) jar.set(to.url, `${cookie.name}=${cookie.value}; Path=${cookie.path}${cookie.httpOnly ? '; HttpOnly' : ''}`);
  return jar;
}

/**
 * The next message to `to` whose subject matches, after the first `count` messages (they arrive in any order: each is
 * sent on its own, and the security notifications write to the same addresses).
 */
export async function messageTo(smtp: RunningSmtpServer, count: number, to: string, subject: RegExp): Promise<ReceivedMessage> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = smtp.messages.slice(count).find((message) => message.rcptTo.includes(to) && subject.test(message.headers['subject'] ?? ''));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no message to ${to}; got: ${smtp.messages.slice(count).map((message) => message.rcptTo.join(',')).join('; ')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
