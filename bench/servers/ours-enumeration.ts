/**
 * The enumeration group's app (bench/lib/enumeration.ts): our runtime's `Password()` on the SQLite adapter (a temp
 * file, DATABASE_URL) with database sessions and every rate limit at its default, as an app whose database is one
 * network round trip away: each adapter call waits BENCH_DB_DELAY_MS (default 1) before it runs. `trust proxy` is on,
 * so that each request's X-Forwarded-For is its client (the bench sends each request from its own address); the
 * messages are dropped (no SMTP). The argon2id cost is the runtime's default.
 * IPC `addUsers(emails)` creates confirmed users, each with a password nobody knows, through the adapter itself.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import type { Adapter } from '../../templates/runtime/features/database/adapter.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { FrameworkAuth, carriedFeatures } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Password from '../../templates/runtime/providers/password.js';
import { serve } from './child.js';

const url = process.env['DATABASE_URL'];
if (!url) throw new Error('set DATABASE_URL (file:/…/auth.db)');
const delayMs = Number(process.env['BENCH_DB_DELAY_MS'] ?? 1);
if (!Number.isFinite(delayMs) || delayMs < 0) throw new Error(`BENCH_DB_DELAY_MS must be a non-negative number (got "${process.env['BENCH_DB_DELAY_MS']}")`);

/** `adapter` with every method called `ms` later, as over a network; the features it carries stay carried. */
function delayedAdapter(adapter: Adapter, ms: number): Adapter {
  const delayed: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(adapter)) {
    if (typeof method !== 'function') continue;
    delayed[name] = async (...args: unknown[]): Promise<unknown> => {
      await sleep(ms);
      return (method as (...params: unknown[]) => unknown).apply(adapter, args);
    };
  }
  return { ...adapter, ...delayed, [carriedFeatures]: adapter[carriedFeatures] };
}

const adapter = SqliteAdapter({ url });

const authConfig: FrameworkAuthConfig = {
  basePath: '/auth',
  adapter: delayedAdapter(adapter, delayMs),
  session: { strategy: 'database' },
  trustHost: ['127.0.0.1'],
  providers: [Password({ sendMessage: () => {} })],
};

const app = express();
app.set('trust proxy', true);
app.use('/auth/*splat', FrameworkAuth(authConfig));

serve(app, { delayMs }, {
  /** Confirmed users at `emails`, each with the hash of a random password, written without the delay. */
  async addUsers(emails: string[]): Promise<number> {
    for (const email of emails) {
      const user = await adapter.createUser!({ id: randomUUID(), email, emailVerified: new Date() });
      await adapter.setPasswordHash!(user.id, await hashPassword(randomBytes(24).toString('base64url')));
    }
    return emails.length;
  },
});
