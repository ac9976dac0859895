/**
 * `Admin()`'s options, checked once at startup: who the configured admins are, whether an admin needs a second
 * factor, and how long an impersonation may last.
 */
import type { ResolvedConfig } from '../../contracts.js';
import { normalizeEmailAddress } from '../../email-address.js';
import type { AuthEnv } from '../../types.js';
import type { MailerOptions } from '../email/smtp.js';
import type { AdminMessage } from './mail.js';

declare module '../../contracts.js' {
  interface FeatureWarningCodes {
    'admin-email-printed-to-console': true;
    'admin-without-second-factor': true;
    'admin-without-admins': true;
  }
}

/** The longest an impersonation may last, and its default: one hour. */
export const MAX_IMPERSONATION_SECONDS = 60 * 60;

/** What `Admin()` takes. */
export interface AdminOptions extends MailerOptions<AdminMessage> {
  /**
   * The addresses of the app's admins (a list, or a comma list): a user is an admin when their proven (verified)
   * address is one of them. Other admins may grant more.
   * @default AUTH_ADMINS
   */
  admins?: string | readonly string[];
  /**
   * Whether an admin needs a second factor (two-factor or a passkey) before any admin page or action: an admin
   * account is the one an attacker wants most. `false` logs a warning at startup.
   * @default true
   */
  requireSecondFactor?: boolean;
  /**
   * Impersonation (an admin sees the app as a user): how long it may last, in seconds, at most an hour; `false`
   * turns it off.
   * @default { maxAge: 3600 }
   */
  impersonation?: { maxAge?: number } | false;
}

/** `Admin()`'s options as the feature reads them. */
export interface AdminSettings {
  /** The configured admins' addresses, normalised. */
  admins: ReadonlySet<string>;
  requireSecondFactor: boolean;
  /** Seconds an impersonation lasts; null: impersonation is off. */
  impersonationMaxAge: number | null;
}

/** Checks `Admin()`'s options: an address that is not one, or an impersonation longer than an hour, throws. */
export function resolveAdmin(options: AdminOptions, env: AuthEnv): AdminSettings {
  const listed = options.admins ?? env['AUTH_ADMINS'] ?? '';
  const addresses = (typeof listed === 'string' ? listed.split(',') : listed).map((address) => address.trim()).filter((address) => address !== '');
  const admins = new Set(
    addresses.map((address) => {
      try {
        return normalizeEmailAddress(address);
      } catch {
        throw new TypeError(`Admin({ admins }) (or AUTH_ADMINS) must list email addresses separated by commas (got ${JSON.stringify(address)})`);
      }
    }),
  );
  const impersonation = options.impersonation ?? {};
  const maxAge = impersonation === false ? null : (impersonation.maxAge ?? MAX_IMPERSONATION_SECONDS);
  if (maxAge !== null && !(Number.isInteger(maxAge) && maxAge > 0 && maxAge <= MAX_IMPERSONATION_SECONDS)) {
    throw new TypeError(`Admin({ impersonation: { maxAge } }) must be a whole number of seconds from 1 to ${MAX_IMPERSONATION_SECONDS} (got ${String(maxAge)})`);
  }
  return { admins, requireSecondFactor: options.requireSecondFactor ?? true, impersonationMaxAge: maxAge };
}

const settingsByConfig = new WeakMap<ResolvedConfig, AdminSettings>();

/** Remembers `Admin()`'s settings for its config (its startup check). */
export function useAdminSettings(options: ResolvedConfig, settings: AdminSettings): void {
  settingsByConfig.set(options, settings);
}

/** The settings of the config's `Admin()`; throws when the config has none. */
export function adminSettingsOf(options: ResolvedConfig): AdminSettings {
  const settings = settingsByConfig.get(options);
  if (!settings) throw new TypeError('Administration needs Admin() in the config\'s features');
  return settings;
}
