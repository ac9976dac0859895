/**
 * Recording a security event: the time, the client's address (as `events.ipPrecision` keeps it) and the browser are
 * added to what the code where it happened told; the event is stored through the adapter, handed to the features
 * that listen (the notifications) and to the app's `events.onSecurityEvent`. Every failure is logged, none raised.
 * At most once an hour per app process, events older than `events.retentionDays` are deleted.
 */
import { isIP } from 'node:net';
import type { Request } from 'express';
import type { EventOptions, ResolvedConfig, SecurityEventInput, SecurityEventRecorder, SecurityEventType } from '../../contracts.js';
import { EventError } from '../../errors.js';
import { emitEvent } from '../../events.js';
import { networkOf, requestAddress } from '../../http/client-address.js';
import { userAgentOf } from '../../http/user-agent.js';
import type { AdapterUser, Awaitable } from '../../types.js';
import { type Adapter, callAdapter } from '../database/adapter.js';

/** One security event of one user. Never a secret, a token, a code or an address other than the client's. */
export interface SecurityEvent {
  id: string;
  userId: string;
  type: SecurityEventType;
  at: Date;
  /** How: the provider of a sign-in, link or unlink (`github`, `password`), the factor that failed; or null. */
  method: string | null;
  /** The client's address, as `events.ipPrecision` keeps it; null when it keeps none or there was no request. */
  ip: string | null;
  /** The browser's `User-Agent` (without control characters, at most 512 characters), or null. */
  userAgent: string | null;
  /** A name the user gave (a passkey's, an API key's), or how many sessions ended; null otherwise. */
  detail: string | null;
  /** The organization it happened in, when it did in one (handed to `onSecurityEvent`; the organization keeps its own). */
  organizationId?: string;
  /** The admin who did it, when one did (handed to `onSecurityEvent`; administration keeps its own record). */
  actorId?: string;
}

/** How much of the client's address an event keeps: all of it, its network (IPv4 /24, IPv6 /48), or none. */
export type IpPrecision = 'full' | 'network' | 'none';

/** The security events' settings, from the config's `events`. */
export type SecurityEventSettings = Required<EventOptions>;

declare module '../../contracts.js' {
  interface SecurityEventInput {
    /** The organization it happened in (features/organizations/). */
    organizationId?: string | null | undefined;
    /** Who did it when it was not the user: the admin (features/admin/). */
    actorId?: string | null | undefined;
  }
  interface EventCallbacks {
    /** Each security event (features/security-events/), for the app's own log or SIEM. It never holds a secret. */
    onSecurityEvent: (event: SecurityEvent) => Awaitable<void>;
  }
  interface EventOptions {
    /** Days a stored security event is kept, then pruned. @default 90 */
    retentionDays?: number;
    /** How much of the client's address a security event keeps. @default 'full' */
    ipPrecision?: IpPrecision;
  }
  interface Feature {
    /** Hears each security event after it is stored (the notifications); a failure is logged, never raised. */
    onSecurityEvent?(options: ResolvedConfig, event: SecurityEvent): Promise<void>;
  }
}

/** Milliseconds between two prunings by one process. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The most events a list or an export holds. */
export const MAX_LISTED_EVENTS = 1000;

const settingsOf = new WeakMap<ResolvedConfig, SecurityEventSettings>();
const lastPruned = new WeakMap<ResolvedConfig, number>();

/** Checks `events.retentionDays` and `events.ipPrecision` at startup and keeps them with their defaults. */
export function useSecurityEventSettings(options: ResolvedConfig): void {
  const events = options.source.events;
  const retentionDays = events?.retentionDays ?? 90;
  if (!Number.isFinite(retentionDays) || retentionDays <= 0) throw new TypeError(`events.retentionDays must be a positive number of days (got ${String(retentionDays)})`);
  const ipPrecision = events?.ipPrecision ?? 'full';
  if (!['full', 'network', 'none'].includes(ipPrecision)) throw new TypeError(`events.ipPrecision must be 'full', 'network' or 'none' (got ${JSON.stringify(ipPrecision)})`);
  settingsOf.set(options, { retentionDays, ipPrecision });
}

function settings(options: ResolvedConfig): SecurityEventSettings {
  return settingsOf.get(options) ?? { retentionDays: 90, ipPrecision: 'full' };
}

/** The client's address as `events.ipPrecision` keeps it. */
function eventAddress(req: Request | undefined, precision: IpPrecision): string | null {
  const address = req && precision !== 'none' ? requestAddress(req) : '';
  // Behind a trusted proxy the address is what X-Forwarded-For said: kept only when it is one.
  if (!isIP(address)) return null;
  return precision === 'network' ? networkOf(address, { ipv4Octets: 3, ipv6Groups: 3 }) : address;
}

/** The whole event of `input`, on this request (none for one made outside a request). */
export function securityEventOf(req: Request | undefined, options: ResolvedConfig, input: SecurityEventInput): SecurityEvent {
  return {
    id: crypto.randomUUID(),
    userId: input.userId,
    type: input.type,
    at: new Date(),
    method: input.method ?? null,
    ip: eventAddress(req, settings(options).ipPrecision),
    userAgent: req ? userAgentOf(req) : null,
    detail: input.detail ?? null,
    ...(input.organizationId ? { organizationId: input.organizationId } : {}),
    ...(input.actorId ? { actorId: input.actorId } : {}),
  };
}

/** Deletes the events past their retention, unless this process did within the hour. */
async function pruneOld(options: ResolvedConfig, adapter: Adapter, now: number): Promise<void> {
  if (now - (lastPruned.get(options) ?? 0) < PRUNE_INTERVAL_MS) return;
  lastPruned.set(options, now);
  await callAdapter(adapter, 'deleteSecurityEventsBefore', new Date(now - settings(options).retentionDays * DAY_MS));
}

/** Runs one step of recording; its failure is logged. */
async function logged(options: ResolvedConfig, event: SecurityEvent, what: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    options.logger.error(new EventError(`${what} of the security event "${event.type}" failed`, { cause: error instanceof Error ? error : undefined }));
  }
}

/** The recorder: stores the event (with an adapter), then the listening features, then the app's hook. */
export const securityEventRecorder: SecurityEventRecorder = {
  async record(context, input) {
    const { options } = context;
    const event = securityEventOf(context.req, options, input);
    const adapter = options.adapter;
    if (adapter) {
      await logged(options, event, 'Storing', async () => {
        await callAdapter(adapter, 'createSecurityEvent', event);
        await pruneOld(options, adapter, event.at.valueOf());
      });
    }
    for (const feature of options.features) {
      if (feature.onSecurityEvent) await logged(options, event, `The ${feature.id} feature's handling`, () => feature.onSecurityEvent!(options, event));
    }
    await emitEvent(options, 'onSecurityEvent', event);
  },
};

/** A user's kept events, newest first, within the retention (the newest `limit`). */
export async function securityEventsOf(options: ResolvedConfig, userId: AdapterUser['id'], limit: number = MAX_LISTED_EVENTS): Promise<SecurityEvent[]> {
  if (!options.adapter) return [];
  const oldest = Date.now() - settings(options).retentionDays * DAY_MS;
  const events = await callAdapter(options.adapter, 'listSecurityEvents', userId, limit);
  return events.filter((event) => event.at.valueOf() >= oldest);
}

/** What the features call the security event types they declare (`Feature.securityEventLabels`); others have none. */
export function securityEventLabelsOf(options: ResolvedConfig): Map<string, string> {
  return new Map(options.features.flatMap((feature) => Object.entries(feature.securityEventLabels ?? {})));
}
