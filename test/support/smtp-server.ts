/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps every message it receives, with just
 * enough MIME decoding (multipart, quoted-printable, base64) for tests to read the plain-text and HTML parts.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMessage {
  /** The envelope sender (MAIL FROM). */
  mailFrom: string | undefined;
  /** The envelope recipients (RCPT TO). */
  rcptTo: string[];
  /** The message as sent, headers and body. */
  raw: string;
  /** Top-level headers, names lower-cased, folded lines joined. */
  headers: Record<string, string>;
  /** The decoded text/plain part. */
  text: string | undefined;
  /** The decoded text/html part. */
  html: string | undefined;
}

export interface RunningSmtpServer {
  /** `smtp://127.0.0.1:<port>`, for AUTH_EMAIL_SERVER. */
  url: string;
  messages: ReceivedMessage[];
  /** Resolves with the next message (or one already received beyond `count`). */
  waitForMessage(count?: number, timeoutMs?: number): Promise<ReceivedMessage>;
  close(): Promise<void>;
  /** Connections that failed (a client that hung up mid-message), kept for a test to look at. */
  connectionErrors: readonly Error[];
}

function splitHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const separator = line.indexOf(':');
    if (separator > 0) headers[line.slice(0, separator).trim().toLowerCase()] = line.slice(separator + 1).trim();
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'quoted-printable':
      return Buffer.from(
        body.replace(/=\r\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      ).toString('utf8');
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

interface Part {
  headers: Record<string, string>;
  body: string;
}

function splitEntity(entity: string): Part {
  const end = entity.indexOf('\r\n\r\n');
  return end === -1 ? { headers: splitHeaders(entity), body: '' } : { headers: splitHeaders(entity.slice(0, end)), body: entity.slice(end + 4) };
}

/** Every leaf part of a MIME entity, multiparts walked recursively. */
function leafParts(part: Part): Part[] {
  const type = part.headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.toLowerCase().startsWith('multipart/') || !boundary) return [part];
  const sections = part.body.split(`--${boundary}`).slice(1);
  return sections.filter((section) => !section.startsWith('--')).flatMap((section) => leafParts(splitEntity(section.replace(/^\r\n/, '').replace(/\r\n$/, ''))));
}

export function parseMessage(raw: string, envelope: { mailFrom: string | undefined; rcptTo: string[] }): ReceivedMessage {
  const top = splitEntity(raw);
  const parts = leafParts(top);
  const find = (mime: string) => {
    const part = parts.find((candidate) => (candidate.headers['content-type'] ?? 'text/plain').toLowerCase().startsWith(mime));
    return part ? decodeBody(part.body, part.headers['content-transfer-encoding']) : undefined;
  };
  return { ...envelope, raw, headers: top.headers, text: find('text/plain'), html: find('text/html') };
}

/** Starts the SMTP server on 127.0.0.1, port 0, without TLS or authentication. */
export async function startSmtpServer(): Promise<RunningSmtpServer> {
  const messages: ReceivedMessage[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined;
        messages.push(parseMessage(Buffer.concat(chunks).toString('utf8'), { mailFrom, rcptTo: session.envelope.rcptTo.map((recipient) => recipient.address) }));
        for (const wake of waiters.splice(0)) wake();
        callback();
      });
    },
  });
  // A client that goes away mid-message (an app process stopped while it sends after answering) resets its socket:
  // smtp-server reports that on the server, and unheard it would crash the test run. It is no message and no failure.
  const connectionErrors: Error[] = [];
  server.on('error', (error: Error) => connectionErrors.push(error));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    connectionErrors,
    async waitForMessage(count = messages.length, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length <= count) {
        if (Date.now() > deadline) throw new Error(`no SMTP message #${count + 1} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return messages[count]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
