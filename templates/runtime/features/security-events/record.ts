/**
 * Keeping the security events: each is stored through the adapter, and at most once an hour per app process the
 * events older than `events.retentionDays` are deleted (every process prunes; the statement is the same).
 */
import type { ResolvedConfig, SecurityEvent, SecurityEventSink } from '../../contracts.js';
import type { AdapterUser } from '../../types.js';
import { type Adapter, callAdapter } from '../database/adapter.js';

/** Milliseconds between two prunings by one process. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** The most events a list or an export holds. */
export const MAX_LISTED_EVENTS = 1000;

const lastPruned = new WeakMap<ResolvedConfig, number>();

/** Deletes the events past their retention, unless this process did within the hour. */
async function pruneOld(options: ResolvedConfig, adapter: Adapter, now: number): Promise<void> {
  if (now - (lastPruned.get(options) ?? 0) < PRUNE_INTERVAL_MS) return;
  lastPruned.set(options, now);
  await callAdapter(adapter, 'deleteSecurityEventsBefore', new Date(now - options.securityEvents.retentionDays * 24 * 60 * 60 * 1000));
}

/** The sink that stores each event (the feature checks at startup that the adapter can). */
export const storedEvents: SecurityEventSink = {
  async record(options: ResolvedConfig, event: SecurityEvent): Promise<void> {
    const adapter = options.adapter;
    if (!adapter) return;
    await callAdapter(adapter, 'createSecurityEvent', event);
    await pruneOld(options, adapter, event.at.valueOf());
  },
};

/** A user's kept events, newest first, within the retention (the newest `limit`). */
export async function securityEventsOf(options: ResolvedConfig, userId: AdapterUser['id'], limit: number = MAX_LISTED_EVENTS): Promise<SecurityEvent[]> {
  if (!options.adapter) return [];
  const oldest = Date.now() - options.securityEvents.retentionDays * 24 * 60 * 60 * 1000;
  const events = await callAdapter(options.adapter, 'listSecurityEvents', userId, limit);
  return events.filter((event) => event.at.valueOf() >= oldest);
}
