/**
 * The passkey method (a WebAuthn assertion as the second factor). Rules:
 * - the assertion must answer a challenge issued to this login (POST /mfa/passkey/options), once,
 *   with one of the account's own credentials (passkeys/authentication.ts has the checks);
 * - user verification is preferred, not required: the password was the first factor; the amr is
 *   `pwd` + `hwk` or `swk` (+ `user` when verified);
 * - every refusal counts toward the lockout like a wrong code (second-factor-attempt.ts) and answers
 *   401 with its stable code; a counter regression is also audited `passkey.clone_suspected`.
 */
import type { Context, Next } from 'koa';
import { PasskeyAssertionRefused, verifyAuthentication } from '../../passkeys/authentication.ts';
import { auditCloneSuspected } from '../../passkeys/audit-clone.ts';
import { ceremonyDeps, type CeremonyServices } from '../../passkeys/ceremony-deps.ts';
import type { PasskeyErrorCode } from '../../passkeys/passkey-policy.ts';
import type { HandlerServices } from '../deps.ts';
import { completeLogin, passkeyAmr, type CompleteLoginDeps } from './complete-login.ts';
import type { MfaRequest } from './read-mfa-request.ts';
import type { MfaAttempt } from './second-factor-attempt.ts';

export type VerifyPasskeyDeps = CompleteLoginDeps & CeremonyServices & Pick<HandlerServices, 'audit'>;

export async function verifyPasskey(ctx: Context, next: Next, deps: VerifyPasskeyDeps, request: MfaRequest, credential: string, attempt: MfaAttempt): Promise<void> {
  const { interaction, pending } = request;
  let verified: Awaited<ReturnType<typeof verifyAuthentication>>;
  try {
    verified = await verifyAuthentication(ceremonyDeps(deps), interaction.uid, credential, { userVerification: 'preferred', accountId: pending.accountId });
  } catch (error) {
    if (!(error instanceof PasskeyAssertionRefused)) throw error;
    auditCloneSuspected(ctx, deps.audit, error);
    return attempt.fail(error.code as PasskeyErrorCode, error.message);
  }
  const { passkey, userVerified } = verified;
  await completeLogin(ctx, next, deps, request, pending.accountId, { method: 'passkey', credentialId: passkey.id, amr: passkeyAmr(passkey.deviceType, userVerified) });
}
