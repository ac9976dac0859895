/**
 * API keys as bearer credentials (RFC 6750) beside the session cookie (`Feature.bearer`): a request that carries
 * `Authorization: Bearer …` is judged by its key alone, once per request (`getSession`, `sessionLocals` and the guards
 * share the answer), gets no cookie, and is refused with `WWW-Authenticate`: 401 `invalid_token`, 403
 * `insufficient_scope`, 429; never a redirect.
 */
import type { Request, Response } from 'express';
import type { BearerAuthentication, BearerResult, ResolvedConfig } from '../../contracts.js';
import { sendJsonResponse } from '../../context.js';
import { withFeatureFields } from '../../session/session.js';
import type { Awaitable } from '../../types.js';
import { isPromiseLike } from '../database/adapter.js';
import { API_KEY_PREFIX } from './keys.js';

/** A bearer request's refusal, as answered. */
type BearerRefusal = Extract<BearerResult, { refused: string }>['refused'] | 'insufficient_scope';

/**
 * The credential of `Authorization: Bearer <credential>` (`''` when blank, the rest of the header otherwise, however
 * malformed: it is refused as a wrong key); `''` too for a header that carries a key without the scheme, or with a
 * mangled one (`fak_…`, `Bearer:fak_…`, `Token fak_…`): a client mistake answered 401, not a redirect. Undefined
 * without the header or with another scheme (`Basic …`: the app's own).
 */
export function bearerCredential(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  // The usual form, without a regular expression: what follows the scheme and its whitespace, trimmed.
  if (header.startsWith('Bearer ')) return header.slice(7).trim();
  const match = /^\s*bearer(?:\s+|$)(.*)$/is.exec(header);
  if (match) return match[1]!.trim();
  return /^\s*bearer/i.test(header) || header.includes(API_KEY_PREFIX) ? '' : undefined;
}

/**
 * What `authenticate` says of the credential, with the features' session fields (`Feature.session`, when any feature
 * adds some, as the cookie's readers do). A failure is the database's, not the key's: the client may retry, and the
 * key is not called wrong.
 */
function prove(
  req: Request,
  credential: string,
  options: ResolvedConfig,
  authenticate: (req: Request, credential: string, options: ResolvedConfig) => Awaitable<BearerResult>,
): BearerResult | Promise<BearerResult> {
  let answer: Awaitable<BearerResult>;
  try {
    answer = authenticate(req, credential, options);
  } catch (error) {
    return unavailable(options, error);
  }
  if (options.sessionFeatures.length > 0) {
    answer = Promise.resolve(answer).then(async (proven) => (proven.session ? { ...proven, session: (await withFeatureFields(req, options, proven.session))! } : proven));
  }
  return isPromiseLike(answer) ? Promise.resolve(answer).catch((error: unknown) => unavailable(options, error)) : answer;
}

function unavailable(options: ResolvedConfig, error: unknown): BearerResult {
  options.logger.error(error instanceof Error ? error : new Error(String(error)));
  return { session: null, refused: 'temporarily_unavailable', retryAfter: 5 };
}

const refusals: Record<BearerRefusal, { status: number; message: string }> = {
  invalid_token: { status: 401, message: 'The API key is wrong, expired or revoked.' },
  insufficient_scope: { status: 403, message: 'The API key may not do this.' },
  too_many_requests: { status: 429, message: 'Too many requests with wrong API keys. Wait and try again.' },
  temporarily_unavailable: { status: 503, message: 'API keys cannot be checked right now. Try again shortly.' },
};

/** Answers a refused bearer request: JSON `{ error, message }` and, for 401 and 403, the RFC 6750 challenge. */
function refuseBearer(res: Response, refusal: BearerRefusal, details: { retryAfter?: number | undefined; scopes?: readonly string[] | undefined; message?: string | undefined }): void {
  const { status, message } = refusals[refusal];
  if (status === 401 || status === 403) {
    const scope = details.scopes?.length ? `, scope="${details.scopes.join(' ')}"` : '';
    res.setHeader('WWW-Authenticate', `Bearer error="${refusal}"${scope}`);
  }
  if (details.retryAfter !== undefined) res.setHeader('Retry-After', String(details.retryAfter));
  sendJsonResponse(res, status, { error: refusal, message: details.message ?? message });
}

/** The bearer side of the feature, over `authenticate` (which proves one credential, at once when it can). */
export function bearerAuthentication(authenticate: (req: Request, credential: string, options: ResolvedConfig) => Awaitable<BearerResult>): BearerAuthentication {
  const proven = new WeakMap<Request, BearerResult | Promise<BearerResult>>();
  return {
    resultOf(req, options) {
      const credential = bearerCredential(req);
      if (credential === undefined) return undefined;
      let result = proven.get(req);
      if (result === undefined) {
        result = prove(req, credential, options, authenticate);
        proven.set(req, result);
      }
      return result;
    },
    refuse(res, result, needed) {
      if (!result.session) return refuseBearer(res, result.refused, { retryAfter: result.retryAfter });
      refuseBearer(res, 'insufficient_scope', needed);
    },
  };
}
