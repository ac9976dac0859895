/**
 * A hand-rolled OpenID provider on 127.0.0.1 for the attacks and faults a certified provider will not produce:
 * ID tokens with a wrong audience, an expired one, `alg: none`, a replayed nonce; a token endpoint that hangs,
 * answers HTML, a 500 or broken JSON. It serves discovery, an authorization endpoint that approves at once (and
 * remembers `state`, `nonce` and the PKCE challenge), a token endpoint that checks the code and the PKCE verifier
 * and answers with an ID token signed by a key of the JWKS it serves — unless the test says otherwise — and
 * userinfo. It can also misbehave the ways the OpenID Foundation's RP certification tests do (test/hardening/
 * rp-conformance.test.ts): no `kid`, several keys, a rotated signing key, HS256, a tampered payload, a rewritten
 * discovery document.
 *
 * oidc-provider (test/support/oidc-provider.ts) stays the provider of every well-formed flow.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { CryptoKey, JWK } from 'jose';

/** The authorization request the stand-in approved, as the runtime sent it. */
export interface Authorization {
  code: string;
  clientId: string;
  redirectUri: string;
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  /** The ID token minted when this code was redeemed. */
  idToken?: string;
  redeemed: boolean;
}

/** What the token endpoint answers instead of a good token response. */
export type TokenFault =
  | { kind: 'hang' }
  | { kind: 'raw'; status: number; contentType: string; body: string }
  | { kind: 'destroy' };

export interface StandInClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  nonce?: string;
  [claim: string]: unknown;
}

export interface StandInBehaviour {
  /** Rewrites the claims of the next ID tokens (wrong `aud`, expired `exp`, another `iss`, …). */
  claims?: (claims: StandInClaims, authorization: Authorization) => StandInClaims;
  /**
   * `none`: an unsigned token (`alg: none`, empty signature). `foreign-key`: signed by a key not in the JWKS, with
   * the `kid` of the JWKS key. `tampered`: signed by the JWKS key, then the payload changed. `hs256`: a MAC with the
   * client secret.
   */
  signing?: 'jwks-key' | 'none' | 'foreign-key' | 'tampered' | 'hs256';
  /** The ID token header carries no `kid`. */
  omitKid?: boolean;
  /** Rewrites the discovery document (another `issuer`, another `jwks_uri`, more algorithms). */
  metadata?: (metadata: Record<string, unknown>) => Record<string, unknown>;
  /** Answer with this ID token instead (a replay of an earlier one). */
  idToken?: (authorization: Authorization) => string | undefined;
  /** The token endpoint misbehaves. */
  token?: TokenFault;
  /** Discovery answers this instead of the metadata. */
  discovery?: { status: number; contentType: string; body: string } | { kind: 'hang' };
  /** Userinfo answers this instead of the account's claims. */
  userinfo?: { status: number; contentType: string; body: string };
  /** The account that signs in (default: the stand-in's own). */
  account?: Record<string, unknown>;
}

export interface OidcStandIn {
  issuer: string;
  /** Adds a key to the JWKS that signs nothing (`kind` RSA or EC P-256); `reset()` removes it. */
  addKey(kind?: 'RSA' | 'EC'): Promise<void>;
  /**
   * Key rotation: a new key (new `kid`) replaces the JWKS and signs every ID token from now on; with
   * `publish: false` it signs without ever appearing in the JWKS. `reset()` undoes it.
   */
  rotateSigningKey(options?: { publish?: boolean }): Promise<void>;
  /** The `Authorization` headers userinfo received, oldest first. */
  userinfoAuthorizations: (string | undefined)[];
  /** Every approved authorization, newest last. */
  authorizations: Authorization[];
  /** Requests received, as `METHOD /path`. */
  requests: string[];
  /** Change what the next requests get; `reset()` restores a well-behaved provider. */
  behaviour: StandInBehaviour;
  reset(): void;
  /** Registered client (the one the runtime uses). */
  client: { id: string; secret: string };
  close(): Promise<void>;
}

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** Starts the stand-in. Its one client is `{ id: 'stand-in-client', secret: 'stand-in-secret' }` (client_secret_basic). */
export async function startOidcStandIn(options: { accounts?: Record<string, Record<string, unknown>> } = {}): Promise<OidcStandIn> {
  const newKey = async (alg: 'RS256' | 'ES256'): Promise<{ privateKey: CryptoKey; kid: string; jwk: JWK }> => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `stand-in-${randomBytes(4).toString('hex')}`;
    return { privateKey, kid, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
  };
  const initial = await newKey('RS256');
  const foreign = await generateKeyPair('RS256');
  const keys = { signing: initial, published: [initial.jwk] };
  const userinfoAuthorizations: (string | undefined)[] = [];
  const client = { id: 'stand-in-client', secret: 'stand-in-secret' };
  const account = options.accounts?.['default'] ?? { sub: 'stand-in-sub', name: 'Stan Din', email: 'stan@example.test' };
  const authorizations: Authorization[] = [];
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const state: { behaviour: StandInBehaviour } = { behaviour: {} };
  let issuer = '';

  const metadata = (): Record<string, unknown> => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
  });

  async function mintIdToken(authorization: Authorization): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const who = state.behaviour.account ?? account;
    let claims: StandInClaims = { ...who, iss: issuer, sub: String(who['sub']), aud: authorization.clientId, iat: now, exp: now + 300 };
    if (authorization.nonce !== null) claims.nonce = authorization.nonce;
    if (state.behaviour.claims) claims = state.behaviour.claims(claims, authorization);
    const signing = state.behaviour.signing ?? 'jwks-key';
    if (signing === 'none') return `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}.`;
    const kid = state.behaviour.omitKid ? {} : { kid: keys.signing.kid };
    if (signing === 'hs256') {
      return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', ...kid, typ: 'JWT' }).sign(new TextEncoder().encode(client.secret));
    }
    const key: CryptoKey = signing === 'foreign-key' ? foreign.privateKey : keys.signing.privateKey;
    const alg = keys.signing.jwk.alg as string;
    const signed = await new SignJWT(claims).setProtectedHeader({ alg, ...kid, typ: 'JWT' }).sign(key);
    if (signing !== 'tampered') return signed;
    const [header, , signature] = signed.split('.');
    return `${header}.${base64url(JSON.stringify({ ...claims, sub: 'someone-else' }))}.${signature}`;
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fault = state.behaviour.token;
    if (fault?.kind === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (fault?.kind === 'destroy') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'raw') {
      res.writeHead(fault.status, { 'content-type': fault.contentType });
      res.end(fault.body);
      return;
    }
    const form = await readForm(req);
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
    if (id !== client.id || secret !== client.secret) return json(res, 401, { error: 'invalid_client' });
    const authorization = authorizations.find((candidate) => candidate.code === form.get('code'));
    if (!authorization || form.get('grant_type') !== 'authorization_code') return json(res, 400, { error: 'invalid_grant', error_description: 'unknown code' });
    if (authorization.redeemed) return json(res, 400, { error: 'invalid_grant', error_description: 'code already used' });
    authorization.redeemed = true;
    if (form.get('redirect_uri') !== authorization.redirectUri) return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
    if (authorization.codeChallenge !== null) {
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== authorization.codeChallenge) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      }
    }
    const idToken = state.behaviour.idToken?.(authorization) ?? (await mintIdToken(authorization));
    authorization.idToken ??= idToken;
    json(res, 200, { access_token: `at-${randomBytes(8).toString('hex')}`, token_type: 'Bearer', expires_in: 300, id_token: idToken, scope: 'openid profile email' });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    requests.push(`${req.method} ${url.pathname}`);
    const handle = async (): Promise<void> => {
      switch (url.pathname) {
        case '/.well-known/openid-configuration': {
          const discovery = state.behaviour.discovery;
          if (discovery && 'kind' in discovery) {
            hanging.add(res);
            res.on('close', () => hanging.delete(res));
            return;
          }
          if (discovery) {
            res.writeHead(discovery.status, { 'content-type': discovery.contentType });
            res.end(discovery.body);
            return;
          }
          return json(res, 200, state.behaviour.metadata ? state.behaviour.metadata(metadata()) : metadata());
        }
        case '/jwks':
        case '/keys/elsewhere':
          return json(res, 200, { keys: keys.published });
        case '/authorize': {
          const params = url.searchParams;
          const authorization: Authorization = {
            code: randomBytes(16).toString('base64url'),
            clientId: params.get('client_id') ?? '',
            redirectUri: params.get('redirect_uri') ?? '',
            state: params.get('state'),
            nonce: params.get('nonce'),
            codeChallenge: params.get('code_challenge'),
            redeemed: false,
          };
          if (authorization.clientId !== client.id) return json(res, 400, { error: 'invalid_client' });
          authorizations.push(authorization);
          const back = new URL(authorization.redirectUri);
          back.searchParams.set('code', authorization.code);
          if (authorization.state !== null) back.searchParams.set('state', authorization.state);
          back.searchParams.set('iss', issuer);
          res.writeHead(302, { location: back.href });
          res.end();
          return;
        }
        case '/token':
          return token(req, res);
        case '/userinfo': {
          userinfoAuthorizations.push(req.headers.authorization);
          const fault = state.behaviour.userinfo;
          if (fault) {
            res.writeHead(fault.status, { 'content-type': fault.contentType });
            res.end(fault.body);
            return;
          }
          return json(res, 200, state.behaviour.account ?? account);
        }
        default:
          return json(res, 404, { error: 'not_found' });
      }
    };
    handle().catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    authorizations,
    requests,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: StandInBehaviour) {
      state.behaviour = value;
    },
    reset() {
      state.behaviour = {};
      keys.signing = initial;
      keys.published = [initial.jwk];
    },
    async addKey(kind = 'RSA') {
      keys.published = [...keys.published, (await newKey(kind === 'RSA' ? 'RS256' : 'ES256')).jwk];
    },
    async rotateSigningKey({ publish = true } = {}) {
      keys.signing = await newKey('RS256');
      if (publish) keys.published = [keys.signing.jwk];
    },
    userinfoAuthorizations,
    client,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
