/**
 * One app process for the "several app processes count rate limits together" tests: Express 5 with the runtime,
 * a credentials provider (user `ada`, password `correct horse`) and the adapter named by RATE_LIMIT_ADAPTER
 * (`postgres` or `sqlite`) on DATABASE_URL, with JWT sessions. `trust proxy` is on, so a test names its client
 * with X-Forwarded-For. It prints its URL on stdout once listening, and exits when stdin closes.
 */
import express from 'express';
import { FrameworkAuth } from '../../templates/runtime/index.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';

const config: FrameworkAuthConfig = {
  adapter: process.env['RATE_LIMIT_ADAPTER'] === 'sqlite' ? SqliteAdapter() : PostgresAdapter(),
  session: { strategy: 'jwt' },
  trustHost: true,
  providers: [
    Credentials({
      credentials: { username: { label: 'User name' }, password: { label: 'Password', type: 'password' } },
      authorize: (credentials: Partial<Record<'username' | 'password', unknown>>) =>
        credentials.username === 'ada' && credentials.password === 'correct horse' ? { id: 'user-ada', name: 'Ada' } : null,
    }),
  ],
  logger: {
    // Wrong passwords and refusals are what the tests do; anything else (a database error) is shown with its cause.
    error: (error) => {
      if (error.name === 'RateLimited' || error.name === 'CredentialsSignin') return;
      const cause = (error.cause as { err?: Error } | undefined)?.err;
      console.error(`[app] ${error.message}${cause ? `: ${cause.message}` : ''}`);
    },
    warn: () => {},
    debug: () => {},
  },
};
const app = express();
app.set('trust proxy', true);
app.use('/auth/*splat', FrameworkAuth(config));
app.get('/pid', (_req, res) => {
  res.json({ pid: process.pid });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
