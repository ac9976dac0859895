/**
 * Events: side effects after something happened. A failing handler is logged, never shown to the user. Security
 * events (SPEC §13) go to the features that keep or tell them (`Feature.securityEvents`) and to the app's
 * `events.onSecurityEvent`; recording one never fails the request that caused it.
 */
import type { Request } from 'express';
import type { EventCallbacks, ResolvedConfig, SecurityEvent, SecurityEventType } from './contracts.js';
import { EventError } from './errors.js';
import { networkOf, requestAddress } from './http/client-address.js';

/** The callbacks of `events` an event name calls. */
type EventName = keyof EventCallbacks;

/** Runs an event handler; its failure is logged, never raised. */
export async function emitEvent<Name extends EventName>(options: ResolvedConfig, name: Name, message: Parameters<EventCallbacks[Name]>[0]): Promise<void> {
  const handler = options.events[name] as ((message: unknown) => unknown) | undefined;
  if (!handler) return;
  try {
    await handler(message);
  } catch (error) {
    options.logger.error(new EventError(`events.${String(name)} failed`, { cause: error instanceof Error ? error : undefined }));
  }
}

/** What a caller says of a security event; the rest (id, time, client) is filled in here. */
export interface SecurityEventInput {
  type: SecurityEventType;
  userId: string;
  method?: string | null | undefined;
  detail?: string | null | undefined;
}

/** The longest `User-Agent` an event keeps. */
const MAX_USER_AGENT = 256;

/** The client's address as `events.ipPrecision` keeps it. */
function eventAddress(req: Request | undefined, options: ResolvedConfig): string | null {
  const precision = options.securityEvents.ipPrecision;
  const address = req && precision !== 'none' ? requestAddress(req) : '';
  if (!address) return null;
  return precision === 'network' ? networkOf(address, { ipv4Octets: 3, ipv6Groups: 3 }) : address;
}

/** The security event of `input` on this request (none for one made outside a request), complete. */
export function securityEventOf(req: Request | undefined, options: ResolvedConfig, input: SecurityEventInput): SecurityEvent {
  const userAgent = req?.headers['user-agent'];
  return {
    id: crypto.randomUUID(),
    userId: input.userId,
    type: input.type,
    at: new Date(),
    method: input.method ?? null,
    ip: eventAddress(req, options),
    userAgent: typeof userAgent === 'string' && userAgent !== '' ? userAgent.slice(0, MAX_USER_AGENT) : null,
    detail: input.detail ?? null,
  };
}

/**
 * Records a security event of a user: the features that keep or tell it (`Feature.securityEvents`), then the app's
 * `events.onSecurityEvent`. Resolves once all have run; each failure is logged, none is raised.
 */
export async function recordSecurityEvent(context: { req?: Request | undefined; options: ResolvedConfig }, input: SecurityEventInput): Promise<void> {
  const { options } = context;
  if (options.securityEventSinks.length === 0 && !options.events.onSecurityEvent) return;
  const event = securityEventOf(context.req, options, input);
  for (const sink of options.securityEventSinks) {
    try {
      await sink.record(options, event);
    } catch (error) {
      options.logger.error(new EventError(`Recording the security event "${event.type}" failed`, { cause: error instanceof Error ? error : undefined }));
    }
  }
  await emitEvent(options, 'onSecurityEvent', event);
}
