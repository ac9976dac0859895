/**
 * Where the security events live: the `security_events` table of the SQL adapters (a user's events go with the
 * user), or a list in memory. An event holds no secret and no address but the client's (see `SecurityEvent`).
 */
import type { SecurityEventType } from '../../contracts.js';
import type { SecurityEvent } from './record.js';
import type { AdapterUser, Awaitable } from '../../types.js';
import type { FeatureStorage } from '../database/adapter.js';

declare module '../../contracts.js' {
  interface Adapter {
    /** Not part of Auth.js's interface: stores a security event. Security events (features/security-events/) need it and the two below. */
    createSecurityEvent?(event: SecurityEvent): Awaitable<void>;
    /** Not part of Auth.js's interface: the user's events, newest first, at most `limit` of them. */
    listSecurityEvents?(userId: AdapterUser['id'], limit: number): Awaitable<SecurityEvent[]>;
    /** Not part of Auth.js's interface: deletes every event older than `before`; resolves how many. */
    deleteSecurityEventsBefore?(before: Date): Awaitable<number>;
  }
}

/** A row of `security_events` as either driver returns it: dates as milliseconds or Dates. */
interface SecurityEventRow {
  id: string;
  user_id: string;
  type: string;
  at: Date | number;
  method: string | null;
  ip: string | null;
  user_agent: string | null;
  detail: string | null;
}

function eventFromRow(row: SecurityEventRow): SecurityEvent {
  return {
    id: row.id,
    userId: row.user_id,
    type: row.type as SecurityEventType,
    at: new Date(row.at),
    method: row.method,
    ip: row.ip,
    userAgent: row.user_agent,
    detail: row.detail,
  };
}

const columns = 'id, user_id, type, at, method, ip, user_agent, detail';

export const securityEventStorage: FeatureStorage = {
  tables: [
    {
      name: 'security_events',
      columns: { id: 'text', user_id: 'text', type: 'text', at: 'date', method: 'text', ip: 'text', user_agent: 'text', detail: 'text' },
      nullable: ['method', 'ip', 'user_agent', 'detail'],
      primaryKey: ['id'],
      indexes: ['user_id', 'at'],
    },
  ],
  sql: (database) => ({
    async createSecurityEvent(event) {
      const { id, userId, type, at, method, ip, userAgent, detail } = event;
      await database.run(`INSERT INTO security_events (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [id, userId, type, at, method, ip, userAgent, detail]);
    },
    async listSecurityEvents(userId, limit) {
      const rows = await database.all<SecurityEventRow>(`SELECT ${columns} FROM security_events WHERE user_id = ? ORDER BY at DESC, id LIMIT ?`, [userId, limit]);
      return rows.map(eventFromRow);
    },
    async deleteSecurityEventsBefore(before) {
      return database.run('DELETE FROM security_events WHERE at < ?', [before]);
    },
  }),
  memory(users) {
    let events: SecurityEvent[] = [];
    return {
      forgetUser(userId) {
        events = events.filter((event) => event.userId !== userId);
      },
      methods: {
        async createSecurityEvent(event) {
          if (!users.has(event.userId)) throw new Error(`createSecurityEvent: no user has the id ${JSON.stringify(event.userId)}`);
          events.push(structuredClone(event));
        },
        async listSecurityEvents(userId, limit) {
          const own = events.filter((event) => event.userId === userId);
          return own.sort((a, b) => b.at.valueOf() - a.at.valueOf()).slice(0, limit).map((event) => structuredClone(event));
        },
        async deleteSecurityEventsBefore(before) {
          const kept = events.filter((event) => event.at >= before);
          const deleted = events.length - kept.length;
          events = kept;
          return deleted;
        },
      },
    };
  },
};
