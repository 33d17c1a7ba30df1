/**
 * POST /mfa/verify: the second factor.
 * Rules:
 * - only after a passed password step on this same interaction (else 400 password_required);
 * - a banned account or IP is refused before the code is checked (429);
 * - TOTP per RFC 6238 (SHA-1, 6 digits, 30 s, ±1 step); each time step is accepted once per
 *   account, so a replayed code is refused;
 * - when a TOTP secret is being enrolled, the first valid code stores it (encrypted) and logs in;
 * - failures count against the account and the IP like password failures;
 * - success finishes the interaction and resumes the authorization inside this request, so the
 *   answer is oidc-provider's own redirect to the client (302, `code` + `state`) and its session cookie;
 * - `method=push` starts (or shows again) the login's push and answers WAITING (push-challenge.ts
 *   has its rules); once the push is approved, the login completes on GET /mfa/push/<id>
 *   (push-poll.ts, what the waiting page follows) or on the next `method=push` post alike;
 * - `method=recovery` accepts one unused recovery code of the account, once; a wrong one counts
 *   toward the lockout like a wrong TOTP code.
 * amr values (RFC 8176): TOTP and recovery codes `pwd otp`; push `pwd swk user` (proof of a
 * software-held device key, plus the user's presence shown by picking the number).
 */
import type { Context, Next } from 'koa';
import { AuthError, invalidRequest, tooManyAttempts } from '../errors/auth-error.ts';
import { readBody, requireField, type ParsedBody } from '../http/read-body.ts';
import { audit } from '../logging/logger.ts';
import { startPush } from '../push/push-challenge.ts';
import type { PushTransaction } from '../push/push-store.ts';
import { clientName, loadInteraction, pendingLogin, redirectOrigin, type Interaction, type PendingLogin } from './interaction-state.ts';
import { regulationKeys } from './login.ts';
import { renderMfaStep } from './mfa-step.ts';
import { applyErrorHeaders } from './respond.ts';
import type { InteractionDeps } from './deps.ts';
import type { SecondFactorMethod } from '../metrics/auth-metrics.ts';

export const AMR_TOTP = ['pwd', 'otp'] as const;
export const AMR_PUSH = ['pwd', 'swk', 'user'] as const;
export const AMR_RECOVERY = ['pwd', 'otp'] as const;
const METHODS = new Set(['totp', 'push', 'recovery']);

export function createMfaVerifyHandler(deps: InteractionDeps) {
  return async function mfaVerify(ctx: Context, next: Next): Promise<void> {
    const provider = deps.provider();
    let body: ParsedBody | undefined;
    let interaction: Interaction | undefined;
    let pending: PendingLogin | undefined;
    try {
      body = await readBody(ctx);
      interaction = await loadInteraction(provider, ctx, body.fields.uid);
      pending = pendingLogin(interaction);
      if (!pending) throw new AuthError(400, 'password_required', 'Enter your username and password first.');
      const method = body.fields.method ?? 'totp';
      if (!METHODS.has(method)) throw invalidRequest(`Unsupported second-factor method "${method}".`);
      const code = method === 'push' ? '' : requireField(body, 'code', method === 'recovery' ? 64 : 16).replace(/\s+/g, '');

      const keys = regulationKeys(pending.username, ctx.ip);
      const ban = await deps.regulator.check(keys);
      if (ban.banned) {
        audit(deps.logger, 'login.lockout', { account_id: pending.accountId, ip: ctx.ip, step: 'mfa' });
        deps.metrics.login('mfa', 'locked');
        throw tooManyAttempts(ban.retryAfterSeconds);
      }
      const fail = async (error: AuthError): Promise<never> => {
        const after = await deps.regulator.fail(keys);
        audit(deps.logger, 'login.mfa.failure', { account_id: pending!.accountId, ip: ctx.ip, reason: error.code, method });
        deps.metrics.login('mfa', 'failure');
        deps.metrics.secondFactor(method as SecondFactorMethod, 'failure');
        if (after.banned) {
          audit(deps.logger, 'login.lockout', { account_id: pending!.accountId, ip: ctx.ip, step: 'mfa' });
          deps.metrics.lockout('mfa');
        }
        throw error;
      };

      if (method === 'push') {
        const latest = await deps.pushes.findLatest(interaction.uid);
        if (latest?.state === 'APPROVED' && latest.completedAt === null && latest.accountId === pending.accountId) {
          await completeApprovedPush(ctx, next, deps, interaction, latest, body.json);
          return;
        }
        const transaction = await startPush(deps, {
          accountId: pending.accountId,
          interactionUid: interaction.uid,
          clientName: await clientName(provider, interaction),
          ip: ctx.ip,
          userAgent: ctx.get('user-agent'),
        });
        await renderMfaStep(ctx, deps, { interaction, pending, json: body.json, status: 200, push: transaction });
        return;
      }
      if (method === 'recovery') {
        const result = await deps.recoveryCodes.consume(pending.accountId, code);
        if (result === 'used') await fail(new AuthError(401, 'code_replayed', 'That recovery code was already used. Each recovery code works once.'));
        if (result !== 'accepted') await fail(new AuthError(401, 'invalid_code', 'That recovery code is not valid.'));
        audit(deps.logger, 'recovery.used', { account_id: pending.accountId, ip: ctx.ip });
        audit(deps.logger, 'login.mfa.success', { account_id: pending.accountId, ip: ctx.ip, method: 'recovery' });
        deps.metrics.login('mfa', 'success');
        deps.metrics.secondFactor('recovery', 'success');
        await finishLogin(ctx, next, deps, interaction, pending.accountId, AMR_RECOVERY, body.json);
        return;
      }

      const enrolling = pending.pendingTotpSecret !== undefined;
      const secret = enrolling ? deps.box.open(pending.pendingTotpSecret!) : await deps.accounts.getTotpSecret(pending.accountId);
      if (!secret) throw new AuthError(400, 'password_required', 'No second factor is set up for this account; sign in again.');

      const step = /^\d{6}$/.test(code) ? await deps.totp.verify(secret, code, deps.clock()) : null;
      if (step === null) await fail(new AuthError(401, 'invalid_code', 'That code is not valid. Check the code in your authenticator app and try again.'));
      if (enrolling) {
        await deps.accounts.setTotpSecret(pending.accountId, secret);
        audit(deps.logger, 'login.mfa.enrolled', { account_id: pending.accountId });
        if (pending.pendingRecoveryCodes) {
          await deps.recoveryCodes.store(pending.accountId, JSON.parse(deps.box.open(pending.pendingRecoveryCodes)) as string[]);
          audit(deps.logger, 'recovery.issued', { account_id: pending.accountId, via: 'totp-enrollment' });
        }
      }
      if (!(await deps.accounts.consumeTotpStep(pending.accountId, step!))) {
        await fail(new AuthError(401, 'code_replayed', 'That code was already used. Wait for the next code and try again.'));
      }
      audit(deps.logger, 'login.mfa.success', { account_id: pending.accountId, ip: ctx.ip, method: 'totp' });
      deps.metrics.login('mfa', 'success');
      deps.metrics.secondFactor('totp', 'success');
      await finishLogin(ctx, next, deps, interaction, pending.accountId, AMR_TOTP, body.json);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      applyErrorHeaders(ctx, error);
      if (!interaction || !pending || !body || error.code === 'interaction_expired' || error.code === 'password_required') throw error;
      await renderMfaStep(ctx, deps, {
        interaction,
        pending,
        json: body.json,
        status: error.status,
        error: { code: error.code, message: error.message },
      });
    }
  };
}

/** Finishes the login of an APPROVED push (once per approval) with the push's amr. */
export async function completeApprovedPush(ctx: Context, next: Next, deps: InteractionDeps, interaction: Interaction, push: PushTransaction, json: boolean): Promise<void> {
  if (!(await deps.pushes.complete(push.id))) throw new AuthError(409, 'push_already_decided', 'This approval was already used. Send a new push.');
  audit(deps.logger, 'login.mfa.success', { account_id: push.accountId, ip: ctx.ip, method: 'push', push_id: push.id });
  deps.metrics.login('mfa', 'success');
  deps.metrics.secondFactor('push', 'success');
  await finishLogin(ctx, next, deps, interaction, push.accountId, AMR_PUSH, json);
}

/** Ends the interaction as logged in with these factors and answers with the redirect to the client. */
export async function finishLogin(
  ctx: Context,
  next: Next,
  deps: InteractionDeps,
  interaction: Interaction,
  accountId: string,
  amr: readonly string[],
  json: boolean,
): Promise<void> {
  const returnTo = await deps.provider().interactionResult(
    ctx.req,
    ctx.res,
    { login: { accountId, amr: [...amr], acr: 'urn:gatehouse:loa:mfa', remember: true, ts: Math.floor(Date.now() / 1000) } },
    { mergeWithLastSubmission: false },
  );
  await resumeAuthorization(ctx, next, returnTo, redirectOrigin(interaction), json);
}

/**
 * Runs oidc-provider's resume endpoint within this request: the browser receives the final
 * redirect to the client directly. The resume cookie (scoped to `/`) was sent with this request,
 * so oidc-provider's own binding check applies unchanged.
 */
export async function resumeAuthorization(ctx: Context, next: Next, returnTo: string, origins: string[], json: boolean): Promise<void> {
  ctx.state.formActionOrigins = origins;
  ctx.method = 'GET';
  ctx.url = new URL(returnTo).pathname;
  await next();
  const location = ctx.response.get('Location');
  if (json && location && (ctx.status === 302 || ctx.status === 303)) {
    ctx.status = 302;
    ctx.body = { status: 'complete', redirect_to: location };
  }
}
