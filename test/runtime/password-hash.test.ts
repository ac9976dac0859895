// The password hashes of features/password/hash.ts: argon2id PHC strings with a 16-byte salt, checked in constant time
// by the library, a rehash flagged when the parameters changed, and one hash's work for a user without one; the queue
// of hashes waiting for a lane: bounded, first in first out, and rid of the hashes whose clients hung up (security
// review 4, F5).
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import * as argon2 from '@node-rs/argon2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  HASH_QUEUE_LIMIT,
  HASH_QUEUE_RETRY_AFTER,
  HashQueueFull,
  PASSWORD_HASH,
  RequestClosed,
  hashPassword,
  verifyPassword,
} from '../../templates/runtime/features/password/hash.js';

vi.mock('@node-rs/argon2', async (original) => {
  const actual = await original<typeof argon2>();
  return { ...actual, verify: vi.fn(actual.verify), hash: vi.fn(actual.hash) };
});

const PASSWORD = 'violet staple orbit lantern';

describe('password hashes', () => {
  it('are argon2id PHC strings with OWASP parameters, a 16-byte salt and a 32-byte hash, salted afresh each time', async () => {
    const first = await hashPassword(PASSWORD);
    const second = await hashPassword(PASSWORD);
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(first).not.toBe(second);
    expect(Buffer.from(first.split('$')[4]!, 'base64')).toHaveLength(16);
    expect(PASSWORD_HASH).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
  });

  it('accept the password, refuse any other, and compare after NFKC (a full-width form is the same password)', async () => {
    const stored = await hashPassword('ｌａｎｔｅｒｎ orbit violet staple');
    expect(await verifyPassword('lantern orbit violet staple', stored)).toEqual({ valid: true, needsRehash: false });
    expect(await verifyPassword('lantern orbit violet staplE', stored)).toEqual({ valid: false, needsRehash: false });
  });

  it('ask for a rehash of a valid password stored with other parameters, never of a wrong one', async () => {
    const old = await hashPassword(PASSWORD, { memoryCost: 8192, timeCost: 3, parallelism: 1 });
    expect(await verifyPassword(PASSWORD, old)).toEqual({ valid: true, needsRehash: true });
    expect(await verifyPassword('another password entirely', old)).toEqual({ valid: false, needsRehash: false });
  });

  it('never match an unreadable or foreign hash', async () => {
    for (const stored of ['', 'plaintext', '$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaA', '$scrypt$ln=14,r=8,p=5$c2FsdA$aGFzaA', '$argon2id$v=19$m=19456,t=2,p=1$!!$!!']) {
      expect(await verifyPassword(PASSWORD, stored)).toEqual({ valid: false, needsRehash: false });
    }
  });

  it('run at most one per core but one at a time, the rest waiting in a queue', async () => {
    const hash = vi.mocked(argon2.hash);
    const actual = hash.getMockImplementation()!;
    let running = 0;
    let most = 0;
    hash.mockImplementation(async (...args) => {
      running += 1;
      most = Math.max(most, running);
      try {
        return await actual(...args);
      } finally {
        running -= 1;
      }
    });
    try {
      const hashes = await Promise.all(Array.from({ length: 6 }, () => hashPassword(PASSWORD)));
      expect(new Set(hashes).size).toBe(6);
      expect(most).toBe(Math.min(6, Math.max(1, availableParallelism() - 1)));
    } finally {
      hash.mockImplementation(actual);
    }
  });

  it('cost one argon2id verification for a user without a hash, as for one with a hash', async () => {
    const verify = vi.mocked(argon2.verify);
    const stored = await hashPassword(PASSWORD);
    verify.mockClear();
    await verifyPassword(PASSWORD, stored);
    expect(verify).toHaveBeenCalledTimes(1);
    verify.mockClear();
    await verifyPassword(PASSWORD, null);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]![0]).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

/** How many hashes run at once (hash.ts: one per core but one). */
const LANES = Math.max(1, availableParallelism() - 1);
const actualHash = vi.mocked(argon2.hash).getMockImplementation()!;
const actualVerify = vi.mocked(argon2.verify).getMockImplementation()!;

/**
 * Holds every argon2 call until `release()`, then answers at once with a stand-in result: the queue is under test,
 * not argon2. `started` lists the passwords argon2 was given, in order.
 */
function holdArgon2(): { started: string[]; release: () => void } {
  const started: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  vi.mocked(argon2.hash).mockImplementation(async (password) => {
    started.push(String(password));
    await gate;
    return `held ${String(password)}`;
  });
  vi.mocked(argon2.verify).mockImplementation(async (_stored, password) => {
    started.push(String(password));
    await gate;
    return false;
  });
  return { started, release };
}

/** Hashes that take every lane (they start at once and wait for the held argon2). */
function takeEveryLane(): Promise<string>[] {
  return Array.from({ length: LANES }, (_, index) => hashPassword(`running ${index}`));
}

/** A request whose client can hang up (`hangUp()` closes its socket). */
function clientRequest(): { request: IncomingMessage; hangUp: () => void } {
  const socket = new Socket();
  return { request: new IncomingMessage(socket), hangUp: () => void socket.destroy() };
}

describe('the hash queue', () => {
  afterEach(() => {
    vi.mocked(argon2.hash).mockImplementation(actualHash);
    vi.mocked(argon2.verify).mockImplementation(actualVerify);
  });

  it('refuses a hash at once with HashQueueFull, 503 and Retry-After when HASH_QUEUE_LIMIT hashes already wait', async () => {
    const held = holdArgon2();
    const queued = [...takeEveryLane(), ...Array.from({ length: HASH_QUEUE_LIMIT }, (_, index) => hashPassword(`waiting ${index}`))];
    const refused = await hashPassword('one too many').catch((error: unknown) => error);
    held.release();
    await Promise.all(queued);
    expect(refused).toBeInstanceOf(HashQueueFull);
    expect(refused).toMatchObject({ type: 'HashQueueFull', status: 503, headers: { 'Retry-After': String(HASH_QUEUE_RETRY_AFTER) } });
    expect(held.started).toHaveLength(LANES + HASH_QUEUE_LIMIT);
    expect(held.started).not.toContain('one too many');
  });

  it('logs the first refusal of a burst as an error and the rest quietly', async () => {
    const held = holdArgon2();
    const queued = [...takeEveryLane(), ...Array.from({ length: HASH_QUEUE_LIMIT }, (_, index) => hashPassword(`waiting ${index}`))];
    const refusals = await Promise.all(['first', 'second', 'third'].map((password) => hashPassword(password).catch((error: unknown) => error)));
    held.release();
    await Promise.all(queued);
    expect(refusals.every((refusal) => refusal instanceof HashQueueFull)).toBe(true);
    expect(refusals.map((refusal) => (refusal as HashQueueFull).quiet)).toEqual([false, true, true]);
  });

  it('starts waiting hashes first in, first out', async () => {
    const held = holdArgon2();
    const queued = [...takeEveryLane(), ...['a', 'b', 'c', 'd', 'e'].map((password) => hashPassword(password))];
    held.release();
    await Promise.all(queued);
    expect(held.started.slice(LANES)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('drops a waiting check whose client hung up, without checking it', async () => {
    const stored = await hashPassword(PASSWORD);
    const held = holdArgon2();
    const client = clientRequest();
    const running = takeEveryLane();
    const abandoned = verifyPassword('abandoned guess', stored, { request: client.request }).catch((error: unknown) => error);
    const kept = verifyPassword('kept guess', stored, { request: clientRequest().request });
    client.hangUp();
    held.release();
    await Promise.all([...running, kept]);
    expect(await abandoned).toBeInstanceOf(RequestClosed);
    expect(await abandoned).toMatchObject({ type: 'RequestClosed', quiet: true });
    expect(held.started.slice(LANES)).toEqual(['kept guess']);
  });

  it('drops a waiting hash whose client hung up, without hashing it', async () => {
    const held = holdArgon2();
    const client = clientRequest();
    const running = takeEveryLane();
    const abandoned = hashPassword('abandoned sign-up', undefined, { request: client.request }).catch((error: unknown) => error);
    client.hangUp();
    held.release();
    await Promise.all(running);
    expect(await abandoned).toBeInstanceOf(RequestClosed);
    expect(held.started.slice(LANES)).toEqual([]);
  });

  it('refuses at once a check for a client that already hung up', async () => {
    const stored = await hashPassword(PASSWORD);
    const held = holdArgon2();
    const client = clientRequest();
    client.hangUp();
    const refused = await verifyPassword(PASSWORD, stored, { request: client.request }).catch((error: unknown) => error);
    held.release();
    expect(refused).toBeInstanceOf(RequestClosed);
    expect(held.started).not.toContain(PASSWORD);
  });

  it('makes room in a full queue by dropping the hashes whose clients hung up, instead of refusing', async () => {
    const held = holdArgon2();
    const gone = clientRequest();
    const running = takeEveryLane();
    const abandoned = Array.from({ length: HASH_QUEUE_LIMIT }, (_, index) => hashPassword(`abandoned ${index}`, undefined, { request: gone.request }).catch((error: unknown) => error));
    gone.hangUp();
    const next = hashPassword('next in line', undefined, { request: clientRequest().request });
    held.release();
    expect(await next).toBe('held next in line');
    await Promise.all(running);
    expect((await Promise.all(abandoned)).every((error) => error instanceof RequestClosed)).toBe(true);
    expect(held.started.slice(LANES)).toEqual(['next in line']);
  });
});
