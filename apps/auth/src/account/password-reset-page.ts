/**
 * The page of a one-time password-reset link (admin/password-reset.ts issues them):
 * GET and POST /account/password-reset/<token>. Rules:
 * - the token is in the path, so the request's path is replaced by the route pattern before
 *   the access log writes it (the log never holds a live token);
 * - an unknown, malformed, used, replaced or expired token, or one whose account is gone or
 *   disabled, is one answer: 410 `reset_link_invalid` with a page saying to ask for a new link
 *   (the answers do not tell the cases apart); never a 500;
 * - the POST is same-origin only (403); the new password, typed twice, follows the policy
 *   (new-password.ts); a refusal shows the form again with the error and does not use the link;
 * - where the account has a second factor (a TOTP authenticator, recovery codes, a passkey), the form
 *   asks for it too: a code (TOTP or recovery code) when it has one, its passkey (a WebAuthn assertion
 *   in `credential`, answering a challenge of POST <link>/passkey-options bound to this account's
 *   reset) when it has one, either one when it has both; checked after the new password passes the
 *   policy and before the link is used, under the login's regulation of second factors
 *   (account/reauthenticate.ts requireCurrentFactor and requirePasskey on the account's `mfa:` key:
 *   429 with Retry-After, a wrong answer 401 and counted; the password keys are not, a lockout by
 *   password guessing is what a reset clears); nothing given is 400 `code_required` (a code is
 *   accepted) or `passkey_required` (only the passkey is), not counted;
 * - an account whose only factor is an authenticator device is asked for a push first (account/reset-push.ts:
 *   POST <link>/push, then GET <link>?push=<id> waits for it and, once approved, shows the form
 *   with the push named in `push`); nothing approved is 401 `push_not_approved`;
 * - POST <link>/passkey-options (same origin, a live link of an account with a passkey, else 410 or
 *   404 `passkey_unknown`) answers the WebAuthn request options (JSON) listing the account's passkeys;
 * - `?return=/interaction/<uid>` (account/recovery-return.ts) is kept on the form and makes the
 *   final page's sign-in link go back to that sign-in page (so the user returns to the app);
 * - success uses the link (once, atomically), sets the password (argon2id), ends EVERY session
 *   and grant of the account (accounts/end-account-access.ts), clears the account's lockouts (user-admin.ts lockoutKeys), is
 *   audited `account.password_reset`, and answers a page asking the user to sign in again.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import { responseFormat } from '@gatehouse/http';
import type { Account } from '../accounts/account-store.ts';
import { hashPassword } from '../accounts/password.ts';
import { endAccountAccess } from '../accounts/end-account-access.ts';
import { PASSWORD_RESET_PATH } from '../admin/password-reset.ts';
import { lockoutKeys } from '../admin/user-admin.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { AuthError } from '../errors/auth-error.ts';
import { formPage } from '../http/form-page.ts';
import { CREDENTIAL_MAX } from '../passkeys/read-credential.ts';
import { readBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { passwordResetDonePage, passwordResetPage } from '../views/account-page.ts';
import { newPassword } from './new-password.ts';
import { requireCurrentFactor, requirePasskey, type ReauthenticateDeps } from './reauthenticate.ts';
import { authenticationOptions } from '../passkeys/authentication.ts';
import { ceremonyDeps, type CeremonyServices } from '../passkeys/ceremony-deps.ts';
import type { ResetFactor } from '../views/reset-factor-fields.ts';
import { pushSecondsLeft, requireApprovedPush, resetPush, sendResetPush, type ResetPushDeps } from './reset-push.ts';
import { recoveryReturn, returnQuery, signInAgainUrl } from './recovery-return.ts';

export const PASSWORD_RESET_ROUTE = `${PASSWORD_RESET_PATH}/:token`;
export const PASSWORD_RESET_PASSKEY_ROUTE = `${PASSWORD_RESET_ROUTE}/passkey-options`;
export const PASSWORD_RESET_PUSH_ROUTE = `${PASSWORD_RESET_ROUTE}/push`;
export const PASSWORD_RESET_PUSH_STATUS_ROUTE = `${PASSWORD_RESET_ROUTE}/push/:id/status`;

export type PasswordResetPageDeps = OriginDeps &
  ReauthenticateDeps &
  CeremonyServices &
  ResetPushDeps &
  Pick<HandlerServices, 'passwordResets' | 'accounts' | 'userSessions' | 'sessionMeta' | 'backchannelLogout' | 'revocations' | 'regulationStore' | 'audit' | 'clock'> & {
    config: Pick<HandlerServices['config'], 'issuer' | 'accessTokenTtl'>;
  };

const invalidLink = () =>
  new AuthError(410, 'reset_link_invalid', 'This password-reset link is not valid: it has expired, was already used, or was replaced by a newer one. Ask your administrator for a new link.');

/** The token of the path; the access log names the pattern instead of the path (the token is a credential). */
function takeToken(ctx: Context, route = PASSWORD_RESET_ROUTE): string {
  const token = String(ctx.params.token ?? '');
  ctx.state.accessLogPath = route;
  return token;
}

/** What a passkey assertion on a reset link answers: a challenge bound to this account's reset. */
const resetBinding = (account: Account): string => `password-reset:${account.id}`;

async function liveAccount(deps: PasswordResetPageDeps, token: string): Promise<Account> {
  const accountId = await deps.passwordResets.peek(token);
  const account = accountId ? await deps.accounts.findById(accountId) : undefined;
  if (!account || account.disabledAt !== null) throw invalidLink();
  return account;
}

/**
 * What the reset asks for: a code when the account has TOTP or unused recovery codes, its passkey
 * when it has one; undefined when it has neither.
 */
async function resetFactor(deps: PasswordResetPageDeps, account: Account, token: string, ctx?: Context): Promise<ResetFactor | undefined> {
  const [recovery, passkeys, devices] = await Promise.all([deps.recoveryCodes.remaining(account.id), deps.passkeys.countByAccount(account.id), deps.devices.countByAccount(account.id)]);
  const code = account.totpEnrolled || recovery > 0;
  if (!code && passkeys === 0) return devices > 0 ? { code: false, push: await pushState(deps, account, token, ctx) } : undefined;
  return { code, ...(passkeys > 0 ? { passkeyOptionsUrl: `${PASSWORD_RESET_PATH}/${token}/passkey-options` } : {}) };
}

/** The page of a push-only account's reset: where to send the push, and the state of `?push=<id>`. */
async function pushState(deps: PasswordResetPageDeps, account: Account, token: string, ctx?: Context): Promise<NonNullable<ResetFactor['push']>> {
  const returnTo = ctx ? recoveryReturn(ctx.query.return) : undefined;
  const sendUrl = `${PASSWORD_RESET_PATH}/${token}/push${returnQuery(returnTo)}`;
  const id = ctx && typeof ctx.query.push === 'string' ? ctx.query.push : '';
  const push = id ? await resetPush(deps, account, id) : undefined;
  if (!push) return { sendUrl };
  if (push.state === 'APPROVED' && push.completedAt === null) return { sendUrl, approvedId: push.id };
  if (push.state === 'PENDING' && pushSecondsLeft(push, deps.clock()) > 0) {
    return { sendUrl, waiting: { number: push.number, statusUrl: `${PASSWORD_RESET_PATH}/${token}/push/${encodeURIComponent(push.id)}/status`, pollUrl: pushPageUrl(token, push.id, returnTo) } };
  }
  return { sendUrl, refused: true };
}

const pushPageUrl = (token: string, id: string, returnTo: string | undefined): string =>
  `${PASSWORD_RESET_PATH}/${token}?${new URLSearchParams({ push: id, ...(returnTo ? { return: returnTo } : {}) }).toString()}`;

/** Checks the second factor of the form against what the reset asks for (see the rules above). */
async function requireResetFactor(ctx: Context, deps: PasswordResetPageDeps, account: Account, factor: ResetFactor, fields: Record<string, string | undefined>): Promise<void> {
  const keys = [`mfa:${account.username.toLowerCase()}`];
  if (factor.push) {
    await requireApprovedPush(deps, account, fields.push ?? '');
    return;
  }
  const credential = fields.credential ?? '';
  if (factor.passkeyOptionsUrl && credential !== '') {
    await requirePasskey(ctx, deps, account, resetBinding(account), credential.slice(0, CREDENTIAL_MAX), keys);
    return;
  }
  const code = (fields.code ?? '').trim();
  if (!factor.code) throw new AuthError(400, 'passkey_required', 'Confirm it is you with your passkey or security key: press "Use my passkey and set the password".');
  if (code === '') throw new AuthError(400, 'code_required', 'Enter the code of your authenticator app or a recovery code.');
  await requireCurrentFactor(ctx, deps, account, /^[0-9 ]+$/.test(code) ? code.replace(/ /g, '') : code, keys);
}

const actionOf = (ctx: Context, token: string) => `${PASSWORD_RESET_PATH}/${token}${returnQuery(recoveryReturn(ctx.query.return))}`;

export function createPasswordResetFormHandler(deps: PasswordResetPageDeps) {
  return async function showPasswordReset(ctx: Context): Promise<void> {
    const token = takeToken(ctx);
    const account = await liveAccount(deps, token);
    ctx.status = 200;
    ctx.type = 'html';
    const secondFactor = await resetFactor(deps, account, token, ctx);
    ctx.body = passwordResetPage({ username: account.username, action: actionOf(ctx, token), ...(secondFactor ? { secondFactor } : {}), language: pageLanguage(ctx) });
  };
}

export function createPasswordResetHandler(deps: PasswordResetPageDeps) {
  return async function resetPassword(ctx: Context): Promise<void> {
    const token = takeToken(ctx);
    requireSameOrigin(ctx, deps);
    const account = await liveAccount(deps, token);
    const action = actionOf(ctx, token);
    const secondFactor = await resetFactor(deps, account, token);
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        const password = newPassword(body);
        if (secondFactor) await requireResetFactor(ctx, deps, account, secondFactor, body.fields);
        const hash = await hashPassword(password);
        if ((await deps.passwordResets.consume(token)) !== account.id) throw invalidLink();
        await deps.accounts.setPassword(account.id, hash);
        const ended = await endAccountAccess({ ...deps, accessTokenTtl: deps.config.accessTokenTtl }, account.id);
        await deps.regulationStore.clear(lockoutKeys(account.username));
        deps.audit.record('account.password_reset', { account_id: account.id, ip: ctx.ip, sessions: ended.sessions, grants: ended.grants });
        ctx.status = 200;
        if (body.json) {
          ctx.body = { password_changed: true, sessions_ended: ended.sessions, grants_ended: ended.grants };
          return;
        }
        ctx.type = 'html';
        ctx.body = passwordResetDonePage({ signInUrl: signInAgainUrl(recoveryReturn(ctx.query.return)), language: pageLanguage(ctx) });
      },
      async page(error, body) {
        // A link found used meanwhile is the one answer of every invalid link, not a form refusal.
        if (body.json || error.code === 'reset_link_invalid') return false;
        ctx.status = error.status;
        ctx.type = 'html';
        ctx.body = passwordResetPage({ username: account.username, action, ...(secondFactor ? { secondFactor } : {}), error: { code: error.code, message: pageLanguage(ctx).errorText(error) }, language: pageLanguage(ctx) });
        return true;
      },
    });
  };
}

export function createPasswordResetPasskeyOptionsHandler(deps: PasswordResetPageDeps) {
  return async function passwordResetPasskeyOptions(ctx: Context): Promise<void> {
    const token = takeToken(ctx, PASSWORD_RESET_PASSKEY_ROUTE);
    requireSameOrigin(ctx, deps);
    const account = await liveAccount(deps, token);
    const allow = await deps.passkeys.listByAccount(account.id);
    if (allow.length === 0) throw new AuthError(404, 'passkey_unknown', 'No passkey is registered for this account.');
    ctx.status = 200;
    ctx.body = await authenticationOptions(ceremonyDeps(deps), resetBinding(account), { userVerification: 'preferred', allow });
  };
}

export function createResetPushHandler(deps: PasswordResetPageDeps) {
  return async function sendPushForReset(ctx: Context): Promise<void> {
    const token = takeToken(ctx, PASSWORD_RESET_PUSH_ROUTE);
    requireSameOrigin(ctx, deps);
    const account = await liveAccount(deps, token);
    if (!(await resetFactor(deps, account, token))?.push) throw new AuthError(400, 'push_unavailable', 'This reset does not use a push. Use the form of the reset page.', { detail: 'push_unavailable.resetWithoutPush' });
    const push = await sendResetPush(ctx, deps, account);
    if (responseFormat(ctx) === 'json') {
      ctx.status = 200;
      ctx.body = { push: push.id, number: push.number, expires_in: pushSecondsLeft(push, deps.clock()) };
      return;
    }
    ctx.status = 303;
    ctx.redirect(pushPageUrl(token, push.id, recoveryReturn(ctx.query.return)));
  };
}

export function createResetPushStatusHandler(deps: PasswordResetPageDeps) {
  return async function resetPushStatus(ctx: Context): Promise<void> {
    const token = takeToken(ctx, PASSWORD_RESET_PUSH_STATUS_ROUTE);
    const account = await liveAccount(deps, token);
    const push = await resetPush(deps, account, String(ctx.params.id ?? ''));
    if (!push) throw new AuthError(404, 'not_found', 'No such push request for this reset.');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { state: push.state, expires_in: pushSecondsLeft(push, deps.clock()) };
  };
}
