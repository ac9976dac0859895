/**
 * A software WebAuthn authenticator for tests that run without a browser: it answers the options of
 * `<mount>/webauthn-options/<id>` with real registration (attestation `none`) and authentication responses, signed
 * with its own P-256 key, which the real `Passkey()` ceremonies (@simplewebauthn/server) verify. One instance holds
 * one credential, like a security key with one passkey on it.
 * @see https://www.w3.org/TR/webauthn-3/#sctn-attestation
 */
import { type KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** The part of the registration options the authenticator reads. */
export interface RegistrationOptionsJson {
  challenge: string;
  rp: { id?: string };
  user: { id: string; name: string };
}

/** The part of the authentication options the authenticator reads. */
export interface AuthenticationOptionsJson {
  challenge: string;
  rpId?: string;
}

// --- A CBOR encoder for what attestation objects and COSE keys hold (RFC 8949): integers, strings, bytes, maps.

function head(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value]);
  if (value < 0x10000) return Buffer.from([(major << 5) | 25, value >> 8, value & 0xff]);
  const buffer = Buffer.alloc(5);
  buffer[0] = (major << 5) | 26;
  buffer.writeUInt32BE(value, 1);
  return buffer;
}

type CborValue = number | string | Uint8Array | Map<number | string, CborValue>;

function cbor(value: CborValue): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [key, entry] of value) parts.push(cbor(key), cbor(entry));
  return Buffer.concat(parts);
}

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_CREDENTIAL = 0x40;

function rpIdHash(rpId: string): Buffer {
  return createHash('sha256').update(rpId).digest();
}

function counterBytes(counter: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(counter);
  return buffer;
}

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: { x: Buffer; y: Buffer };
  private counter = 0;
  /** The user handle the relying party gave at registration. */
  private userHandle: string | undefined;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    this.privateKey = privateKey;
    this.publicKey = { x: Buffer.from(jwk.x!, 'base64url'), y: Buffer.from(jwk.y!, 'base64url') };
  }

  /** The credential id as the browser sends it (base64url). */
  get id(): string {
    return this.credentialId.toString('base64url');
  }

  /** `navigator.credentials.create()`: the registration response JSON for `options`, made at `origin`. */
  register(options: RegistrationOptionsJson, origin: string): Record<string, unknown> {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    this.userHandle = options.user.id;
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
    // COSE_Key of an ES256 public key (RFC 9053 §7.1.1): kty EC2, alg -7, crv P-256, x, y.
    const coseKey = cbor(new Map<number, CborValue>([[1, 2], [3, -7], [-1, 1], [-2, this.publicKey.x], [-3, this.publicKey.y]]));
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      rpIdHash(rpId),
      Buffer.from([FLAG_USER_PRESENT | FLAG_USER_VERIFIED | FLAG_ATTESTED_CREDENTIAL]),
      counterBytes(this.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      coseKey,
    ]);
    const attestationObject = cbor(new Map<string, CborValue>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: clientDataJSON.toString('base64url'), attestationObject: attestationObject.toString('base64url'), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** `navigator.credentials.get()`: the assertion JSON for `options`, made at `origin`, with the next counter. */
  authenticate(options: AuthenticationOptionsJson, origin: string): Record<string, unknown> {
    const rpId = options.rpId ?? new URL(origin).hostname;
    this.counter += 1;
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const authenticatorData = Buffer.concat([rpIdHash(rpId), Buffer.from([FLAG_USER_PRESENT | FLAG_USER_VERIFIED]), counterBytes(this.counter)]);
    // ECDSA over authenticatorData || SHA-256(clientDataJSON), DER-encoded as WebAuthn expects for ES256.
    const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(this.userHandle !== undefined && { userHandle: this.userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
