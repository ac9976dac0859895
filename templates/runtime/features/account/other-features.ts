/**
 * What the account reads of the features an app may not have (passkeys, password, two-factor, API keys). Their
 * adapter methods are declared in their own folders, which a project without them does not copy: the account names
 * here only what it reads of each, and calls a method only when the adapter has it.
 */
import { AdapterError } from '../../errors.js';
import type { Awaitable } from '../../types.js';
import type { Adapter } from '../database/adapter.js';

/** The other features' adapter methods, as much of each as the account uses. */
export interface OtherFeatureMethods {
  listAuthenticatorsByUserId(userId: string): Awaitable<{ credentialID: string; providerAccountId: string; credentialDeviceType: string; credentialBackedUp: boolean; transports?: string | null }[]>;
  deleteAuthenticator(credentialID: string): Awaitable<unknown>;
  getPasswordHash(userId: string): Awaitable<string | null>;
  getTwoFactor(userId: string): Awaitable<{ enabledAt: Date | null } | null>;
  listApiKeys(userId: string): Awaitable<{ name: string; scopes: string[]; createdAt: Date; lastUsedAt: Date | null; expiresAt: Date }[]>;
}

/** Whether the adapter has another feature's method. */
export function hasOther(adapter: Adapter, method: keyof OtherFeatureMethods): boolean {
  return typeof (adapter as Partial<Record<string, unknown>>)[method] === 'function';
}

/**
 * Calls another feature's method; undefined when the adapter lacks it. A failure becomes `AdapterError`, as
 * `callAdapter`'s do.
 */
export async function callOther<Method extends keyof OtherFeatureMethods>(
  adapter: Adapter,
  method: Method,
  ...args: Parameters<OtherFeatureMethods[Method]>
): Promise<Awaited<ReturnType<OtherFeatureMethods[Method]>> | undefined> {
  const implementation = (adapter as Partial<Record<string, (...params: unknown[]) => unknown>>)[method];
  if (typeof implementation !== 'function') return undefined;
  try {
    return (await implementation.apply(adapter, args)) as Awaited<ReturnType<OtherFeatureMethods[Method]>>;
  } catch (error) {
    throw new AdapterError(`adapter.${method}() failed`, { cause: error instanceof Error ? error : undefined });
  }
}
