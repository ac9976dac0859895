/**
 * The account page's messages and the transport that sends them: the link that confirms a new address (to the new
 * address), the notice that a change was asked (to the old one), the notice that someone tried to move an account to
 * an address that has one (to that address), and the notice that the account was deleted. Only the first holds a
 * link, and it signs nobody in: it opens a page whose button makes the change. The link's origin is the configured
 * one (AUTH_URL or a trustHost entry), never a request's Host.
 *
 * The transport is `Account({ sendMessage })`, else SMTP through `server` (AUTH_EMAIL_SERVER) from `from`
 * (AUTH_EMAIL_FROM). Outside production with neither, messages are printed on the console (as the password provider
 * does), so that `npm run dev` works before a mail service is registered; in production the address change is not
 * offered and the rest of the page works. The security notifications (`Account({ notifications })`) go through
 * the same transport.
 */
import { type Mailer, type MailerOptions, resolveMailer, wordedMessage } from '../email/smtp.js';
import type { Theme } from '../../contracts.js';
import type { AuthEnv, Awaitable } from '../../types.js';

/** Which message. */
export type AccountMessageKind = 'confirm-new-address' | 'address-change-requested' | 'address-changed' | 'address-change-attempt' | 'account-deleted';

/** A message the account feature sends: a plain-text and an HTML part. */
export interface AccountMessage {
  kind: AccountMessageKind | (string & {});
  /** The address the message goes to. */
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends a message; throw to report a failure (it is logged). */
export type AccountMessageSender = (message: AccountMessage) => Awaitable<void>;

/** The mail options of `Account()`: its `server`, `from` and `sendMessage`. */
export type AccountMailOptions = MailerOptions<AccountMessage>;

/** The resolved transport: how to send, and whether it only prints (development without a server). */
export type AccountMailer = Mailer<AccountMessage>;

/**
 * The transport of `Account(options)`: `sendMessage`, else SMTP, else the console outside production; undefined in
 * production without any (the address change is then not offered). Throws when a server is set without a sender.
 */
export function resolveAccountMailer(options: AccountMailOptions, env: AuthEnv): AccountMailer | undefined {
  return resolveMailer('Account()', options, env);
}

/** The wording of each message: subject and paragraphs; `button` for the one with a link. */
function wording(kind: AccountMessageKind, host: string, newEmail: string | undefined, account: string | undefined): { subject: string; lines: string[]; button?: string } {
  if (kind === 'confirm-new-address') {
    return {
      subject: `Confirm the new email address of an account on ${host}`,
      lines: [
        `The account ${account ?? 'of a user'} on ${host} asked to make this address, ${newEmail ?? 'yours'}, its email address.`,
        'If that is your account, open this link in the browser where you are signed in to it, and confirm. It works once, for one hour.',
        `If you have no account on ${host}, or did not ask for this, ignore this email and do not confirm: nothing changes without it.`,
      ],
      button: 'Confirm new address',
    };
  }
  if (kind === 'address-change-requested') {
    return {
      subject: `Your email address on ${host} is being changed`,
      lines: [
        `Someone signed in to your account asked to change its email address to ${newEmail ?? 'another address'}. The change happens only once the new address confirms it.`,
        'If it was you, there is nothing to do. If it was not, sign in, change your password and end your other sessions: your account may be in someone else’s hands.',
      ],
    };
  }
  if (kind === 'address-changed') {
    return {
      subject: `Your email address on ${host} was changed`,
      lines: [
        `The email address of your account is now ${newEmail ?? 'another address'}, which confirmed the change. Messages about the account go there from now on, and every other session was ended.`,
        'If it was you, there is nothing to do. If it was not, someone had access to your account: contact the site’s support, and secure this mailbox and the new one if it is yours.',
      ],
    };
  }
  if (kind === 'address-change-attempt') {
    return {
      subject: `Email change attempt on ${host}`,
      lines: [
        'Someone asked to move another account to this email address, which already has an account. Nothing has changed.',
        'If it was you, sign in with this address instead. If it was not, you can ignore this email.',
      ],
    };
  }
  return {
    subject: `Your account on ${host} was deleted`,
    lines: [
      'Your account and everything stored with it were deleted, and every session was ended.',
      'If you did not do this, someone had access to your account: sign up again and secure the email address itself.',
    ],
  };
}

/**
 * Builds a message of `kind` to `to`; `url` is the confirmation link (the only message with one), `account` the account
 * that would move to the new address, as the message may name it (its address masked).
 */
export function accountMessage(kind: AccountMessageKind, params: { to: string; origin: string; theme: Theme; url?: string; newEmail?: string; account?: string }): AccountMessage {
  const host = new URL(params.origin).host;
  return { kind, to: params.to, ...wordedMessage(host, params.theme, wording(kind, host, params.newEmail, params.account), params.url) };
}
