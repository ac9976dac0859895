/**
 * Where a security event came from, as a notification tells it: the browser summarised from its `User-Agent`
 * ("Firefox on Linux"), the client's address as recorded, and whether a sign-in came from a device the user's earlier
 * sign-ins never used. The `User-Agent` and, behind a proxy that Express trusts, the address are the client's to
 * choose: only fixed names and address-shaped text reach a message.
 */
import type { ResolvedConfig } from '../../contracts.js';
import { networkOf } from '../../http/client-address.js';
import { browserParts } from '../../http/user-agent.js';
import { type SecurityEvent, securityEventsOf } from '../security-events/index.js';

/** An address or network prefix as `events.ipPrecision` records it (`203.0.113.7`, `2001:db8:1::/48`). */
const addressShape = /^[0-9A-Fa-f:.]{2,45}(?:\/\d{1,3})?$/;

/**
 * The client's address as recorded, or words for its absence. Behind `trust proxy`, `X-Forwarded-For` is the
 * client's text: anything not shaped like an address is not shown.
 */
export function addressOf(ip: string | null): string {
  if (ip === null) return 'not recorded';
  return addressShape.test(ip) ? ip : 'an unrecognised address';
}

/**
 * What makes two sign-ins the same device: the browser and system (without versions, so that a browser's update is
 * not a new device), or the whole `User-Agent` when it names neither; and the client's network (IPv4 /24, IPv6 /48,
 * as `events.ipPrecision: 'network'` keeps it, so that both precisions compare alike).
 */
function deviceOf(event: SecurityEvent): string {
  const { browser, system } = browserParts(event.userAgent);
  const agent = browser || system ? `${browser ?? ''}/${system ?? ''}` : `agent:${event.userAgent ?? ''}`;
  const network = event.ip === null ? '' : networkOf(event.ip, { ipv4Octets: 3, ipv6Groups: 3 });
  return `${agent}\n${network}`;
}

/**
 * Whether a sign-in came from a device none of the user's earlier stored sign-ins used. False for the first sign-in
 * (a new account has no device to compare with) and whenever the events are not kept (the adapter cannot list them):
 * a notification says a device is new only when the stored events show it.
 */
export async function isNewDevice(options: ResolvedConfig, event: SecurityEvent): Promise<boolean> {
  if (typeof options.adapter?.listSecurityEvents !== 'function') return false;
  // The recorder stores this very sign-in before the listening features hear it.
  const earlier = (await securityEventsOf(options, event.userId)).filter((stored) => stored.type === 'sign-in' && stored.id !== event.id);
  if (earlier.length === 0) return false;
  const device = deviceOf(event);
  return earlier.every((stored) => deviceOf(stored) !== device);
}
