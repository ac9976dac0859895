/**
 * The SMTP transport the built-in senders share (the email provider's links, the password provider's messages):
 * nodemailer, loaded on first use so that an app whose senders use another service does not need it installed.
 */

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
