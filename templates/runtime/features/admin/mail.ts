/**
 * What administration tells a user by email: that an administrator removed a second factor or a passkey, disabled
 * the account, or deleted it. No link: a message that anyone could fake must not ask the reader to click anything;
 * it names the host and tells them whom to contact.
 *
 * The transport is `Admin({ sendMessage })`, else SMTP through `server` (AUTH_EMAIL_SERVER) from `from`
 * (AUTH_EMAIL_FROM), as the account's messages are sent. Outside production with neither, messages are printed on the
 * console; in production without any, no notice is sent and the startup says so.
 */
import type { RequestContext, ResolvedConfig } from '../../contracts.js';
import { type Mailer, wordedMessage } from '../email/smtp.js';

/** Which notice: a second factor or a passkey removed, the account disabled, or deleted. */
export type AdminMessageKind = 'two-factor-removed' | 'passkey-removed' | 'disabled' | 'deleted';

/** A message of administration: a plain-text and an HTML part. */
export interface AdminMessage {
  kind: AdminMessageKind;
  /** The address the message goes to. */
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The transport `Admin()` resolved (undefined: production without a mail service). */
export type AdminMailer = Mailer<AdminMessage>;

const mailers = new WeakMap<ResolvedConfig, AdminMailer | undefined>();

/** Remembers the transport of `Admin()` for its config (its startup check). */
export function useAdminMailer(options: ResolvedConfig, mailer: AdminMailer | undefined): void {
  mailers.set(options, mailer);
}

const closing = 'If you did not ask for this, reply to this email or contact the site\'s support.';

function wording(kind: AdminMessageKind, host: string): { subject: string; lines: string[] } {
  switch (kind) {
    case 'two-factor-removed':
      return {
        subject: `Two-factor authentication was turned off on ${host}`,
        lines: [`An administrator of ${host} turned off two-factor authentication on your account, as asked when a phone or an authenticator is lost. Signing in now needs only your first factor: turn two-factor on again from your account.`, closing],
      };
    case 'passkey-removed':
      return {
        subject: `A passkey was removed from your account on ${host}`,
        lines: [`An administrator of ${host} removed a passkey from your account: it no longer signs you in.`, closing],
      };
    case 'disabled':
      return {
        subject: `Your account on ${host} was disabled`,
        lines: [`An administrator of ${host} disabled your account: every session of it has ended, its API keys stop working, and signing in is refused until it is enabled again.`, closing],
      };
    case 'deleted':
      return {
        subject: `Your account on ${host} was deleted`,
        lines: [`An administrator of ${host} deleted your account and its data. You cannot sign in to it any more.`, closing],
      };
  }
}

/**
 * Tells the user what an administrator did, after the answer; a failure is logged. The host named is the configured
 * origin's (AUTH_URL or a trustHost entry) when there is one.
 */
export function notifyUser(context: RequestContext, kind: AdminMessageKind, to: string): void {
  const { options } = context;
  const mailer = mailers.get(options);
  if (!mailer) return;
  if (mailer.printsMessages) options.logger.warn('admin-email-printed-to-console');
  const host = new URL(context.linkOrigin ?? context.origin).host;
  const message: AdminMessage = { kind, to, ...wordedMessage(host, options.theme, wording(kind, host), undefined) };
  setImmediate(() => {
    Promise.resolve()
      .then(() => mailer.send(message))
      .catch((error: unknown) => options.logger.error(new Error(`Sending administration's "${kind}" message failed`, { cause: error })));
  });
}
