/**
 * Ending a login whose second factor passed. Rules:
 * - the success is audited `login.mfa.success` with its method (and a push's id) and counted, and
 *   a TOTP code, push or passkey is recorded as the account's last used factor (a recovery code is not);
 * - the interaction ends logged in with the method's amr (RFC 8176: TOTP and recovery codes
 *   `pwd otp`; push `pwd swk user`, proof of a software-held device key plus the user's presence
 *   shown by picking the number; a passkey `pwd hwk|swk` and `user` when verified), acr `urn:gatehouse:loa:mfa`, remembered for SSO, at the
 *   injected clock's time (the ID token's `auth_time`);
 * - an account disabled or removed since the password step gets no session: 403
 *   `account_disabled`, audited `login.account_disabled`, as at the password step (a lockdown
 *   during a sign-in would otherwise leave a session that `user enable` brings back);
 * - while the account has recovery codes the user has not confirmed saving (issued by a TOTP
 *   enrollment, accounts/totp-enrollment-store.ts), the passed factor is kept on the pending login
 *   and the codes are shown (recovery-codes-step.ts) instead; "I have saved them" completes the
 *   login with that factor (recovery-codes-saved.ts), so codes are shown until confirmed, then never;
 *   a browser's form post gets 303 to `/interaction/<uid>`, which shows them (post/redirect/get,
 *   post-redirect-get.ts: Back after the sign-in never posts the code again);
 * - a sign-in linking an upstream account links it to this account first (linkUpstreamUser);
 * - after a federated first step (the pending login's `federatedBy`), `fed` stands in the amr
 *   where `pwd` would;
 * - the browser becomes a known device of the account (regulation/known-device.ts), so failures
 *   made elsewhere do not lock the user out on it;
 * - oidc-provider's resume runs inside this request, so the answer is its own redirect to the
 *   client (302, `code` + `state`) with its session cookie; a JSON caller gets
 *   302 `{ status: 'complete', redirect_to }`.
 */
import type { Context, Next } from 'koa';
import { AuthError } from '../../errors/auth-error.ts';
import { AccountLinkError } from '../../federation/account-link-store.ts';
import type { HandlerServices } from '../deps.ts';
import { pendingLogin, redirectOrigin, savePendingLogin, type Interaction, type PassedFactor } from '../interaction-state.ts';
import { renderRecoveryCodesStep } from '../recovery-codes-step.ts';
import { federationState } from '../federated/federation-state.ts';
import { federatedError } from '../federated/federated-refusal.ts';
import { MFA_ACR } from '../../mfa/acr.ts';
import { interactionPath, redirectsAfterPost, resumeSeesOther, seeOther } from '../post-redirect-get.ts';

export const AMR = {
  totp: ['pwd', 'otp'],
  recovery: ['pwd', 'otp'],
  push: ['pwd', 'swk', 'user'],
} as const;

/**
 * A passkey's amr (RFC 8176): `hwk` for a key bound to one authenticator, `swk` for a synced
 * (multi-device) passkey, plus `user` when the authenticator verified the user (PIN, biometrics).
 */
export function passkeyAmr(deviceType: 'singleDevice' | 'multiDevice', userVerified: boolean): string[] {
  return [deviceType === 'multiDevice' ? 'swk' : 'hwk', ...(userVerified ? ['user'] : [])];
}

export type { PassedFactor };

export type CompleteLoginDeps = Pick<HandlerServices, 'provider' | 'clock' | 'audit' | 'metrics' | 'knownDevices' | 'accounts' | 'accountLinks' | 'totpEnrollments' | 'factorPreferences'>;

export async function completeLogin(
  ctx: Context,
  next: Next,
  deps: CompleteLoginDeps,
  request: { interaction: Interaction; json: boolean },
  accountId: string,
  factor: PassedFactor,
  options: { codesSaved?: boolean } = {},
): Promise<void> {
  const account = await deps.accounts.findById(accountId);
  if (!account || account.disabledAt !== null) {
    deps.audit.record('login.account_disabled', { account_id: accountId, ip: ctx.ip });
    throw new AuthError(403, 'account_disabled', 'This account is disabled. Contact your administrator.');
  }
  const pending = pendingLogin(request.interaction);
  if (pending && !options.codesSaved) {
    const unsaved = await deps.totpEnrollments.unsavedCodes(accountId);
    if (unsaved) {
      await savePendingLogin(request.interaction, { ...pending, passed: factor });
      if (redirectsAfterPost(ctx, request.json)) seeOther(ctx, interactionPath(request.interaction.uid));
      else renderRecoveryCodesStep(ctx, { interaction: request.interaction, json: request.json, codes: unsaved });
      return;
    }
  }
  deps.audit.record(
    'login.mfa.success',
    factor.method === 'push'
      ? { account_id: accountId, ip: ctx.ip, method: 'push', push_id: factor.pushId }
      : factor.method === 'passkey'
        ? { account_id: accountId, ip: ctx.ip, method: 'passkey', credential_id: factor.credentialId }
        : { account_id: accountId, ip: ctx.ip, method: factor.method },
  );
  deps.metrics.login('mfa', 'success');
  deps.metrics.secondFactor(factor.method, 'success');
  // The next sign-in offers this factor first, unless the user prefers another (mfa/factor-order.ts).
  if (factor.method !== 'recovery') await deps.factorPreferences.recordUsed(accountId, factor.method);
  await linkUpstreamUser(ctx, deps, request.interaction, accountId);
  const amr = factor.method === 'passkey' ? ['pwd', ...factor.amr] : [...AMR[factor.method]];
  // An upstream provider stood for the password: `fed` in its place.
  if (pendingLogin(request.interaction)?.federatedBy) amr[0] = 'fed';
  await finishLogin(ctx, next, deps, request, accountId, amr);
}

/**
 * A user linking an upstream account (interactions/federated/federated-choice.ts) has just
 * proved the local one with its password and second factor: the upstream user is linked to it,
 * audited `account.linked`. A link the account or the upstream user already has elsewhere is
 * refused (409 already_linked), and no session starts.
 */
async function linkUpstreamUser(ctx: Context, deps: CompleteLoginDeps, interaction: Interaction, accountId: string): Promise<void> {
  const { linking } = federationState(interaction);
  if (!linking) return;
  try {
    await deps.accountLinks.create({ provider: linking.provider, subject: linking.subject, accountId });
  } catch (error) {
    if (!(error instanceof AccountLinkError) || error.code === 'unknown_account') throw error;
    throw federatedError('already_linked', linking.providerName);
  }
  deps.audit.record('account.linked', { account_id: accountId, provider: linking.provider, ip: ctx.ip, via: 'sign_in' });
}

/**
 * Ends the interaction logged in with `amr` (acr `urn:gatehouse:loa:mfa`, remembered for SSO,
 * `auth_time` from the injected clock), makes the browser a known device of the account, and
 * resumes the authorization inside this request. Callers have audited and counted the success.
 */
export async function finishLogin(
  ctx: Context,
  next: Next,
  deps: Pick<HandlerServices, 'provider' | 'clock' | 'knownDevices'>,
  request: { interaction: Interaction; json: boolean },
  accountId: string,
  amr: string[],
): Promise<void> {
  const returnTo = await endLogin(ctx, deps, accountId, amr);
  await resumeAuthorization(ctx, next, returnTo, redirectOrigin(request.interaction), request.json);
}

/**
 * Ends the interaction logged in with `amr` (acr `urn:gatehouse:loa:mfa`, remembered for SSO,
 * `auth_time` from the injected clock) and makes the browser a known device of the account;
 * answers the provider's resume URL, for the caller to resume the authorization.
 */
export async function endLogin(ctx: Context, deps: Pick<HandlerServices, 'provider' | 'clock' | 'knownDevices'>, accountId: string, amr: string[]): Promise<string> {
  deps.knownDevices.remember(ctx, accountId);
  return deps.provider().interactionResult(
    ctx.req,
    ctx.res,
    { login: { accountId, amr, acr: MFA_ACR, remember: true, ts: Math.floor(deps.clock() / 1000) } },
    { mergeWithLastSubmission: false },
  );
}

/**
 * Runs oidc-provider's resume endpoint within this request: the browser receives the final
 * redirect to the client directly. The resume cookie (scoped to `/`) was sent with this request,
 * so oidc-provider's own binding check applies unchanged. When the authorization needs another
 * step (the consent after a login), the resume's redirect to that interaction is answered with
 * the step itself (oidc/wire-contract.ts), for JSON callers and API clients; a browser's form
 * post keeps the 303 to it (post/redirect/get, post-redirect-get.ts).
 */
export async function resumeAuthorization(ctx: Context, next: Next, returnTo: string, origins: string[], json: boolean): Promise<void> {
  ctx.state.formActionOrigins = origins;
  if (redirectsAfterPost(ctx, json)) resumeSeesOther(ctx.req);
  ctx.method = 'GET';
  ctx.url = new URL(returnTo).pathname;
  await next();
  const location = ctx.response.get('Location');
  if (json && location && !location.startsWith('/interaction/') && (ctx.status === 302 || ctx.status === 303)) {
    ctx.status = 302;
    ctx.body = { status: 'complete', redirect_to: location };
  }
}
