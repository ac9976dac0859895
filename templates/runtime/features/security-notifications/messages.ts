/**
 * The security notifications' messages (SPEC §13): what happened, when (UTC), from where (the browser and the
 * address), and what to do if it was not the user. Each has a plain-text and an HTML part. The one link is the account
 * page on the configured origin (AUTH_URL), which asks the user to sign in: never a link that signs in or carries a
 * token, and never an origin a request's Host chose.
 */
import type { ResolvedConfig } from '../../contracts.js';
import type { SecurityEvent } from '../security-events/index.js';
import { DEFAULT_BASE_PATH } from '../../http/base-path.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { messageHtml, shownHost } from '../email/smtp.js';
import { browserOf } from '../../http/browser-name.js';
import { addressOf } from './device.js';

/** One notification, as the `send` function receives it. */
export interface SecurityNotificationMessage {
  /** The account's address. */
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The events that are told, by type: the subject's words and the sentence that says what happened. */
interface Wording {
  title: string;
  /** What happened; `name` is the passkey's or key's name (quoted) and `method` the sign-in's provider, when known. */
  what(facts: { name: string | undefined; method: string | undefined }): string;
}

/**
 * What each notified event says, by its type (the core's or a feature's: an app without the feature records none of
 * them). `email-changed` is not here: the account feature tells the old address itself (the event holds no address,
 * and the new one was just proven by its owner).
 */
const wordings: Readonly<Partial<Record<string, Wording>>> = {
  'password-changed': { title: 'Your password was changed', what: () => 'The password of your account was changed.' },
  'password-reset': { title: 'Your password was reset', what: () => 'The password of your account was reset with a link sent to this address.' },
  'two-factor-off': {
    title: 'Two-factor authentication was turned off',
    what: () => 'Two-factor authentication was turned off for your account: signing in no longer asks for a code.',
  },
  'recovery-code-used': {
    title: 'A recovery code was used',
    what: () => 'One of your two-factor recovery codes was used to sign in to your account. Each code works once.',
  },
  'passkey-added': {
    title: 'A passkey was added to your account',
    what: ({ name }) => `A passkey${name ? ` named ${name}` : ''} was added to your account. It signs in without a password.`,
  },
  'api-key-created': {
    title: 'An API key was created',
    what: ({ name }) => `An API key${name ? ` named ${name}` : ''} was created for your account. It lets a program act as you.`,
  },
  'sign-in': {
    title: 'New sign-in to your account',
    what: ({ method }) => `Your account was signed in to${method ? ` with ${method}` : ''} from a browser or network it had not used before.`,
  },
};

/** Whether an event of this type is told to the user (`sign-in` only from a new device). */
export function isNotified(type: string): boolean {
  return Object.hasOwn(wordings, type);
}

const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

/** A time in UTC as people read it, the same on every server: "Friday, 27 November 2026, 11:41 UTC". */
export function shownTime(at: Date): string {
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return `${weekdays[at.getUTCDay()]!}, ${at.getUTCDate()} ${months[at.getUTCMonth()]!} ${at.getUTCFullYear()}, ${twoDigits(at.getUTCHours())}:${twoDigits(at.getUTCMinutes())} UTC`;
}

/** The longest name (of a passkey or a key) a message repeats: the user typed it, or whoever holds the account did. */
const MAX_SHOWN_NAME = 60;

function shownName(detail: string | null): string | undefined {
  const name = detail?.replace(/\s+/g, ' ').trim();
  if (!name) return undefined;
  return `"${name.length > MAX_SHOWN_NAME ? `${name.slice(0, MAX_SHOWN_NAME)}…` : name}"`;
}

/** What the messages need of the configuration. */
export interface MessageSettings {
  /** Names the app in the subject and heading; undefined: none. */
  appName: string | undefined;
  /** The account page's URL on the configured origin; undefined without AUTH_URL. */
  accountUrl: string | undefined;
  /** Where to reach support, shown as text; undefined: "the site's support". */
  support: string | undefined;
}

/** The settings of a resolved config: the app's name (or AUTH_URL's host) and its account page. */
export function messageSettings(options: ResolvedConfig, own: { appName: string | undefined; support: string | undefined }): MessageSettings {
  const origin = options.envOrigin;
  return {
    appName: own.appName ?? (origin ? new URL(origin).host : undefined),
    accountUrl: origin ? `${origin}${options.basePath ?? DEFAULT_BASE_PATH}/account` : undefined,
    support: own.support,
  };
}

/** The message that tells `to` of `event`, or undefined for an event that is not told. */
export function securityMessage(options: ResolvedConfig, event: SecurityEvent, to: string, settings: MessageSettings): SecurityNotificationMessage | undefined {
  const wording = isNotified(event.type) ? wordings[event.type] : undefined;
  if (!wording) return undefined;
  const method = event.method ? (options.providersById.get(event.method)?.name ?? event.method) : undefined;
  const what = wording.what({ name: shownName(event.detail), method });
  const subject = settings.appName ? `${wording.title} on ${settings.appName}` : wording.title;
  const facts: readonly (readonly [string, string])[] = [
    ['When', shownTime(event.at)],
    ['Browser', browserOf(event.userAgent)],
    ['Address', addressOf(event.ip)],
  ];
  const where = settings.accountUrl ? `at ${settings.accountUrl}` : 'on your account page';
  const support = settings.support ? `contact support (${settings.support})` : "contact the site's support";
  const calm = 'If this was you, there is nothing to do.';
  const advice = `If it was not you, someone else may be using your account: sign in, change your password and end the sessions you do not know ${where} (if you can no longer sign in, reset your password from the sign-in page), and ${support}.`;
  const text = `${subject}\n\n${what}\n\n${facts.map(([label, value]) => `${label}: ${value}`).join('\n')}\n\n${calm}\n\n${advice}\n`;
  const accountLink: SafeHtml | string = settings.accountUrl ? html`at <a href="${settings.accountUrl}">${settings.accountUrl}</a>` : where;
  const adviceHtml = html`If it was not you, someone else may be using your account: sign in, change your password and end the sessions you do not know ${accountLink} (if you can no longer sign in, reset your password from the sign-in page), and ${support}.`;
  const rows = facts.map(([label, value]) => html`<tr><td style="padding:2px 12px 2px 0;color:#5b6170">${label}</td><td style="padding:2px 0">${value}</td></tr>`);
  const heading = settings.appName ? shownHost(settings.appName) : 'Your account';
  const content = html`<h1 style="font-size:20px;margin:0 0 16px">${heading}</h1><p style="margin:0 0 16px"><strong>${wording.title}</strong></p><p style="margin:0 0 16px">${what}</p><table role="presentation" style="margin:0 0 16px;font-size:14px">${rows}</table><p style="margin:0 0 16px">${calm}</p><p style="margin:0">${adviceHtml}</p>`;
  return { to, subject, text, html: messageHtml(content) };
}
