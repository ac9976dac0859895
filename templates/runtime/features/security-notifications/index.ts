/**
 * Security notifications (SPEC §13): an email to the account's address when its password is changed or reset,
 * two-factor is turned off, a recovery code is used, a passkey is added or an API key created, and (with
 * `newDevice: true`) when it signs in from a browser or network none of its earlier sign-ins used. Each message says
 * what happened, when, from where, and how to secure the account; it holds no link that signs in.
 *
 * The account feature brings it with its mail sender; list it yourself to send through your own service. It needs an
 * adapter (the address is the stored user's); `newDevice` also needs the stored events (`SecurityEvents`). A change of
 * address is told to the old address by the account feature, not here.
 * @example
 * features: [SecurityEvents, SecurityNotifications({ send: (message) => mailer.send({ from: 'security@example.com', ...message }), newDevice: true })]
 */
import type { Feature, ResolvedConfig } from '../../contracts.js';
import type { SecurityEvent } from '../security-events/index.js';
import { EventError } from '../../errors.js';
import type { Awaitable } from '../../types.js';
import { callAdapter } from '../database/adapter.js';
import { isNewDevice } from './device.js';
import { type SecurityNotificationMessage, isNotified, messageSettings, securityMessage } from './messages.js';

export type { SecurityNotificationMessage } from './messages.js';
export { browserOf } from '../../http/user-agent.js';

/** The options of `SecurityNotifications`. */
export interface SecurityNotificationsOptions {
  /**
   * Sends one message (its `from` is yours to add); throw or reject to report a failure, which is logged. The request
   * that caused the event does not wait for it.
   */
  send: (message: SecurityNotificationMessage) => Awaitable<void>;
  /**
   * Also tells of a sign-in from a new device: a browser (name and system, without version) and network (IPv4 /24,
   * IPv6 /48) that none of the user's stored sign-ins within `events.retentionDays` used. A new account's first
   * sign-in is not one. Needs the `SecurityEvents` feature.
   * @default false
   */
  newDevice?: boolean;
  /** Names the app in each subject and heading. @default the host of AUTH_URL; without it, none */
  appName?: string;
  /** How to reach support (an address, a URL or a phone number), shown as text. @default "the site's support" */
  support?: string;
}

/** The options, checked and with their defaults. */
interface NotificationSettings {
  send: SecurityNotificationsOptions['send'];
  newDevice: boolean;
  appName: string | undefined;
  support: string | undefined;
}

/**
 * Hands the message to `send` without waiting for it: a slow or failing mail service must not hold the sign-in or
 * change that caused the event (the recorder awaits each feature that listens). A failure is logged.
 */
function deliver(options: ResolvedConfig, send: SecurityNotificationsOptions['send'], event: SecurityEvent, message: SecurityNotificationMessage): void {
  const failed = (error: unknown) => {
    options.logger.error(new EventError(`Sending the security notification "${event.type}" failed`, { cause: error instanceof Error ? error : undefined }));
  };
  try {
    Promise.resolve(send(message)).catch(failed);
  } catch (error) {
    failed(error);
  }
}

/** Hears an event: decides (and reads the user) before the recorder moves on; only the delivery runs on its own. */
function notify(settings: NotificationSettings): NonNullable<Feature['onSecurityEvent']> {
  return async (options, event) => {
    const adapter = options.adapter;
    if (!adapter || !isNotified(event.type)) return;
    if (event.type === 'sign-in' && !(settings.newDevice && (await isNewDevice(options, event)))) return;
    const user = await callAdapter(adapter, 'getUser', event.userId);
    if (!user?.email) return;
    const message = securityMessage(options, event, user.email, messageSettings(options, { appName: settings.appName, support: settings.support }));
    if (message) deliver(options, settings.send, event, message);
  };
}

/** The security notifications' feature: it hears the security events and emails the user. */
export function SecurityNotifications(options: SecurityNotificationsOptions): Feature {
  if (typeof options?.send !== 'function') throw new TypeError('SecurityNotifications({ send }) needs a `send` function that delivers a message');
  if (options.appName !== undefined && (typeof options.appName !== 'string' || options.appName.trim() === '' || /[\r\n]/.test(options.appName))) {
    throw new TypeError('SecurityNotifications({ appName }) must be a non-empty name on one line (it goes into the subject)');
  }
  const settings: NotificationSettings = { send: options.send, newDevice: options.newDevice === true, appName: options.appName?.trim(), support: options.support };
  return {
    id: 'security-notifications',
    onSecurityEvent: notify(settings),
    check(resolved) {
      if (settings.newDevice && !resolved.features.some((feature) => feature.id === 'security-events')) {
        throw new TypeError('SecurityNotifications({ newDevice: true }) compares a sign-in with the stored ones: add SecurityEvents to `features` (the account feature brings it).');
      }
    },
  };
}
