/**
 * Sign-in with a link sent by email ("magic link"). The user types an address, receives a single-use link valid for
 * `maxAge` (one hour unless set), and is signed in when they open it; the address counts as verified. A newer link
 * for the address voids the earlier ones when the adapter has `deleteVerificationTokens` (ours do). Needs an `adapter`
 * (links are stored as hashed verification tokens). The default sender uses nodemailer over SMTP: set
 * `AUTH_EMAIL_SERVER` (an SMTP URL such as `smtp://user:password@smtp.example.com:587`) and `AUTH_EMAIL_FROM`.
 * @example
 * Email()                                               // SMTP settings from AUTH_EMAIL_SERVER / AUTH_EMAIL_FROM
 * Email({ server: 'smtps://user:pass@smtp.example.com', from: 'Example <no-reply@example.com>', maxAge: 600 })
 * Email({ async sendVerificationRequest({ identifier, url }) { await myMailApi.send(identifier, url) } })
 */
import { DEFAULT_EMAIL_MAX_AGE, type EmailConfig, type EmailVerificationRequest } from '../features/email-sign-in/email-sign-in.js';
import { emailFlow } from '../features/email-sign-in/index.js';
import { messageButton, messageHtml, sendSmtpMessage, shownHost } from '../features/email/smtp.js';
import { html } from '../pages/html.js';
import { providerFlow, type Theme } from '../contracts.js';

export type { EmailConfig, EmailProviderSettings, EmailVerificationRequest } from '../features/email-sign-in/email-sign-in.js';
export { InvalidEmailAddress, normalizeEmailAddress } from '../email-address.js';

/** The fields of `Email()`: all optional. */
export type EmailUserConfig = Partial<Omit<EmailConfig, 'type' | typeof providerFlow>>;

/** The plain-text message: the host and the link, nothing else. */
export function verificationText(params: { url: string; host: string }): string {
  return `Sign in to ${params.host}\n\nOpen this link to sign in:\n${params.url}\n\nIf you did not ask for this email, you can ignore it.\n`;
}

/** The HTML message: a button with the link, and the link as text for clients that block buttons. */
export function verificationHtml(params: { url: string; host: string; theme: Theme }): string {
  return messageHtml(
    html`<h1 style="font-size:20px;margin:0 0 16px">Sign in to ${shownHost(params.host)}</h1><p style="margin:0 0 24px">${messageButton(params.url, 'Sign in', params.theme)}</p><p style="margin:0 0 8px;font-size:14px;color:#555b66">Or open this link:</p><p style="margin:0 0 24px;font-size:14px;word-break:break-all"><a href="${params.url}">${params.url}</a></p><p style="margin:0;font-size:13px;color:#555b66">If you did not ask for this email, you can ignore it.</p>`,
  );
}

/**
 * The default `sendVerificationRequest`: one message with a plain-text and an HTML part over SMTP (nodemailer).
 * Throws when `server` or `from` is missing, or when the server refuses the recipient.
 */
export async function sendVerificationEmail(params: EmailVerificationRequest): Promise<void> {
  const { identifier, url, provider, theme } = params;
  if (!provider.server) throw new Error(`Email provider "${provider.id}" has no SMTP server: set AUTH_EMAIL_SERVER (smtp://user:password@host:587) or pass \`server\``);
  if (!provider.from) throw new Error(`Email provider "${provider.id}" has no sender: set AUTH_EMAIL_FROM or pass \`from\``);
  const { host } = new URL(url);
  await sendSmtpMessage(provider.server, {
    to: identifier,
    from: provider.from,
    subject: `Sign in to ${host}`,
    text: verificationText({ url, host }),
    html: verificationHtml({ url, host, theme }),
  });
}

/**
 * The email (magic link) provider, id `email`.
 * @see https://authjs.dev/getting-started/authentication/email
 */
export default function Email(options: EmailUserConfig = {}): EmailConfig {
  return { id: 'email', name: 'Email', maxAge: DEFAULT_EMAIL_MAX_AGE, sendVerificationRequest: sendVerificationEmail, ...options, type: 'email', [providerFlow]: emailFlow };
}

/** Auth.js's name for the same provider (id `nodemailer`, env `AUTH_NODEMAILER_SERVER` or `AUTH_EMAIL_SERVER`). */
export function Nodemailer(options: EmailUserConfig = {}): EmailConfig {
  return Email({ id: 'nodemailer', name: 'Nodemailer', ...options });
}
