// oidc-provider ships no type declarations and @types/oidc-provider is not a dependency, so this declares the
// small part of its API the test support uses. Extend it as tests need more; delete it if @types/oidc-provider
// is ever added to devDependencies.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type Configuration = Record<string, unknown>;

  export interface AdapterPayload {
    [key: string]: unknown;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Client {
    clientId: string;
    clientAuthMethod: string;
    redirectUris: string[];
  }

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    getOIDCScopeEncountered(): string;
    save(): Promise<string>;
  }

  export interface Session {
    accountId?: string;
    grantIdFor(clientId: string): string | undefined;
  }

  export type AccountClaims = Record<string, unknown> & { sub: string };

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: Record<string, unknown>, rejected: string[]): Promise<AccountClaims> | AccountClaims;
  }

  export interface OIDCContext {
    readonly provider: Provider;
    readonly route: string;
    readonly client?: Client;
    readonly session?: Session;
    readonly result?: { consent?: { grantId?: string } } & Record<string, unknown>;
    readonly params?: Record<string, unknown>;
    readonly requestParamOIDCScopes: Set<string>;
    readonly requestParamClaims: Set<string>;
  }

  export interface KoaContextWithOIDC {
    oidc: OIDCContext;
    method: string;
    url: string;
    path: string;
    status: number;
    type: string;
    body: unknown;
  }

  export interface InteractionResults {
    login?: { accountId: string; [key: string]: unknown };
    consent?: { grantId?: string; [key: string]: unknown };
    [key: string]: unknown;
  }

  export interface ErrorOut {
    error: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    readonly Client: { readonly adapter: Adapter; find(id: string): Promise<Client | undefined> };
    readonly Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    readonly RefreshToken: { find(value: string): Promise<{ grantId: string; destroy(): Promise<void> } | undefined> };
  }
}
