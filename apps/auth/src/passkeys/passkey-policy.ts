/**
 * How Gatehouse runs WebAuthn. Rules:
 * - the relying party is the issuer: RP ID = its hostname, the only accepted origin = its origin;
 * - attestation `none` (no authenticator model is trusted or refused by its make);
 * - user verification is `required` for passwordless sign-in (the passkey stands for both
 *   factors) and `preferred` as a second factor and at registration;
 * - each ceremony gives the browser PASSKEY_TIMEOUT_MS, and its challenge lives a little longer
 *   (challenge-store.ts);
 * - every refusal is a 4xx with a stable code and a message a person can act on; `reason` is
 *   what the audit log records.
 */
import type { PasskeyErrorCode, PasskeyRefusalReason } from '../audit/audit-events.ts';
import { AuthError } from '../errors/auth-error.ts';

export const PASSKEY_TIMEOUT_MS = 120_000;

export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingParty(issuer: string): RelyingParty {
  const url = new URL(issuer);
  return { id: url.hostname, origin: url.origin, name: 'Gatehouse' };
}

// The reasons and codes belong to the audit catalogue: a refusal is recorded with its reason.
export type { PasskeyErrorCode, PasskeyRefusalReason };

const REFUSALS: Record<PasskeyRefusalReason, { code: PasskeyErrorCode; message: string }> = {
  invalid_challenge: { code: 'passkey_challenge_invalid', message: 'This passkey request expired or was already used. Try again.' },
  unknown_credential: { code: 'passkey_unknown', message: 'This passkey is not registered with Gatehouse (it may have been removed). Use another sign-in method.' },
  foreign_credential: { code: 'passkey_unknown', message: 'This passkey is not registered with Gatehouse (it may have been removed). Use another sign-in method.' },
  verification_failed: { code: 'passkey_invalid', message: 'The passkey answer could not be verified. Try again.' },
  user_not_verified: { code: 'passkey_user_not_verified', message: 'Your authenticator did not verify you (PIN or biometrics). Try again and unlock it when asked.' },
  counter_regression: { code: 'passkey_cloned', message: 'This passkey was refused because it may have been copied. Use another sign-in method and contact your administrator.' },
};

export class PasskeyRefused extends AuthError {
  readonly reason: PasskeyRefusalReason;

  constructor(reason: PasskeyRefusalReason, status = 401, cause?: unknown) {
    const { code, message } = REFUSALS[reason];
    super(status, code, message, { cause });
    this.reason = reason;
  }
}
