/**
 * The registration ceremony: a signed-in user adds a passkey or security key. Rules:
 * - options: the RP of the issuer, attestation `none`, a resident key preferred (so it can sign
 *   in without a username), user verification preferred, ES256/EdDSA/RS256, the user's
 *   existing credentials excluded, a fresh challenge bound to the account;
 * - the answer must use that challenge (once, unexpired), come from the issuer's origin for its
 *   RP ID and carry a valid attestation; else 400 with the refusal's code;
 * - a credential id already registered (to anyone) is refused, 409 passkey_already_registered;
 * - the stored credential keeps its public key, counter, transports and backup state.
 */
import type { PublicKeyCredentialCreationOptionsJSON, VerifiedRegistrationResponse } from '@simplewebauthn/server';
import { AuthError } from '../errors/auth-error.ts';
import type { ChallengeStore } from './challenge-store.ts';
import { PASSKEY_TIMEOUT_MS, PasskeyRefused, type RelyingParty } from './passkey-policy.ts';
import type { Passkey, PasskeyStore } from './passkey-store.ts';
import { readRegistration } from './read-credential.ts';
import { webauthn } from './webauthn.ts';

export interface RegistrationDeps {
  passkeys: PasskeyStore;
  challenges: ChallengeStore;
  rp: RelyingParty;
}

interface RegisteringAccount {
  id: string;
  username: string;
  name: string;
}

export const accountBinding = (accountId: string): string => `account:${accountId}`;

/** The WebAuthn user handle of an account: its id's UTF-8 bytes (base64url in JSON). */
export const userHandleOf = (accountId: string): string => Buffer.from(accountId, 'utf8').toString('base64url');

export async function registrationOptions(deps: RegistrationDeps, account: RegisteringAccount): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await deps.passkeys.listByAccount(account.id);
  const challenge = await deps.challenges.issue('registration', accountBinding(account.id));
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: deps.rp.name,
    rpID: deps.rp.id,
    userName: account.username,
    userDisplayName: account.name || account.username,
    userID: new Uint8Array(Buffer.from(userHandleOf(account.id), 'base64url')),
    // Bytes: the library base64url-encodes them, so the options carry the stored string as is.
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: PASSKEY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports as never })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
}

/** The transports the browser reported, kept only when they are a short list of short words. */
function transportsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string' && /^[a-z-]{1,16}$/.test(t)).slice(0, 8) : [];
}

export async function verifyRegistration(deps: RegistrationDeps, accountId: string, name: string, credential: string): Promise<Passkey> {
  const { response, challenge } = readRegistration(credential);
  if (!(await deps.challenges.take(challenge, 'registration', accountBinding(accountId)))) throw new PasskeyRefused('invalid_challenge', 400);
  const { verifyRegistrationResponse } = await webauthn();
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
      requireUserVerification: false,
    });
  } catch (cause) {
    throw new PasskeyRefused('verification_failed', 400, cause);
  }
  if (!verified.verified || !verified.registrationInfo) throw new PasskeyRefused('verification_failed', 400);
  const info = verified.registrationInfo;
  const passkey = {
    id: info.credential.id,
    accountId,
    name,
    publicKey: info.credential.publicKey,
    counter: info.credential.counter,
    transports: transportsOf(info.credential.transports ?? response.response.transports),
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
  if (!(await deps.passkeys.add(passkey))) throw new AuthError(409, 'passkey_already_registered', 'This passkey is already registered.');
  return (await deps.passkeys.find(passkey.id))!;
}
