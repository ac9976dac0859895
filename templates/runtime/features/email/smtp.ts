/**
 * What the built-in senders share (the email provider's links, the password provider's messages): the HTML frame of
 * a message, and the SMTP transport, nodemailer, loaded on first use so that an app whose senders use another
 * service does not need it installed.
 */
import { SafeHtml, escapeHtml, html, safeColor } from '../../pages/html.js';
import type { Theme } from '../../contracts.js';
import type { AuthEnv, Awaitable } from '../../types.js';

/** A host as a message heading shows it: its dots broken up, so that mail clients do not turn it into a second link. */
export function shownHost(host: string): SafeHtml {
  return new SafeHtml(escapeHtml(host).replace(/\./g, '&#8203;.'));
}

/** The message's main link as a button in the theme's brand colour. */
export function messageButton(url: string, label: string, theme: Theme): SafeHtml {
  const brand = safeColor(theme.brandColor) ?? '#3451b2';
  const text = safeColor(theme.buttonText) ?? '#ffffff';
  return html`<a href="${url}" style="display:inline-block;padding:12px 20px;border-radius:8px;background:${brand};color:${text};text-decoration:none;font-weight:600">${label}</a>`;
}

/** A whole HTML message: a card of at most 480 px, readable without the mail client's styles, around `content`. */
export function messageHtml(content: SafeHtml): string {
  return `<!DOCTYPE html>${html`<html lang="en"><body style="margin:0;padding:24px;background:#f6f7f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#16181d"><table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:12px;padding:24px"><tr><td>${content}</td></tr></table></body></html>`}`;
}

/**
 * A message in words (its subject, its paragraphs and, with `url`, a button's label) as a subject, a plain-text and an
 * HTML part, under the host's name: the account's and the organizations' messages.
 */
export function wordedMessage(host: string, theme: Theme, words: { subject: string; lines: readonly string[]; button?: string | undefined }, url: string | undefined): Pick<MailMessage, 'subject' | 'text' | 'html'> {
  const { subject, lines, button } = words;
  const link = button && url ? { label: button, url } : undefined;
  const text = `${subject}\n\n${lines.join('\n\n')}\n${link ? `\n${link.label}: ${link.url}\n` : ''}`;
  const paragraphs = lines.map((line) => html`<p style="margin:0 0 16px">${line}</p>`);
  const content = html`<h1 style="font-size:20px;margin:0 0 16px">${shownHost(host)}</h1>${paragraphs}${
    link ? html`<p style="margin:0 0 24px">${messageButton(link.url, link.label, theme)}</p><p style="margin:0;font-size:14px;word-break:break-all"><a href="${link.url}">${link.url}</a></p>` : ''
  }`;
  return { subject, text, html: messageHtml(content) };
}

/** One message: a plain-text and an HTML part. */
export interface MailMessage {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
}

/** The part of nodemailer the transport uses. */
interface NodemailerModule {
  createTransport(options: string | Record<string, unknown>): {
    sendMail(message: MailMessage): Promise<{ rejected?: unknown[]; pending?: unknown[] }>;
    close?(): void;
  };
}

/** The specifier is a variable so that TypeScript does not ask for @types/nodemailer. */
async function loadNodemailer(): Promise<NodemailerModule> {
  const specifier = 'nodemailer';
  const loaded = (await import(specifier)) as NodemailerModule & { default?: NodemailerModule };
  return typeof loaded.createTransport === 'function' ? loaded : loaded.default!;
}

/**
 * Sends one message over `server` (an SMTP URL or nodemailer transport options). Throws when the server refuses
 * the recipient.
 */
export async function sendSmtpMessage(server: string | Record<string, unknown>, message: MailMessage): Promise<void> {
  const nodemailer = await loadNodemailer();
  const transport = nodemailer.createTransport(server);
  try {
    const result = await transport.sendMail(message);
    const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
    if (failed.length > 0) throw new Error(`The SMTP server did not accept the message (${failed.length} recipient refused)`);
  } finally {
    transport.close?.();
  }
}

/** A message as a feature builds it; the sender adds the configured `from`. */
export type OutgoingMessage = Omit<MailMessage, 'from'>;

/** The default sender of the features' messages: SMTP through `server` from `from`. */
export function smtpSender(server: string | Record<string, unknown>, from: string): (message: OutgoingMessage) => Promise<void> {
  return (message) => sendSmtpMessage(server, { to: message.to, from, subject: message.subject, text: message.text, html: message.html });
}

/**
 * The development sender: prints the message's text on the console. Used only outside production, when no SMTP
 * server is configured; the feature logs its `…-printed-to-console` warning with each message.
 */
export function printMessage(message: Pick<OutgoingMessage, 'to' | 'subject' | 'text'>): void {
  console.info(`\n--- email to ${message.to} ---\nSubject: ${message.subject}\n\n${message.text}--- end of email ---\n`);
}

/** How a feature that mails its users is told to send (`Account()`, `Organizations()`). */
export interface MailerOptions<Message extends OutgoingMessage> {
  /** The SMTP server (an SMTP URL or nodemailer transport options). @default AUTH_EMAIL_SERVER */
  server?: string | Record<string, unknown>;
  /** The sender of the messages. @default AUTH_EMAIL_FROM */
  from?: string;
  /** Sends the messages through another service instead of SMTP; throw to report a failure (it is logged). */
  sendMessage?: (message: Message) => Awaitable<void>;
}

/** A feature's transport: how to send, and whether it only prints (development without a server). */
export interface Mailer<Message extends OutgoingMessage> {
  send: (message: Message) => Awaitable<void>;
  /** True when messages go to the console: outside production, with no server and no `sendMessage`. */
  printsMessages: boolean;
}

/**
 * The transport of a feature's mail options: `sendMessage`, else SMTP through `server` (AUTH_EMAIL_SERVER) from `from`
 * (AUTH_EMAIL_FROM), else the console outside production; undefined in production without any (the feature then
 * offers no message). Throws, naming `feature`, when a server is set without a sender.
 */
export function resolveMailer<Message extends OutgoingMessage>(feature: string, options: MailerOptions<Message>, env: AuthEnv): Mailer<Message> | undefined {
  if (options.sendMessage) return { send: options.sendMessage, printsMessages: false };
  const server = options.server ?? (env['AUTH_EMAIL_SERVER'] || undefined);
  const from = options.from ?? (env['AUTH_EMAIL_FROM'] || undefined);
  if (server) {
    if (!from) throw new TypeError(`${feature} sends email through AUTH_EMAIL_SERVER but has no sender: set AUTH_EMAIL_FROM (e.g. "Example <no-reply@example.com>")`);
    return { send: smtpSender(server, from), printsMessages: false };
  }
  if (env['NODE_ENV'] === 'production') return undefined;
  return { send: printMessage, printsMessages: true };
}
