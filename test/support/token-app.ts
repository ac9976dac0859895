/**
 * One app process for the "two app processes refresh one account's token at once" tests (issue 17): Express 5 with
 * the runtime, database sessions in the adapter named by TOKEN_APP_ADAPTER (`postgres` or `sqlite`) on
 * DATABASE_URL, and one OIDC provider (OIDC_ISSUER, OIDC_CLIENT_ID, secret `<id>-secret`) asking for offline access.
 * `GET /token` answers `getAccessToken(req, 'oidc')` (or the error's type and reason).
 *
 * With TOKEN_APP_LEASE=off the adapter is given without `hitRateLimit`/`resetRateLimit`, as an adapter that cannot
 * take the database lease: only the compare-and-set write then keeps the stored tokens consistent.
 *
 * With TOKEN_APP_BARRIER (a URL of the test), each refresh token request first waits for a GET of it to answer:
 * the test holds those answers until both processes have asked (or a second has passed), so that two processes
 * that both decided to refresh send their requests to the provider together.
 *
 * It prints its URL on stdout once listening, then one JSON line per refresh token request it sends:
 * `{"refresh":{"status":200,"sent":"<sha256 of the refresh token sent>","access":"<sha256>","refresh":"<sha256>"}}`
 * (hashes, so that no token is printed), and exits when stdin closes.
 */
import { createHash } from 'node:crypto';
import express from 'express';
import { FrameworkAuth, RefreshTokenError, customFetch, getAccessToken } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { database as databaseFeature } from '../../templates/runtime/features/database/index.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import OIDC from '../../templates/runtime/providers/oidc.js';

const hash = (value: unknown): string | undefined => (typeof value === 'string' ? createHash('sha256').update(value).digest('hex') : undefined);

/** Reports each refresh token request and its answer on stdout. */
async function reportingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const body = init?.body;
  const params = body instanceof URLSearchParams ? body : new URLSearchParams(typeof body === 'string' ? body : '');
  const barrier = process.env['TOKEN_APP_BARRIER'];
  if (barrier && params.get('grant_type') === 'refresh_token') await (await fetch(barrier)).arrayBuffer();
  const response = await fetch(input, init);
  if (params.get('grant_type') === 'refresh_token') {
    const answer = (await response.clone().json().catch(() => ({}))) as Record<string, unknown>;
    const line = { status: response.status, sent: hash(params.get('refresh_token')), access: hash(answer['access_token']), refresh: hash(answer['refresh_token']), error: answer['error'] };
    process.stdout.write(`${JSON.stringify({ refresh: line })}\n`);
  }
  return response;
}

const storage: Adapter = process.env['TOKEN_APP_ADAPTER'] === 'sqlite' ? SqliteAdapter() : PostgresAdapter();
const adapter: Adapter =
  process.env['TOKEN_APP_LEASE'] === 'off' ? Object.fromEntries(Object.entries(storage).filter(([name]) => name !== 'hitRateLimit' && name !== 'resetRateLimit')) : storage;
const clientId = process.env['OIDC_CLIENT_ID']!;

const config: FrameworkAuthConfig = {
  adapter,
  // Without the lease the adapter is a plain object of methods (as an Auth.js adapter): it names its feature here.
  features: [databaseFeature],
  trustHost: true,
  providers: [
    OIDC({
      issuer: process.env['OIDC_ISSUER']!,
      clientId,
      clientSecret: `${clientId}-secret`,
      authorization: { params: { scope: 'openid profile email offline_access', prompt: 'consent' } },
      [customFetch]: reportingFetch,
    }),
  ],
  logger: {
    // Refusals are what the tests provoke; anything else is shown with its cause.
    error: (error) => {
      if (error instanceof RefreshTokenError) return;
      const cause = (error.cause as { err?: Error } | undefined)?.err;
      console.error(`[app] ${error.message}${cause ? `: ${cause.message}` : ''}`);
    },
    warn: () => {},
    debug: () => {},
  },
};

const app = express();
app.use('/auth/*splat', FrameworkAuth(config));
app.get('/token', async (req, res) => {
  try {
    res.json({ accessToken: await getAccessToken(req, 'oidc', config) });
  } catch (error) {
    const failure = error as RefreshTokenError;
    res.status(401).json({ type: failure.type, reason: failure.reason });
  }
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
