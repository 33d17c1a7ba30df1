/**
 * GET /mfa/push/:id (the browser, or a JSON caller, following its push) and
 * GET /mfa/push/:id/status (the waiting page's script: state only, never completes anything).
 * Rules:
 * - the push must belong to this browser's interaction (signed cookie) and its password step,
 *   else 404: a push id alone is worth nothing;
 * - PENDING answers WAITING again (200); APPROVED completes the login exactly like a valid TOTP
 *   code (302 to the redirect URI with `code` + `state`, and the SSO cookie), once per approval;
 * - REJECTED and TIMEOUT answer 401 with the second-factor page, so the user can pick another
 *   factor or send a new push; neither counts toward the lockout. A refusal says which it was:
 *   `push_rejected` (denied on the authenticator), `push_number_mismatch` (a number other than
 *   the one shown here was picked), `push_timeout`;
 *   any refusal once the push is known is shown on that page (http/form-page.ts).
 */
import type { Context, Next } from 'koa';
import { responseFormat } from '@gatehouse/http';
import { AuthError } from '../errors/auth-error.ts';
import { formPage } from '../http/form-page.ts';
import type { PushTransaction } from '../push/push-store.ts';
import { loadInteraction, pendingLogin, type Interaction, type PendingLogin } from './interaction-state.ts';
import { completeApprovedPush, type CompleteApprovedPushDeps } from './mfa/verify-push.ts';
import { renderMfaStep, type MfaStepDeps } from './mfa-step.ts';
import type { HandlerServices } from './deps.ts';

const wantsJson = (ctx: Context): boolean => responseFormat(ctx) === 'json';

type LoadPushDeps = Pick<HandlerServices, 'provider' | 'pushes'>;
export type PushStatusDeps = LoadPushDeps & Pick<HandlerServices, 'clock'>;
export type PushPollDeps = LoadPushDeps & CompleteApprovedPushDeps & MfaStepDeps & Pick<HandlerServices, 'audit' | 'metrics'>;

async function loadPush(ctx: Context, deps: LoadPushDeps): Promise<{ interaction: Interaction; pending: PendingLogin; push: PushTransaction }> {
  const interaction = await loadInteraction(deps.provider(), ctx);
  const pending = pendingLogin(interaction);
  if (!pending) throw new AuthError(400, 'password_required', 'Enter your username and password first.');
  const id = String(ctx.params.id ?? '');
  const push = id.length <= 64 ? await deps.pushes.find(id) : undefined;
  if (!push || push.interactionUid !== interaction.uid || push.accountId !== pending.accountId) {
    throw new AuthError(404, 'not_found', 'No such push request for this sign-in.', { detail: 'not_found.pushOfSignIn' });
  }
  return { interaction, pending, push };
}

export function createPushStatusHandler(deps: PushStatusDeps) {
  return async function pushStatus(ctx: Context): Promise<void> {
    const { push } = await loadPush(ctx, deps);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { state: push.state, expires_in: Math.max(0, Math.ceil((push.expiresAt - deps.clock()) / 1000)) };
  };
}

export function createPushPollHandler(deps: PushPollDeps) {
  return async function pushPoll(ctx: Context, next: Next): Promise<void> {
    const json = wantsJson(ctx);
    await formPage(ctx, {
      read: () => loadPush(ctx, deps),
      async run({ interaction, pending, push }) {
        if (push.state === 'PENDING') {
          await renderMfaStep(ctx, deps, { interaction, pending, json, status: 200, push });
          return;
        }
        if (push.state === 'APPROVED') {
          await completeApprovedPush(ctx, next, deps, { interaction, json }, push);
          return;
        }
        if (push.state === 'REJECTED' && push.refusal === 'number_mismatch') {
          throw new AuthError(
            401,
            'push_number_mismatch',
            `The number picked on your authenticator was not ${push.number}, the one shown here, so the sign-in was refused. Send a new push and pick the number this page shows, or use a code instead.`,
          );
        }
        if (push.state === 'REJECTED') {
          throw new AuthError(401, 'push_rejected', 'The sign-in was denied on your authenticator. Send a new push or use a code instead.');
        }
        deps.audit.record('push.expired', { account_id: pending.accountId, push_id: push.id });
        deps.metrics.secondFactor('push', 'expired');
        throw new AuthError(401, 'push_timeout', 'The push request expired before it was approved. Send a new push or use a code instead.');
      },
      async page(error, { interaction, pending, push }) {
        await renderMfaStep(ctx, deps, {
          interaction,
          pending,
          json,
          status: error.status,
          error: { code: error.code, message: error.message },
          using: 'push',
          extra: { state: push.state },
        });
        return true;
      },
    });
  };
}
