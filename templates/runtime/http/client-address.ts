/**
 * The client's address as the app sees it, for the rate limits (features/rate-limit/) and the security events
 * (features/security-events/): `req.ip` (Express applies `trust proxy` to `X-Forwarded-For`), else the socket's address, an
 * IPv4-mapped IPv6 address as its IPv4 address, without an IPv6 zone.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

/** The request's client address, or '' when the socket has none. */
export function requestAddress(req: Request): string {
  const address = (req.ip ?? req.socket?.remoteAddress ?? '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped && isIPv4(mapped[1]!) ? mapped[1]! : address;
}

/**
 * The network an address belongs to: an IPv4 address's first `ipv4Octets` octets, an IPv6 address's first
 * `ipv6Groups` 16-bit groups, written as a prefix (`203.0.113.0/24`, `2001:db8:1::/48`); anything else as it is.
 */
export function networkOf(address: string, prefix: { ipv4Octets: number; ipv6Groups: number }): string {
  if (isIPv4(address)) {
    const octets = address.split('.').slice(0, prefix.ipv4Octets);
    return prefix.ipv4Octets >= 4 ? address : `${[...octets, ...Array<string>(4 - octets.length).fill('0')].join('.')}/${prefix.ipv4Octets * 8}`;
  }
  if (isIPv6(address)) return `${ipv6Groups(address).slice(0, prefix.ipv6Groups).join(':')}::/${prefix.ipv6Groups * 16}`;
  return address;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` expanded, without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string | undefined): string[] => (part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : []);
  const first = groupsOf(head);
  const last = groupsOf(tail);
  const groups = tail === undefined ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return groups.map((group) => parseInt(group, 16).toString(16));
}
