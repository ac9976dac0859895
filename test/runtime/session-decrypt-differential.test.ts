// The node:crypto opening of our own session cookie (templates/runtime/session/session-decrypt.ts) against jose's jwtDecrypt
// (issue 16): many thousands of valid, expired, not-yet-valid, truncated, bit-flipped, re-headered, wrong-secret and
// foreign tokens get the same accept/reject and the same claims through both; tokens interoperate both ways with
// @auth/core. The fast path must also actually run: every case counts how often it decided.
import { decode as authjsDecode, encode as authjsEncode } from '@auth/core/jwt';
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
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

/**
 * A token of our exact shape whose ciphertext is any bytes at all, with the real key's tag over them (RFC 7518 §5.2.2.1):
 * what only a holder of the key could make, so it reaches decryption. For plaintexts whose padding is wrong, ciphertexts
 * of a length that is not whole blocks, and an empty one.
 */
async function forge(ciphertext: Uint8Array, iv: Uint8Array = randomBytes(16)): Promise<string> {
  const { key, kid } = await deriveKey(newest, salt, 'A256CBC-HS512');
  const protectedHeader = base64url.encode(JSON.stringify({ alg: 'dir', enc: 'A256CBC-HS512', kid }));
  const aad = Buffer.from(protectedHeader, 'ascii');
  const aadBits = Buffer.alloc(8);
  aadBits.writeBigUInt64BE(BigInt(aad.length * 8));
  const tag = createHmac('sha512', key.subarray(0, 32)).update(aad).update(iv).update(ciphertext).update(aadBits).digest().subarray(0, 32);
  return [protectedHeader, '', base64url.encode(iv), base64url.encode(ciphertext), base64url.encode(tag)].join('.');
}

/** `plaintext` (whole blocks, its padding whatever it is) encrypted with AES-256-CBC and the newest key, no padding added. */
async function encryptBlocks(plaintext: Uint8Array, iv: Uint8Array): Promise<Uint8Array> {
  const { key } = await deriveKey(newest, salt, 'A256CBC-HS512');
  const cipher = createCipheriv('aes-256-cbc', key.subarray(32, 64), iv);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(plaintext), cipher.final()]);
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

  it('on a proven tag over bad padding, partial blocks or nothing: refused by both, and the next token still opens', async () => {
    const valid = await encode({ token: { sub: 'u1' }, secret: secrets, salt });
    const json = new TextEncoder().encode('{"sub":"padded"}');
    // The claims (spaces after them, which JSON allows, to fill the block), then n bytes of padding: right (each n), or
    // one of them wrong, or n = 0 or 17 (never valid).
    const padded = fc.tuple(fc.integer({ min: 0, max: 17 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 255 })).map(([n, wrongAt, wrongValue]) => {
      const count = Math.min(Math.max(n, 1), 16);
      const bytes = new Uint8Array(Math.ceil((json.length + count) / 16) * 16).fill(0x20);
      bytes.set(json);
      bytes.fill(n, bytes.length - count);
      if (wrongAt < count && wrongValue !== n) bytes[bytes.length - 1 - wrongAt] = wrongValue;
      return bytes;
    });
    fastDecided = 0;
    let opened = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          padded.map((plaintext) => ({ plaintext })),
          fc.uint8Array({ minLength: 16, maxLength: 96 }).filter((bytes) => bytes.length % 16 === 0).map((plaintext) => ({ plaintext })),
          fc.uint8Array({ minLength: 0, maxLength: 70 }).map((ciphertext) => ({ ciphertext })),
        ),
        async (made) => {
          const iv = randomBytes(16);
          const token = await forge('ciphertext' in made ? made.ciphertext : await encryptBlocks(made.plaintext, iv), iv);
          if ((await expectSameAnswer(token)).ok) opened += 1;
          // A ciphertext of partial blocks never reaches the key's block decryption: a token after it still opens.
          expect(await expectSameAnswer(valid)).toMatchObject({ ok: true, payload: { sub: 'u1' } });
        },
      ),
      { numRuns: 1500 },
    );
    // Every forged token has our shape and a good tag, so the fast path decided each (and each valid one after it).
    expect(fastDecided).toBe(3000);
    // Right padding opens (about a fifth of the cases: n from 1 to 16 and no byte made wrong); everything else is refused.
    expect(opened).toBeGreaterThan(100);
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
