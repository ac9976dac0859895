/**
 * The startup check of the providers that store their sign-ins through the adapter (email links, passkeys): copied
 * with those providers only.
 */
import type { Adapter, AdapterMethod } from './adapter.js';
import { MissingAdapter, MissingAdapterMethods } from '../../errors.js';

/** The adapter methods database sessions call. */
const sessionMethods = ['createSession', 'getSessionAndUser', 'updateSession', 'deleteSession'] as const;

/**
 * Checks at startup that a provider which stores its sign-ins (email links, passkeys) has an adapter with the
 * methods it calls (and those of database sessions), so that a missing method is not discovered by the first user.
 */
export function assertAdapterFor(
  provider: { id: string; type: string },
  adapter: Adapter | undefined,
  strategy: 'jwt' | 'database',
  needs: { what: string; methods: readonly AdapterMethod[] },
): void {
  if (!adapter) {
    throw new MissingAdapter(
      `Provider "${provider.id}" (${provider.type}) needs an adapter: ${needs.what} in a database. Set \`adapter\` in the config (MemoryAdapter, SqliteAdapter, PostgresAdapter or any Auth.js adapter).`,
    );
  }
  const needed = [...needs.methods, ...(strategy === 'database' ? sessionMethods : [])];
  const missing = needed.filter((method) => typeof adapter[method] !== 'function');
  if (missing.length > 0) {
    throw new MissingAdapterMethods(`Provider "${provider.id}" (${provider.type}) needs these adapter methods, which the adapter lacks: ${missing.join(', ')}`);
  }
}
