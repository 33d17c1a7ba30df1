/**
 * Time-based one-time passwords (RFC 6238) as authenticator apps expect them. Rules:
 * - SHA-1, 6 digits, 30-second steps, base32 secrets of 20 random bytes;
 * - a code is accepted for the current step and one step either side (clock drift), no more;
 * - input that is not exactly 6 ASCII digits is refused without calling the library;
 * - verify returns the matched time step so the caller can refuse its replay (AccountStore.consumeTotpStep);
 * - the Key URI format forbids colons in the issuer and account name (the label is `issuer:account`),
 *   so uri() replaces them with spaces, e.g. an issuer naming `localhost:3000`.
 */
import { generate, generateSecret, generateURI, verify } from 'otplib';

export interface Totp {
  generateSecret(): string;
  generate(secret: string, nowMs: number): Promise<string>;
  /** The matched RFC 6238 time step (floor(epochSeconds / 30)), or null. */
  verify(secret: string, code: string, nowMs: number): Promise<number | null>;
  uri(secret: string, opts: { issuer: string; label: string }): string;
}

const PERIOD = 30;
const DIGITS = 6;
const SECRET_BYTES = 20;
const SETTINGS = { algorithm: 'sha1', digits: DIGITS, period: PERIOD } as const;

export function createTotp(): Totp {
  return {
    generateSecret: () => generateSecret({ length: SECRET_BYTES }),

    generate: (secret, nowMs) => generate({ ...SETTINGS, secret, epoch: Math.floor(nowMs / 1000) }),

    async verify(secret, code, nowMs) {
      if (!/^[0-9]{6}$/.test(code)) return null;
      const result = await verify({ ...SETTINGS, secret, token: code, epoch: Math.floor(nowMs / 1000), epochTolerance: PERIOD });
      // otplib types the result for both strategies; only the TOTP one carries timeStep.
      return result.valid && 'timeStep' in result ? result.timeStep : null;
    },

    uri: (secret, { issuer, label }) =>
      generateURI({ ...SETTINGS, issuer: withoutColons(issuer), label: withoutColons(label), secret }),
  };
}

function withoutColons(text: string): string {
  return text.replaceAll(':', ' ');
}
