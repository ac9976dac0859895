/**
 * The organizations' messages: the invitation (to the invited address, with the link that opens the invitation's
 * page; the link alone joins nobody: the page asks the invited user, signed in with that proven address, to accept)
 * and the notice to a removed member (no link). The link's origin is the configured one (AUTH_URL or a trustHost
 * entry), never a request's Host.
 *
 * The transport is `Organizations({ sendMessage })`, else SMTP through `server` (AUTH_EMAIL_SERVER) from `from`
 * (AUTH_EMAIL_FROM), as the account's messages are sent. Outside production with neither, messages are printed on
 * the console; in production without any, invitations are refused with a message saying so and removals send no notice.
 */
import type { RequestContext, ResolvedConfig, Theme } from '../../contracts.js';
import { type Mailer, type MailerOptions, wordedMessage } from '../email/smtp.js';

/** Which message: an invitation, or the notice to a removed member. */
export type OrganizationMessageKind = 'invitation' | 'member-removed';

/** A message of the organizations' feature: a plain-text and an HTML part. */
export interface OrganizationMessage {
  kind: OrganizationMessageKind;
  /** The address the message goes to. */
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The mail options of `Organizations()`: `server`, `from` and `sendMessage`. */
export type OrganizationsMailOptions = MailerOptions<OrganizationMessage>;

/** The transport `Organizations()` resolved (undefined: production without a mail service). */
export type OrganizationMailer = Mailer<OrganizationMessage>;

const mailers = new WeakMap<ResolvedConfig, OrganizationMailer | undefined>();

/** Remembers the transport of `Organizations()` for its config (its startup check). */
export function useOrganizationMailer(options: ResolvedConfig, mailer: OrganizationMailer | undefined): void {
  mailers.set(options, mailer);
}

/** The transport of the config's `Organizations()`, or undefined without one. */
export function organizationMailerOf(options: ResolvedConfig): OrganizationMailer | undefined {
  return mailers.get(options);
}

/** What a message names: the organization, who invited and as what, or who removed. */
export interface OrganizationMessageParams {
  to: string;
  /** The configured origin (`context.linkOrigin`): the host the message names. */
  origin: string;
  theme: Theme;
  organization: string;
  /** The invitation's link (only the invitation has one). */
  url?: string;
  inviter?: string | null;
  role?: string;
  expiresAt?: Date;
}

function wording(kind: OrganizationMessageKind, host: string, params: OrganizationMessageParams): { subject: string; lines: string[]; button?: string } {
  if (kind === 'invitation') {
    const who = params.inviter ? `${params.inviter} invited you` : 'You are invited';
    return {
      subject: `Join ${params.organization} on ${host}`,
      lines: [
        `${who} to join the organization “${params.organization}” on ${host} as ${params.role ?? 'a member'}.`,
        `Open this link to accept or decline. Accepting needs an account on ${host} with this email address, confirmed. The link works once, until ${(params.expiresAt ?? new Date()).toUTCString()}.`,
        'If you did not expect this, ignore this email: nothing happens without you.',
      ],
      button: 'See the invitation',
    };
  }
  return {
    subject: `You were removed from ${params.organization} on ${host}`,
    lines: [
      `Your account on ${host} is no longer a member of the organization “${params.organization}”: a member who manages its members removed you. Your account itself is unchanged.`,
      'If you think this is a mistake, ask the organization’s owners to invite you again.',
    ],
  };
}

/** Builds a message of `kind` to `params.to`. */
export function organizationMessage(kind: OrganizationMessageKind, params: OrganizationMessageParams): OrganizationMessage {
  const host = new URL(params.origin).host;
  return { kind, to: params.to, ...wordedMessage(host, params.theme, wording(kind, host, params), params.url) };
}

/** Sends a message after the answer; a failure is logged without the message (the invitation's link is in it). */
export function sendOrganizationMessageLater(context: Pick<RequestContext, 'options'>, mailer: OrganizationMailer, message: OrganizationMessage): void {
  const { logger } = context.options;
  if (mailer.printsMessages) logger.warn('organizations-email-printed-to-console');
  setImmediate(() => {
    Promise.resolve()
      .then(() => mailer.send(message))
      .catch((error: unknown) => logger.error(new Error(`Sending the organizations' "${message.kind}" message failed`, { cause: error })));
  });
}
