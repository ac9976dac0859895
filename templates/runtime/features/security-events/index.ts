/**
 * Security events (SPEC §13): every sign-in, failed password or code, sign-out and change to a way of signing in,
 * per user, with the method, the browser and the client's address (`events.ipPrecision`). With an adapter they are
 * kept `events.retentionDays` (default 90) in the `security_events` table and shown on `<mount>/account` (the account
 * feature brings this one); with or without, each is handed to the app's `events.onSecurityEvent`.
 * @example
 * features: [SecurityEvents], events: { retentionDays: 30, ipPrecision: 'network', onSecurityEvent: (event) => log.info(event) }
 */
import type { Feature } from '../../contracts.js';
import { MissingAdapterMethods } from '../../errors.js';
import { securityEventRecorder, useSecurityEventSettings } from './record.js';
import { securityEventStorage } from './storage.js';

export { MAX_LISTED_EVENTS, securityEventLabelsOf, securityEventsOf } from './record.js';
export type { IpPrecision, SecurityEvent, SecurityEventSettings } from './record.js';

/** The adapter methods the events are kept with. */
const neededMethods = ['createSecurityEvent', 'listSecurityEvents', 'deleteSecurityEventsBefore'] as const;

/** The security events' feature: the recorder the runtime reports to, their table, and the startup checks. */
export const SecurityEvents: Feature = {
  id: 'security-events',
  // The core's types (contracts.ts); each feature labels its own.
  securityEventLabels: { 'sign-in': 'Signed in', 'sign-in-failed': 'Failed sign-in', 'sign-out': 'Signed out' },
  storage: securityEventStorage,
  securityEvents: securityEventRecorder,
  check(resolved) {
    useSecurityEventSettings(resolved);
    const missing = resolved.adapter ? neededMethods.filter((method) => typeof resolved.adapter![method] !== 'function') : [];
    if (missing.length > 0) throw new MissingAdapterMethods(`Security events are kept through the adapter, which lacks these methods: ${missing.join(', ')}`);
  },
};
