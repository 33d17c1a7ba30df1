/**
 * A software WebAuthn authenticator for tests: ES256 keys from node:crypto, attestation `none`,
 * and the JSON the browser library (@simplewebauthn/browser) would send. Every part a relying
 * party checks can be overridden to build a bad answer: origin, RP ID, challenge, counter,
 * user verification.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { cborEncode } from './cbor.ts';

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

export interface Overrides {
  origin?: string;
  rpId?: string;
  challenge?: string;
  /** The signature counter to report (default: the credential's next value). */
  counter?: number;
  userVerified?: boolean;
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export interface SoftAuthenticatorOptions {
  /** A synced passkey (backup eligible and backed up) instead of a device-bound key. */
  synced?: boolean;
  /** Keep a signature counter (true by default; false reports 0 every time). */
  counter?: boolean;
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  private readonly origin: string;
  private readonly options: SoftAuthenticatorOptions;

  constructor(origin: string, options: SoftAuthenticatorOptions = {}) {
    this.origin = origin;
    this.options = options;
  }

  private flags(userVerified: boolean, attested: boolean): number {
    return 0x01 | (userVerified ? 0x04 : 0) | (this.options.synced ? 0x18 : 0) | (attested ? 0x40 : 0);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** The answer to navigator.credentials.create() for `options` (registration options JSON). */
  register(options: CreationOptions, overrides: Overrides = {}) {
    const rpId = overrides.rpId ?? options.rp.id!;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const id = randomBytes(16);
    const credential: SoftCredential = { id: b64url(id), rpId, userHandle: options.user.id, privateKey, counter: 0 };
    const cose = cborEncode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(overrides.counter ?? 0);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(overrides.userVerified ?? this.options.userVerified ?? true, true)]),
      counter,
      Buffer.alloc(16),
      idLength,
      id,
      cose,
    ]);
    const attestationObject = cborEncode({ fmt: 'none', attStmt: {}, authData });
    this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', overrides.challenge ?? options.challenge, overrides.origin ?? this.origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** The answer to navigator.credentials.get() for `options`, with `credential` (default: the first allowed or held). */
  authenticate(options: RequestOptions, overrides: Overrides & { credential?: SoftCredential } = {}) {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const credential = overrides.credential ?? this.credentials.find((c) => allowed.length === 0 || allowed.includes(c.id));
    if (!credential) throw new Error('no credential for these options');
    const rpId = overrides.rpId ?? options.rpId ?? credential.rpId;
    const next = this.options.counter === false ? 0 : credential.counter + 1;
    const reported = overrides.counter ?? next;
    if (overrides.counter === undefined) credential.counter = next;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(reported);
    const authenticatorData = Buffer.concat([sha256(rpId), Buffer.from([this.flags(overrides.userVerified ?? this.options.userVerified ?? true, false)]), counter]);
    const clientDataJSON = this.clientData('webauthn.get', overrides.challenge ?? options.challenge, overrides.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}
