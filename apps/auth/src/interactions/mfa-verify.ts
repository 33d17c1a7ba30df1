/**
 * POST /mfa/verify: the second factor. Rules:
 * - only after a passed password step on this same interaction (else 400 password_required), and
 *   one of the methods `totp` (default), `push`, `recovery`, `passkey` (mfa/read-mfa-request.ts);
 * - a banned account or IP is refused before the factor is checked (429); wrong codes count
 *   against the account and the IP like password failures (mfa/second-factor-attempt.ts);
 * - `totp`: RFC 6238, each time step accepted once per account; the first valid code of an
 *   enrollment stores the secret and the recovery codes shown with it (mfa/verify-totp.ts,
 *   mfa/enroll-totp.ts);
 * - `push` starts (or shows again) the login's push and answers WAITING; once the push is
 *   approved, the login completes on GET /mfa/push/<id> (push-poll.ts) or on the next
 *   `method=push` post alike (mfa/verify-push.ts);
 * - `recovery` accepts one unused recovery code of the account, once (mfa/verify-recovery-code.ts);
 * - `passkey` accepts a WebAuthn assertion of one of the account's credentials answering this
 *   login's challenge (POST /mfa/passkey/options), once (mfa/verify-passkey.ts);
 * - success finishes the interaction and resumes the authorization inside this request, so the
 *   answer is oidc-provider's own redirect to the client (302, `code` + `state`) and its session
 *   cookie, with the method's amr (mfa/complete-login.ts);
 * - any other refusal re-renders the challenge with the error's status and message, the refused
 *   method offered first (http/form-page.ts); a browser's form post gets 303 to
 *   `/interaction/<uid>`, which shows that page once (step-refusal.ts: Back and reload never post
 *   a code again).
 */
import type { Context, Next } from 'koa';
import type { AuthError } from '../errors/auth-error.ts';
import { formPage } from '../http/form-page.ts';
import type { ParsedBody } from '../http/read-body.ts';
import { renderMfaStep, type MfaStepDeps } from './mfa-step.ts';
import { isMfaMethod } from '../mfa/factor-order.ts';
import { readMfaRequest, readSecondFactor, type MfaRequest, type ReadMfaRequestDeps } from './mfa/read-mfa-request.ts';
import { regulateSecondFactor, type SecondFactorAttemptDeps } from './mfa/second-factor-attempt.ts';
import { verifyPush, type VerifyPushDeps } from './mfa/verify-push.ts';
import { verifyRecoveryCode, type VerifyRecoveryCodeDeps } from './mfa/verify-recovery-code.ts';
import { verifyTotp, type VerifyTotpDeps } from './mfa/verify-totp.ts';
import { verifyPasskey, type VerifyPasskeyDeps } from './mfa/verify-passkey.ts';
import { redirectRefusal, type StepRefusalDeps } from './step-refusal.ts';

export type MfaVerifyDeps = ReadMfaRequestDeps & SecondFactorAttemptDeps & VerifyTotpDeps & VerifyPushDeps & VerifyRecoveryCodeDeps & VerifyPasskeyDeps & MfaStepDeps & StepRefusalDeps;

export function createMfaVerifyHandler(deps: MfaVerifyDeps) {
  return async function mfaVerify(ctx: Context, next: Next): Promise<void> {
    await formPage(ctx, {
      read: () => readMfaRequest(ctx, deps),
      async run(request) {
        const factor = readSecondFactor(request.body);
        const attempt = await regulateSecondFactor(ctx, deps, request.pending, factor.method);
        if (factor.method === 'push') await verifyPush(ctx, next, deps, request);
        else if (factor.method === 'recovery') await verifyRecoveryCode(ctx, next, deps, request, factor.code, attempt);
        else if (factor.method === 'passkey') await verifyPasskey(ctx, next, deps, request, factor.credential, attempt);
        else await verifyTotp(ctx, next, deps, request, factor.code, attempt);
      },
      page: (error, request) => renderRefusal(ctx, deps, request, error),
    });
  };
}

/**
 * The challenge again, with the refusal's status and message (after a redirect for a browser's
 * form post); a login to start over is the error middleware's.
 */
async function renderRefusal(ctx: Context, deps: MfaStepDeps & StepRefusalDeps, request: MfaRequest & { body: ParsedBody }, error: AuthError): Promise<boolean> {
  if (error.code === 'interaction_expired' || error.code === 'password_required') return false;
  const { interaction, pending, json } = request;
  const method = request.body.fields.method ?? 'totp';
  const using = isMfaMethod(method) ? method : undefined;
  if (redirectRefusal(ctx, deps, { uid: interaction.uid, json }, { step: 'mfa', error, ...(using ? { using } : {}) })) return true;
  await renderMfaStep(ctx, deps, { interaction, pending, json, status: error.status, error: { code: error.code, message: error.message, headers: error.headers, detail: error.detail }, ...(using ? { using } : {}) });
  return true;
}
