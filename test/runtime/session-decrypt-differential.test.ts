// The node:crypto opening of our own session cookie (templates/runtime/session/session-decrypt.ts) against jose's jwtDecrypt
// (issue 16): many thousands of valid, expired, not-yet-valid, truncated, bit-flipped, re-headered, wrong-secret and
// foreign tokens get the same accept/reject and the same claims through both; tokens interoperate both ways with
// @auth/core. The fast path must also actually run: every case counts how often it decided.
import { decode as authjsDecode, encode as authjsEncode } from '@auth/core/jwt';
import fc from 'fast-check';
import { CompactEncrypt, SignJWT, base64url, errors, jwtDecrypt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { decode, deriveKey, encode } from '../../templates/runtime/session/jwt.js';
import { CLOCK_TOLERANCE, type DerivedKey, decryptOwnShape } from '../../templates/runtime/session/session-decrypt.js';

const salt = 'authjs.session-token';
const newest = 'n'.repeat(16) + 'e'.repeat(16) + 'w';
const older = 'o'.repeat(40);
const stranger = 's'.repeat(40);
const secrets = [newest, older];
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The reference: jose's `jwtDecrypt` with the secret found by `kid` (Auth.js's rule: a token without `kid` gets the
 * newest), as session/jwt.ts's `decode` falls back to for tokens not of our own shape.
 */
async function decryptWithJose(token: string, candidates: readonly string[], keySalt: string): Promise<{ payload: unknown; secret: string }> {
  let usedSecret: string | undefined;
  const { payload } = await jwtDecrypt(
    token,
    async ({ kid, enc: encryption }) => {
      const enc = encryption === 'A256CBC-HS512' || encryption === 'A256GCM' ? (encryption as 'A256CBC-HS512' | 'A256GCM') : undefined;
      if (!enc) throw new errors.JOSEAlgNotAllowed('"enc" (Encryption Algorithm) Header Parameter value not allowed');
      for (const candidate of candidates) {
        const derived = await deriveKey(candidate, keySalt, enc);
        if (kid === undefined || kid === derived.kid) {
          usedSecret = candidate;
          return derived.key;
        }
      }
      throw new errors.JWEDecryptionFailed('no secret matches the token key id');
    },
    { clockTolerance: CLOCK_TOLERANCE, keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256CBC-HS512', 'A256GCM'] },
  );
  if (usedSecret === undefined) throw new errors.JWEDecryptionFailed('no secret matches the token key id');
  return { payload, secret: usedSecret };
}

type Outcome = { ok: true; payload: unknown; secret: string } | { ok: false };

let fastDecided = 0;

/** The keys of `secrets`, derived before any case runs: what jwt.ts's `decodeAtOnce` finds without waiting. */
const readyKeys = new Map<string, DerivedKey>();
beforeAll(async () => {
  for (const secret of secrets) readyKeys.set(secret, await deriveKey(secret, salt, 'A256CBC-HS512'));
});

/** Our own shape opened as jwt.ts's `decodeAtOnce` opens it (every key derived, so it never waits), any other by the reference. */
async function viaFastPath(token: string): Promise<Outcome> {
  let fast: ReturnType<typeof decryptOwnShape>;
  try {
    fast = decryptOwnShape(token, secrets, (secret) => readyKeys.get(secret));
  } catch {
    fastDecided += 1;
    return { ok: false };
  }
  if (fast) {
    fastDecided += 1;
    return { ok: true, payload: fast.payload, secret: fast.secret };
  }
  return viaJose(token);
}

async function viaJose(token: string): Promise<Outcome> {
  try {
    const result = await decryptWithJose(token, secrets, salt);
    return { ok: true, payload: result.payload, secret: result.secret };
  } catch {
    return { ok: false };
  }
}

async function expectSameAnswer(token: string): Promise<Outcome> {
  const [fast, jose] = await Promise.all([viaFastPath(token), viaJose(token)]);
  expect(fast, token).toEqual(jose);
  return jose;
}

/** A token of any header and any plaintext, encrypted with a real key (the one a secret derives). */
async function craft(header: Record<string, unknown>, plaintext: string, secret = newest): Promise<string> {
  const { key, kid } = await deriveKey(secret, salt, 'A256CBC-HS512');
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512', kid, ...header } as never)
    .encrypt(key);
}

const now = (): number => Math.floor(Date.now() / 1000);
const claims = fc.record(
  {
    sub: fc.string(),
    name: fc.option(fc.string(), { nil: undefined }),
    email: fc.emailAddress(),
    extra: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['sub'] },
);
const times = fc.record(
  {
    exp: fc.oneof(fc.integer({ min: -3600, max: 3600 }).map((offset) => now() + offset), fc.constant('soon'), fc.constant(null)),
    nbf: fc.oneof(fc.integer({ min: -3600, max: 3600 }).map((offset) => now() + offset), fc.constant('x')),
    iat: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.constant('yesterday'), fc.double()),
  },
  { requiredKeys: [] },
);

describe('decrypting our session cookie: node:crypto and jose agree', () => {
  it('on valid tokens from encode (both secrets, any claims, expired and fresh by maxAge)', async () => {
    fastDecided = 0;
    await fc.assert(
      fc.asyncProperty(claims, fc.constantFrom(newest, older), fc.integer({ min: -120, max: 86_400 }), async (token, secret, maxAge) => {
        const jwe = await encode({ token, secret: secret === newest ? [newest, older] : [older], salt, maxAge });
        const outcome = await expectSameAnswer(jwe);
        expect(outcome.ok).toBe(maxAge > -15);
      }),
      { numRuns: 1500 },
    );
    expect(fastDecided).toBe(1500);
  });

  it('on any claims set, plaintext and time claims (objects, arrays, strings, non-JSON, wrong types)', async () => {
    fastDecided = 0;
    const plaintexts = fc.oneof(
      fc.tuple(claims, times).map(([base, extra]) => JSON.stringify({ ...base, ...extra })),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.string(),
      fc.constant(''),
      fc.constant('{"a":1'),
    );
    await fc.assert(
      fc.asyncProperty(plaintexts, fc.boolean(), async (plaintext, withKid) => {
        const jwe = await craft(withKid ? {} : { kid: undefined }, plaintext);
        await expectSameAnswer(jwe);
      }),
      { numRuns: 1500 },
    );
    expect(fastDecided).toBeGreaterThan(1400);
  });

  it('on truncated and bit-flipped tokens (every part), and on wrong secrets', async () => {
    const valid = await encode({ token: { sub: 'u1', email: 'a@example.test' }, secret: secrets, salt });
    const foreign = await encode({ token: { sub: 'u1' }, secret: stranger, salt });
    fastDecided = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(valid, foreign),
        fc.nat(),
        fc.oneof(fc.constantFrom(...alphabet.split('')), fc.constantFrom('.', '=', ' ', '+', '/', '!', 'é')),
        fc.constantFrom('flip', 'truncate', 'insert'),
        async (base, position, character, kind) => {
          const index = position % base.length;
          const token =
            kind === 'truncate' ? base.slice(0, index) : kind === 'insert' ? base.slice(0, index) + character + base.slice(index) : base.slice(0, index) + character + base.slice(index + 1);
          // The property is the agreement; jose itself accepts a change that decodes to the same bytes (whitespace
          // inside a part, the unused low bits of a part's last character), and so then does the fast path.
          await expectSameAnswer(token);
        },
      ),
      { numRuns: 3000 },
    );
    // The changes that keep our shape (a character of the alphabet inside the IV, ciphertext or tag): about a fifth.
    expect(fastDecided).toBeGreaterThan(400);
  });

  it('on re-headered tokens (alg, enc, zip, crit, kid, extra fields, non-objects)', async () => {
    const valid = await encode({ token: { sub: 'u1' }, secret: secrets, salt });
    const [, ...rest] = valid.split('.');
    const headers = fc.oneof(
      fc.record(
        {
          alg: fc.constantFrom('dir', 'A256KW', 'none', 'DIR', 1),
          enc: fc.constantFrom('A256CBC-HS512', 'A256GCM', 'A128CBC-HS256', null),
          kid: fc.oneof(fc.string(), fc.constant(7)),
          zip: fc.constant('DEF'),
          crit: fc.constant(['exp']),
          typ: fc.constant('JWT'),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
      // Our shape with a kid no secret has (or not a string): decided by the fast path, refused.
      fc.record({ alg: fc.constant('dir'), enc: fc.constant('A256CBC-HS512'), kid: fc.oneof(fc.string(), fc.constant(7)) }),
    );
    fastDecided = 0;
    await fc.assert(
      fc.asyncProperty(headers, async (header) => {
        const token = [base64url.encode(JSON.stringify(header)), ...rest].join('.');
        const outcome = await expectSameAnswer(token);
        expect(outcome.ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
    expect(fastDecided).toBeGreaterThan(50);
  });

  it('on foreign tokens: signed JWTs, other encryptions, random text', async () => {
    const { key } = await deriveKey(newest, salt, 'A256GCM');
    const gcm = await new CompactEncrypt(new TextEncoder().encode('{"sub":"gcm"}')).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(key);
    expect(await expectSameAnswer(gcm)).toMatchObject({ ok: true, payload: { sub: 'gcm' } });
    const signed = await new SignJWT({ sub: 'u1' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(newest));
    expect((await expectSameAnswer(signed)).ok).toBe(false);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.array(fc.base64String(), { minLength: 5, maxLength: 5 }).map((parts) => parts.join('.'))), async (token) => {
        expect((await expectSameAnswer(token)).ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('interoperates with @auth/core both ways, through the fast path', async () => {
    await fc.assert(
      fc.asyncProperty(claims, async (token) => {
        const theirs = await authjsEncode({ token, secret: newest, salt });
        fastDecided = 0;
        const mine = await viaFastPath(theirs);
        expect(fastDecided).toBe(1);
        expect(mine).toMatchObject({ ok: true, payload: JSON.parse(JSON.stringify(token)) });
        const ours = await encode({ token, secret: [newest], salt });
        expect(await authjsDecode({ token: ours, secret: newest, salt })).toMatchObject(JSON.parse(JSON.stringify(token)));
        expect(await decode({ token: theirs, secret: [newest, older], salt })).toMatchObject(JSON.parse(JSON.stringify(token)));
      }),
      { numRuns: 200 },
    );
  });
});
