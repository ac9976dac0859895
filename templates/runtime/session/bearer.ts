/**
 * Bearer credentials (RFC 6750) beside the session cookie. With a feature that reads them (`Feature.bearer`: API keys),
 * a request that carries `Authorization: Bearer …` is judged by that credential alone, once per request (`getSession`,
 * `sessionLocals` and the guards share the answer), gets no cookie, and is refused with `WWW-Authenticate`: 401
 * `invalid_token`, 403 `insufficient_scope`, 429; never a redirect. Without such a feature the header is ignored.
 */
import type { Request, Response } from 'express';
import type { BearerResult, ResolvedConfig } from '../contracts.js';
import { noStore } from '../context.js';
import type { Session } from '../types.js';

/** A bearer request's refusal, as answered (`refuseBearer`). */
export type BearerRefusal = Extract<BearerResult, { refused: string }>['refused'] | 'insufficient_scope';

/**
 * The credential of `Authorization: Bearer <credential>` (`''` when blank, the rest of the header otherwise, however
 * malformed: the feature refuses it); undefined without the header or with another scheme.
 */
export function bearerCredential(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^\s*bearer(?:\s+|$)(.*)$/is.exec(header);
  return match ? match[1]!.trim() : undefined;
}

const proven = new WeakMap<Request, Promise<BearerResult>>();

/** What the request's bearer credential proves, asked once per request; undefined when it carries none or nothing reads them. */
export function bearerResultOf(req: Request, options: ResolvedConfig): Promise<BearerResult> | undefined {
  if (!options.bearer) return undefined;
  const credential = bearerCredential(req);
  if (credential === undefined) return undefined;
  let result = proven.get(req);
  if (!result) {
    result = options.bearer.authenticate(req, credential, options).catch((error: unknown): BearerResult => {
      // The database failed, not the key: the client may retry; the key is not called wrong.
      options.logger.error(error instanceof Error ? error : new Error(String(error)));
      return { refused: 'temporarily_unavailable', retryAfter: 5 };
    });
    proven.set(req, result);
  }
  return result;
}

/** The session a bearer result proves, or null. */
export function bearerSession(result: BearerResult): Session | null {
  return 'session' in result ? result.session : null;
}

const refusals: Record<BearerRefusal, { status: number; message: string }> = {
  invalid_token: { status: 401, message: 'The API key is wrong, expired or revoked.' },
  insufficient_scope: { status: 403, message: 'The API key may not do this.' },
  too_many_requests: { status: 429, message: 'Too many requests with wrong API keys. Wait and try again.' },
  temporarily_unavailable: { status: 503, message: 'API keys cannot be checked right now. Try again shortly.' },
};

/**
 * Answers a bearer request that may not go on: JSON `{ error, message }` and, for 401 and 403, the RFC 6750
 * challenge (`scope` names what a 403 lacked). `message` replaces the default text.
 */
export function refuseBearer(res: Response, refusal: BearerRefusal, details: { retryAfter?: number | undefined; scopes?: readonly string[]; message?: string } = {}): void {
  const { status, message } = refusals[refusal];
  res.status(status);
  if (status === 401 || status === 403) {
    const scope = details.scopes?.length ? `, scope="${details.scopes.join(' ')}"` : '';
    res.setHeader('WWW-Authenticate', `Bearer error="${refusal}"${scope}`);
  }
  if (details.retryAfter !== undefined) res.setHeader('Retry-After', String(details.retryAfter));
  res.setHeader('Cache-Control', noStore);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ error: refusal, message: details.message ?? message }));
}

/**
 * Answers a bearer request at a route that keys may not use (what manages the account): the key's own refusal when it
 * proves nothing, else 403 `insufficient_scope`.
 */
export function refuseBearerHere(res: Response, result: BearerResult, message: string): void {
  if ('refused' in result) return refuseBearer(res, result.refused, { retryAfter: result.retryAfter });
  refuseBearer(res, 'insufficient_scope', { message });
}
