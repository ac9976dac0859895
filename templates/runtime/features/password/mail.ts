/**
 * The password provider's messages: "confirm your address" after a sign-up, "someone tried to sign up with your
 * address" when the address is already known, and "reset your password". Each has a plain-text and an HTML part
 * and holds one link; the link's origin is the configured one (AUTH_URL), never a request's Host.
 *
 * Outside production, with no SMTP server set, the messages are printed on the server's console instead of sent, so
 * that `npm run dev` works before any mail service is registered; in production a missing server stops the app at
 * startup (index.ts).
 */
import { messageButton, messageHtml, shownHost } from '../email/smtp.js';
import { html } from '../../pages/html.js';
import type { Theme } from '../../contracts.js';
import type { Awaitable } from '../../types.js';

/** Which message: a sign-up to confirm, a sign-up for a known address, a password reset. */
export type PasswordMessageKind = 'verify-address' | 'sign-up-attempt' | 'reset-password';

/** What a password message sender receives. */
export interface PasswordMessage {
  kind: PasswordMessageKind;
  /** The address the message goes to. */
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The message's main link (it holds a single-use token for `verify-address` and `reset-password`). */
  url: string;
}

/** Sends a message; throw to report a failure. */
export type PasswordMessageSender = (message: PasswordMessage) => Awaitable<void>;

/** The message's wording, by kind: subject, heading, paragraphs, the button's label. */
function wording(kind: PasswordMessageKind, host: string): { subject: string; lines: string[]; button: string; second?: string } {
  if (kind === 'verify-address') {
    return {
      subject: `Confirm your email address for ${host}`,
      lines: ['Open this link to confirm your address and finish creating your account.', 'If you did not sign up, you can ignore this email: no account is created without it.'],
      button: 'Confirm address',
    };
  }
  if (kind === 'sign-up-attempt') {
    return {
      subject: `Sign-up attempt on ${host}`,
      lines: [
        'Someone tried to create an account with this email address, which already has one.',
        'If it was you, sign in instead, or choose a new password if you have none or forgot it.',
        'If it was not you, you can ignore this email: nothing has changed.',
      ],
      button: 'Sign in',
      second: 'Choose a new password',
    };
  }
  return {
    subject: `Reset your password for ${host}`,
    lines: ['Open this link to choose a new password. It works once, for one hour.', 'If you did not ask for this, you can ignore this email: your password has not changed.'],
    button: 'Choose a new password',
  };
}

/** Builds a message of `kind` to `to` around `url` (and, for a sign-up attempt, the reset page's `resetUrl`). */
export function passwordMessage(kind: PasswordMessageKind, params: { to: string; url: string; resetUrl?: string; theme: Theme }): PasswordMessage {
  const host = new URL(params.url).host;
  const { subject, lines, button, second } = wording(kind, host);
  const secondLink = second && params.resetUrl ? { label: second, url: params.resetUrl } : undefined;
  const text = `${subject}\n\n${lines.join('\n\n')}\n\n${button}: ${params.url}\n${secondLink ? `${secondLink.label}: ${secondLink.url}\n` : ''}`;
  const paragraphs = lines.map((line) => html`<p style="margin:0 0 16px">${line}</p>`);
  const content = html`<h1 style="font-size:20px;margin:0 0 16px">${shownHost(host)}</h1>${paragraphs}<p style="margin:0 0 24px">${messageButton(params.url, button, params.theme)}</p>${secondLink ? html`<p style="margin:0 0 24px"><a href="${secondLink.url}">${secondLink.label}</a></p>` : ''}<p style="margin:0;font-size:14px;word-break:break-all"><a href="${params.url}">${params.url}</a></p>`;
  return { kind, to: params.to, subject, text, html: messageHtml(content), url: params.url };
}
