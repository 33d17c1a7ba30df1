/**
 * A push as the second factor of a password-reset link, for an account whose only factor is an
 * authenticator device (account/password-reset-page.ts). Rules:
 * - POST <link>/push (same origin, a live link) starts the push (push/push-challenge.ts: one live
 *   push at a time, rate-limited, shown on the device as "Password reset") bound to this account's
 *   reset, and answers 303 to GET <link>?push=<id> (JSON: 200 `{ push, number, expires_in }`);
 * - GET <link>/push/<id>/status answers `{ state, expires_in }` (JSON) for the page's poller;
 * - a push of another account or purpose is unknown (404 not_found);
 * - the reset's post names the push in `push`: only an APPROVED push of this reset that has not
 *   been used sets the password, and it is used up with it (else 401 push_not_approved).
 */
import type { Context } from 'koa';
import type { Account } from '../accounts/account-store.ts';
import { AuthError } from '../errors/auth-error.ts';
import { startPush, type PushChallengeDeps } from '../push/push-challenge.ts';
import type { PushTransaction } from '../push/push-store.ts';

/** What a push answers on a reset link: bound to the account's reset, never to a sign-in. */
export const resetPushBinding = (account: Account): string => `password-reset:${account.id}`;

export type ResetPushDeps = PushChallengeDeps;

/** The push `id` of this account's reset, or undefined. */
export async function resetPush(deps: Pick<ResetPushDeps, 'pushes'>, account: Account, id: string): Promise<PushTransaction | undefined> {
  const push = id.length <= 64 ? await deps.pushes.find(id) : undefined;
  return push && push.accountId === account.id && push.interactionUid === resetPushBinding(account) ? push : undefined;
}

export async function sendResetPush(ctx: Context, deps: ResetPushDeps, account: Account): Promise<PushTransaction> {
  return startPush(deps, { accountId: account.id, interactionUid: resetPushBinding(account), clientName: 'Password reset', ip: ctx.ip, userAgent: ctx.get('user-agent') });
}

/** The reset's post with `push`: an approved, unused push of this reset, used up now. */
export async function requireApprovedPush(deps: Pick<ResetPushDeps, 'pushes' | 'clock'>, account: Account, id: string): Promise<void> {
  const push = await resetPush(deps, account, id);
  const approved = push?.state === 'APPROVED' && push.completedAt === null;
  if (!approved || !(await deps.pushes.complete(push.id))) {
    throw new AuthError(401, 'push_not_approved', 'The push was not approved on your authenticator, or was already used. Send a new push.');
  }
}

export const pushSecondsLeft = (push: PushTransaction, now: number): number => Math.max(0, Math.ceil((push.expiresAt - now) / 1000));
