/**
 * The authentication ceremony, for a login's interaction (passwordless or second factor). Rules:
 * - options: a fresh challenge bound to the interaction; passwordless lists no credential (the
 *   authenticator offers its discoverable ones, conditional UI included), the second factor
 *   lists the account's credentials;
 * - the answer must use that challenge (once, unexpired: else passkey_challenge_invalid), name a
 *   registered credential (of `accountId` when given, and of the user its user handle names, when
 *   the authenticator sends one: else passkey_unknown), come from the
 *   issuer's origin for its RP ID with a valid signature (else passkey_invalid), and show user
 *   verification when the policy requires it (else passkey_user_not_verified);
 * - clone detection: when the authenticator keeps a counter, it must have grown past the stored
 *   one; otherwise the use is refused (passkey_cloned) and the counter stays; the stored counter
 *   moves by compare-and-set, so a concurrent use of the same value loses the same way;
 * - a use updates the counter and the last-use time.
 */
import type { PublicKeyCredentialRequestOptionsJSON, VerifiedAuthenticationResponse } from '@simplewebauthn/server';
import type { ChallengeStore } from './challenge-store.ts';
import { PASSKEY_TIMEOUT_MS, PasskeyRefused, type PasskeyRefusalReason, type RelyingParty } from './passkey-policy.ts';
import type { Passkey, PasskeyStore } from './passkey-store.ts';
import { readAuthentication } from './read-credential.ts';
import { userHandleOf } from './registration.ts';
import { webauthn } from './webauthn.ts';

export interface AuthenticationDeps {
  passkeys: PasskeyStore;
  challenges: ChallengeStore;
  rp: RelyingParty;
  clock: () => number;
}

export type UserVerificationPolicy = 'required' | 'preferred';

export const interactionBinding = (uid: string): string => `interaction:${uid}`;

/** A refusal that names the credential it concerned, when one was found (for audit and regulation). */
export class PasskeyAssertionRefused extends PasskeyRefused {
  readonly passkey: Passkey | undefined;
  /** On counter regression: the stored and the presented counter. */
  readonly counters: { stored: number; presented: number } | undefined;

  constructor(reason: PasskeyRefusalReason, passkey?: Passkey, cause?: unknown, counters?: { stored: number; presented: number }) {
    super(reason, 401, cause);
    this.passkey = passkey;
    this.counters = counters;
  }
}

export interface VerifiedAssertion {
  passkey: Passkey;
  userVerified: boolean;
}

export async function authenticationOptions(
  deps: AuthenticationDeps,
  uid: string,
  options: { userVerification: UserVerificationPolicy; allow?: Passkey[] },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await deps.challenges.issue('authentication', interactionBinding(uid));
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({
    rpID: deps.rp.id,
    // Bytes: the library base64url-encodes them, so the options carry the stored string as is.
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: PASSKEY_TIMEOUT_MS,
    userVerification: options.userVerification,
    allowCredentials: (options.allow ?? []).map((p) => ({ id: p.id, transports: p.transports as never })),
  });
}

export async function verifyAuthentication(
  deps: AuthenticationDeps,
  uid: string,
  credential: string,
  options: {
    userVerification: UserVerificationPolicy;
    /** Only this account's credentials are accepted (the second factor). */
    accountId?: string;
    /** Runs once the credential is known, before its signature is checked (ban checks). */
    beforeVerify?: (passkey: Passkey) => Promise<void>;
  },
): Promise<VerifiedAssertion> {
  const { response, challenge } = readAuthentication(credential);
  if (!(await deps.challenges.take(challenge, 'authentication', interactionBinding(uid)))) throw new PasskeyAssertionRefused('invalid_challenge');
  const passkey = await deps.passkeys.find(response.id);
  if (!passkey) throw new PasskeyAssertionRefused('unknown_credential');
  if (options.accountId !== undefined && passkey.accountId !== options.accountId) throw new PasskeyAssertionRefused('foreign_credential');
  // A discoverable credential names its user (the user.id given at registration): it must be the owner.
  const userHandle = response.response.userHandle;
  if (userHandle && userHandle !== userHandleOf(passkey.accountId)) throw new PasskeyAssertionRefused('foreign_credential', passkey);
  await options.beforeVerify?.(passkey);

  const { verifyAuthenticationResponse } = await webauthn();
  let verified: VerifiedAuthenticationResponse;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
      // The counter is checked below (with its own refusal and audit), not by the library.
      credential: { id: passkey.id, publicKey: passkey.publicKey as Uint8Array<ArrayBuffer>, counter: 0 },
      requireUserVerification: false,
    });
  } catch (cause) {
    throw new PasskeyAssertionRefused('verification_failed', passkey, cause);
  }
  if (!verified.verified) throw new PasskeyAssertionRefused('verification_failed', passkey);
  const { newCounter, userVerified } = verified.authenticationInfo;
  if (options.userVerification === 'required' && !userVerified) throw new PasskeyAssertionRefused('user_not_verified', passkey);
  const counters = { stored: passkey.counter, presented: newCounter };
  if ((newCounter > 0 || passkey.counter > 0) && newCounter <= passkey.counter) throw new PasskeyAssertionRefused('counter_regression', passkey, undefined, counters);
  if (!(await deps.passkeys.recordUse(passkey.id, passkey.counter, newCounter, deps.clock()))) {
    throw new PasskeyAssertionRefused('counter_regression', passkey, undefined, counters);
  }
  return { passkey: { ...passkey, counter: newCounter, lastUsedAt: deps.clock() }, userVerified };
}
