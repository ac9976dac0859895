/** The client's browser as it names itself, for the session list (features/database/) and the security events. */
import type { Request } from 'express';

/** Longest `User-Agent` kept: the header is the client's to choose, the column is ours to bound. */
const MAX_USER_AGENT_LENGTH = 512;

/** The request's `User-Agent` without control characters (no forged log lines), bounded; null when there is none. */
export function userAgentOf(req: Request): string | null {
  const header = req.headers['user-agent'];
  if (typeof header !== 'string') return null;
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const cleaned = header.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, MAX_USER_AGENT_LENGTH);
  return cleaned || null;
}
