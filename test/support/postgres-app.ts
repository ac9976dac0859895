/**
 * One app process for the "several app instances share one database" test: Express 5 with the runtime, our
 * PostgreSQL adapter (DATABASE_URL) and an OIDC provider (TEST_ISSUER, TEST_CLIENT_ID, TEST_CLIENT_SECRET).
 * It prints its URL on stdout once listening, and exits when stdin closes.
 */
import express from 'express';
import { FrameworkAuth, getSession } from '../../templates/runtime/index.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';

const config: FrameworkAuthConfig = {
  adapter: PostgresAdapter(),
  trustHost: true,
  providers: [OIDC({ issuer: process.env['TEST_ISSUER'], clientId: process.env['TEST_CLIENT_ID'], clientSecret: process.env['TEST_CLIENT_SECRET'] })],
  logger: { error: (error) => console.error(`[app] ${error.message}`), warn: () => {}, debug: () => {} },
};
const app = express();
app.use('/auth/*splat', FrameworkAuth(config));
app.get('/me', async (req, res) => {
  res.json({ session: await getSession(req, config), pid: process.pid });
});
const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
