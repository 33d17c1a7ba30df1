/**
 * Re-enrolling TOTP on the account page. Rules:
 * - every step needs a fresh sign-in (fresh-sign-in.ts): a stale one is sent to sign in again and
 *   comes back to the Security page;
 * - POST /account/totp: the current factor first: a current TOTP code (accepted once) or an
 *   unused recovery code when the account has TOTP; the current password when it has none
 *   (reauthenticate.ts, regulated like the login). Then a pending secret is kept for the account,
 *   sealed at rest (accounts/totp-enrollment-store.ts, the store of the sign-in's enrollment): an
 *   existing pending secret is kept, never replaced; the answer is 303 to
 *   GET /account/security/totp (post/redirect/get); the old app keeps working;
 * - GET /account/security/totp shows the pending secret's key and QR code, the same on every
 *   view, until it is confirmed or cancelled; without a pending secret it is 303 to the Security
 *   page;
 * - POST /account/totp/confirm: a code of the PENDING secret (regulated as a second factor)
 *   replaces the old secret, that code's time step is recorded as used and the pending secret
 *   goes; every OTHER session of the user and every grant this session does not hold end at
 *   once, as after a password change (accounts/end-account-access.ts), this browser stays signed
 *   in; audited `account.totp_reenrolled` with what was ended; when the account has no unused
 *   recovery code left, ten new ones are issued and shown on the answer (once, with Copy,
 *   Download and Print), otherwise 303 to the Security page with the message at its top;
 *   without a pending secret: 400 invalid_enrollment;
 * - POST /account/totp/cancel drops the pending secret (303 to the Security page);
 * - a refusal is audited `account.totp_reenroll.refused` and shown at the top of the Security
 *   page (the confirm step keeps its QR code to try again).
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import { endAccountAccess } from '../accounts/end-account-access.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { AuthError } from '../errors/auth-error.ts';
import { formPage } from '../http/form-page.ts';
import { readBody, type ParsedBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { regulateAttempt } from '../regulation/regulate-attempt.ts';
import { secondFactorKeys } from '../regulation/regulation-keys.ts';
import { qrSvg } from '../mfa/qr.ts';
import { recoveryCodesPage } from '../views/devices-page.ts';
import { renderAccount, pageSession, type AccountViewDeps } from './account-view.ts';
import { requireCurrentFactor, requireCurrentPassword, type ReauthenticateDeps } from './reauthenticate.ts';
import { requireSession, type SignedIn } from '../interactions/signed-in.ts';
import { requireFreshSignIn, type FreshSignInDeps } from './fresh-sign-in.ts';
import { redirectWithFlash } from './account-flash.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';

export const TOTP_ENROLLMENT_PATH = `${SECTION_PATHS.security}/totp`;

export type ReenrollTotpDeps = AccountViewDeps & OriginDeps & ReauthenticateDeps & FreshSignInDeps & Pick<HandlerServices, 'userSessions' | 'sessionMeta' | 'backchannelLogout' | 'revocations' | 'audit' | 'totpEnrollments'>;

const invalidEnrollment = () => new AuthError(400, 'invalid_enrollment', 'This set-up has expired. Start again with your current authenticator app.');

interface EnrollmentView {
  secret: string;
  qrSvg: string;
}

async function enrollmentView(deps: ReenrollTotpDeps, signedIn: SignedIn, secret: string): Promise<EnrollmentView> {
  const uri = deps.totp.uri(secret, { issuer: `Gatehouse (${new URL(deps.config.issuer).host})`, label: signedIn.account.username });
  return { secret, qrSvg: await qrSvg(uri) };
}

function refusalReason(error: AuthError): 'invalid_code' | 'code_replayed' | 'invalid_current_password' | undefined {
  return error.code === 'invalid_code' || error.code === 'code_replayed' || error.code === 'invalid_current_password' ? error.code : undefined;
}

/** A refusal is shown at the top of the Security page, audited `account.totp_reenroll.refused` when a credential was wrong. */
function refusals(ctx: Context, deps: ReenrollTotpDeps, signedIn: SignedIn, step: 'current' | 'confirm', enrollment?: () => Promise<EnrollmentView | undefined>) {
  return {
    refused(error: AuthError): void {
      const reason = refusalReason(error);
      if (reason) deps.audit.record('account.totp_reenroll.refused', { account_id: signedIn.account.id, ip: ctx.ip, step, reason });
    },
    async page(error: AuthError, body: ParsedBody): Promise<boolean> {
      if (body.json) return false;
      const totpEnrollment = await enrollment?.();
      await renderAccount(ctx, deps, signedIn, 'security', { error, ...(totpEnrollment ? { totpEnrollment } : {}) });
      return true;
    },
  };
}

async function freshSession(ctx: Context, deps: ReenrollTotpDeps): Promise<SignedIn | undefined> {
  requireSameOrigin(ctx, deps);
  const signedIn = await requireSession(ctx, deps);
  return requireFreshSignIn(ctx, deps, signedIn, SECTION_PATHS.security) ? signedIn : undefined;
}

export function createStartTotpHandler(deps: ReenrollTotpDeps) {
  return async function startTotp(ctx: Context): Promise<void> {
    const signedIn = await freshSession(ctx, deps);
    if (!signedIn) return;
    const { account } = signedIn;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        if (account.totpEnrolled) await requireCurrentFactor(ctx, deps, account, (body.fields.code ?? '').trim().slice(0, 64));
        else await requireCurrentPassword(ctx, deps, account, (body.fields.current_password ?? '').slice(0, 1024));
        const secret = await deps.totpEnrollments.secretOrStart(account.id, () => deps.totp.generateSecret());
        if (body.json) {
          ctx.status = 200;
          ctx.body = { secret, otpauth_uri: deps.totp.uri(secret, { issuer: `Gatehouse (${new URL(deps.config.issuer).host})`, label: account.username }) };
          return;
        }
        ctx.status = 303;
        ctx.redirect(TOTP_ENROLLMENT_PATH);
      },
      ...refusals(ctx, deps, signedIn, 'current'),
    });
  };
}

/** GET /account/security/totp: the pending secret, the same on every view. */
export function createTotpEnrollmentPageHandler(deps: ReenrollTotpDeps) {
  return async function showTotpEnrollment(ctx: Context): Promise<void> {
    const signedIn = await pageSession(ctx, deps, TOTP_ENROLLMENT_PATH);
    if (!signedIn || !requireFreshSignIn(ctx, deps, signedIn, TOTP_ENROLLMENT_PATH)) return;
    const secret = await deps.totpEnrollments.pendingSecret(signedIn.account.id);
    if (!secret) {
      ctx.status = 303;
      ctx.redirect(SECTION_PATHS.security);
      return;
    }
    await renderAccount(ctx, deps, signedIn, 'security', { totpEnrollment: await enrollmentView(deps, signedIn, secret) });
  };
}

export function createCancelTotpHandler(deps: ReenrollTotpDeps) {
  return async function cancelTotp(ctx: Context): Promise<void> {
    const signedIn = await freshSession(ctx, deps);
    if (!signedIn) return;
    await readBody(ctx);
    await deps.totpEnrollments.clearSecret(signedIn.account.id);
    redirectWithFlash(ctx, deps, SECTION_PATHS.security, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.totpCancelled') });
  };
}

export function createConfirmTotpHandler(deps: ReenrollTotpDeps) {
  return async function confirmTotp(ctx: Context): Promise<void> {
    const signedIn = await freshSession(ctx, deps);
    if (!signedIn) return;
    const { account } = signedIn;
    let pending: string | undefined;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        pending = await deps.totpEnrollments.pendingSecret(account.id);
        if (!pending) throw invalidEnrollment();
        const secret = pending;
        const keys = secondFactorKeys({ username: account.username, ip: ctx.ip, device: deps.knownDevices.recognise(ctx, account.id) });
        const attempt = await regulateAttempt(deps, { keys });
        const step = await deps.totp.verify(secret, (body.fields.code ?? '').replace(/[\s-]/g, ''), deps.clock());
        if (step === null) return attempt.fail(new AuthError(401, 'invalid_code', 'This code is not correct. Enter the code your new authenticator app shows now.', { detail: 'invalid_code.newAuthenticatorApp' }));
        await deps.accounts.setTotpSecret(account.id, secret);
        await deps.accounts.consumeTotpStep(account.id, step);
        await deps.totpEnrollments.clearSecret(account.id);
        const ended = await endAccountAccess({ ...deps, accessTokenTtl: deps.config.accessTokenTtl }, account.id, { keepSessionId: signedIn.sessionId });
        deps.audit.record('account.totp_reenrolled', { account_id: account.id, ip: ctx.ip, sessions: ended.sessions, grants: ended.grants });
        const codes = (await deps.recoveryCodes.remaining(account.id)) === 0 ? await deps.recoveryCodes.replace(account.id) : undefined;
        if (codes) deps.audit.record('recovery.issued', { account_id: account.id, via: 'devices_page' });
        if (body.json) {
          ctx.status = 200;
          ctx.body = { totp_enrolled: true, sessions_ended: ended.sessions, grants_ended: ended.grants, ...(codes ? { recovery_codes: codes } : {}) };
          return;
        }
        if (codes) {
          ctx.status = 201;
          ctx.type = 'html';
          ctx.body = recoveryCodesPage({ username: account.username, codes });
          return;
        }
        redirectWithFlash(ctx, deps, SECTION_PATHS.security, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.totpSetUp') });
      },
      // The confirm step keeps its QR code to try again.
      ...refusals(ctx, deps, signedIn, 'confirm', async () => (pending ? enrollmentView(deps, signedIn, pending) : undefined)),
    });
  };
}
