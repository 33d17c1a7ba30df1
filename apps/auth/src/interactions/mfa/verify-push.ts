/**
 * The push method. Rules:
 * - an APPROVED push of this login and account that has not finished a login yet completes it,
 *   once per approval (else 409 push_already_decided);
 * - otherwise the login's push is started, or the live one shown again (push-challenge.ts has
 *   its rules), and the answer is WAITING (200): the number and where to follow the push; a
 *   browser's form post gets 303 to GET /mfa/push/<id>, which shows it (post-redirect-get.ts);
 * - the browser then follows GET /mfa/push/<id> (push-poll.ts), which completes an approval
 *   the same way; the next `method=push` post does too.
 */
import type { Context, Next } from 'koa';
import { AuthError } from '../../errors/auth-error.ts';
import { startPush, type PushChallengeDeps } from '../../push/push-challenge.ts';
import type { PushTransaction } from '../../push/push-store.ts';
import type { HandlerServices } from '../deps.ts';
import { clientName, type Interaction } from '../interaction-state.ts';
import { pushPollPath, renderMfaStep, type MfaStepDeps } from '../mfa-step.ts';
import { redirectsAfterPost, seeOther } from '../post-redirect-get.ts';
import { completeLogin, type CompleteLoginDeps } from './complete-login.ts';
import type { MfaRequest } from './read-mfa-request.ts';

export type CompleteApprovedPushDeps = CompleteLoginDeps & Pick<HandlerServices, 'pushes'>;
export type VerifyPushDeps = CompleteApprovedPushDeps & PushChallengeDeps & MfaStepDeps;

export async function verifyPush(ctx: Context, next: Next, deps: VerifyPushDeps, request: MfaRequest): Promise<void> {
  const { interaction, pending, json } = request;
  const latest = await deps.pushes.findLatest(interaction.uid);
  if (latest?.state === 'APPROVED' && latest.completedAt === null && latest.accountId === pending.accountId) {
    await completeApprovedPush(ctx, next, deps, request, latest);
    return;
  }
  const transaction = await startPush(deps, {
    accountId: pending.accountId,
    interactionUid: interaction.uid,
    clientName: await clientName(deps.provider(), interaction),
    ip: ctx.ip,
    userAgent: ctx.get('user-agent'),
  });
  if (redirectsAfterPost(ctx, json)) seeOther(ctx, pushPollPath(transaction.id));
  else await renderMfaStep(ctx, deps, { interaction, pending, json, status: 200, push: transaction });
}

/** Finishes the login of an APPROVED push (once per approval) with the push's amr. */
export async function completeApprovedPush(
  ctx: Context,
  next: Next,
  deps: CompleteApprovedPushDeps,
  request: { interaction: Interaction; json: boolean },
  push: PushTransaction,
): Promise<void> {
  if (!(await deps.pushes.complete(push.id))) throw new AuthError(409, 'push_already_decided', 'This approval was already used. Send a new push.');
  await completeLogin(ctx, next, deps, request, push.accountId, { method: 'push', pushId: push.id });
}
