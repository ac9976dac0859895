/**
 * Security events (SPEC §13): every sign-in, failed password or code, sign-out and change to a way of signing in,
 * per user, with the method, the browser and the client's address (`events.ipPrecision`), kept
 * `events.retentionDays` (default 90) in the `security_events` table and shown on `<mount>/account`. The account
 * feature brings it; list it on its own to keep the events without the page. The app's `events.onSecurityEvent`
 * receives each event with or without it.
 * @example
 * features: [SecurityEvents], events: { retentionDays: 30, ipPrecision: 'network', onSecurityEvent: (event) => log.info(event) }
 */
import type { Feature } from '../../contracts.js';
import { assertAdapterFor } from '../database/adapter-needs.js';
import { storedEvents } from './record.js';
import { securityEventStorage } from './storage.js';

export { MAX_LISTED_EVENTS, securityEventsOf } from './record.js';

/** The security events' feature: their table, the sink that stores them, and its startup check. */
export const SecurityEvents: Feature = {
  id: 'security-events',
  storage: securityEventStorage,
  securityEvents: storedEvents,
  check(resolved) {
    assertAdapterFor({ id: 'security-events', type: 'feature' }, resolved.adapter, resolved.session.strategy, {
      what: 'security events are kept',
      methods: ['createSecurityEvent', 'listSecurityEvents', 'deleteSecurityEventsBefore'],
    });
  },
};
