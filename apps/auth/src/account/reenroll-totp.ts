/**
 * Re-enrolling TOTP on the account page, in two posts. Rules:
 * - both posts need a fresh sign-in (fresh-sign-in.ts): a stale one is sent to sign in again and
 *   comes back to the Security page;
 * - POST /account/totp: the current factor first: a current TOTP code (accepted once) or an
 *   unused recovery code when the account has TOTP; the current password when it has none
 *   (reauthenticate.ts, regulated like the login). Then a new secret is shown with its QR code;
 *   nothing is stored yet and the old app keeps working;
 * - the pending secret travels in the confirm form, sealed with the at-rest key (SecretBox:
 *   authenticated encryption) together with the account id and an expiry of 10 minutes, so it
 *   cannot be read, forged, moved to another account or used late (400 invalid_enrollment);
 * - POST /account/totp/confirm: a code of the NEW secret (regulated as a second factor)
 *   replaces the old secret, and that code's time step is recorded as used; every OTHER session
 *   of the user and every grant this session does not hold end at once, as after a password
 *   change (accounts/end-account-access.ts: whoever held the old authenticator is signed out),
 *   this browser stays signed in; audited `account.totp_reenrolled` with what was ended;
 *   303 to the Security page with the message at its top;
 * - a refusal on either step is audited `account.totp_reenroll.refused` and shown at the top
 *   of the Security page (the confirm step keeps its QR code to try again).
 */
import { redirectWithFlash } from './account-flash.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
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
import { renderAccount, type AccountViewDeps } from './account-view.ts';
import { requireCurrentFactor, requireCurrentPassword, type ReauthenticateDeps } from './reauthenticate.ts';
import { requireSession, type SignedIn } from './signed-in.ts';
import { requireFreshSignIn, type FreshSignInDeps } from './fresh-sign-in.ts';

const ENROLLMENT_TTL_MS = 10 * 60 * 1000;

export type ReenrollTotpDeps = AccountViewDeps & OriginDeps & ReauthenticateDeps & FreshSignInDeps & Pick<HandlerServices, 'box' | 'userSessions' | 'sessionMeta' | 'backchannelLogout' | 'revocations' | 'audit'>;

interface PendingSecret {
  accountId: string;
  secret: string;
  expiresAt: number;
}

const invalidEnrollment = () => new AuthError(400, 'invalid_enrollment', 'This set-up has expired. Start again with your current authenticator app.');

function openPending(deps: ReenrollTotpDeps, sealed: string, accountId: string): PendingSecret {
  let pending: Partial<PendingSecret>;
  try {
    pending = JSON.parse(deps.box.open(sealed)) as Partial<PendingSecret>;
  } catch {
    throw invalidEnrollment();
  }
  if (pending.accountId !== accountId || typeof pending.secret !== 'string' || typeof pending.expiresAt !== 'number' || pending.expiresAt <= deps.clock()) {
    throw invalidEnrollment();
  }
  return pending as PendingSecret;
}

interface EnrollmentView {
  sealed: string;
  secret: string;
  qrSvg: string;
}

async function enrollmentView(deps: ReenrollTotpDeps, signedIn: SignedIn, sealed: string, secret: string): Promise<EnrollmentView> {
  const uri = deps.totp.uri(secret, { issuer: `Gatehouse (${new URL(deps.config.issuer).host})`, label: signedIn.account.username });
  return { sealed, secret, qrSvg: await qrSvg(uri) };
}

function refusalReason(error: AuthError): 'invalid_code' | 'code_replayed' | 'invalid_current_password' | undefined {
  return error.code === 'invalid_code' || error.code === 'code_replayed' || error.code === 'invalid_current_password' ? error.code : undefined;
}

/** A refusal is shown in the page's TOTP section, audited `account.totp_reenroll.refused` when a credential was wrong. */
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

export function createStartTotpHandler(deps: ReenrollTotpDeps) {
  return async function startTotp(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const signedIn = await requireSession(ctx, deps);
    if (!requireFreshSignIn(ctx, deps, signedIn, SECTION_PATHS.security)) return;
    const { account } = signedIn;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        if (account.totpEnrolled) await requireCurrentFactor(ctx, deps, account, (body.fields.code ?? '').trim().slice(0, 64));
        else await requireCurrentPassword(ctx, deps, account, (body.fields.current_password ?? '').slice(0, 1024));
        const secret = deps.totp.generateSecret();
        const sealed = deps.box.seal(JSON.stringify({ accountId: account.id, secret, expiresAt: deps.clock() + ENROLLMENT_TTL_MS } satisfies PendingSecret));
        if (body.json) {
          ctx.status = 200;
          ctx.body = { enrollment: sealed, secret, otpauth_uri: deps.totp.uri(secret, { issuer: `Gatehouse (${new URL(deps.config.issuer).host})`, label: account.username }) };
          return;
        }
        await renderAccount(ctx, deps, signedIn, 'security', { totpEnrollment: await enrollmentView(deps, signedIn, sealed, secret) });
      },
      ...refusals(ctx, deps, signedIn, 'current'),
    });
  };
}

export function createConfirmTotpHandler(deps: ReenrollTotpDeps) {
  return async function confirmTotp(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const signedIn = await requireSession(ctx, deps);
    if (!requireFreshSignIn(ctx, deps, signedIn, SECTION_PATHS.security)) return;
    const { account } = signedIn;
    let sealed = '';
    let pending: PendingSecret | undefined;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        sealed = body.fields.enrollment ?? '';
        pending = openPending(deps, sealed.slice(0, 4096), account.id);
        const secret = pending.secret;
        const keys = secondFactorKeys({ username: account.username, ip: ctx.ip, device: deps.knownDevices.recognise(ctx, account.id) });
        const attempt = await regulateAttempt(deps, { keys });
        const step = await deps.totp.verify(secret, (body.fields.code ?? '').trim(), deps.clock());
        if (step === null) return attempt.fail(new AuthError(401, 'invalid_code', 'This code is not correct. Enter the code your new authenticator app shows now.'));
        await deps.accounts.setTotpSecret(account.id, secret);
        await deps.accounts.consumeTotpStep(account.id, step);
        const ended = await endAccountAccess({ ...deps, accessTokenTtl: deps.config.accessTokenTtl }, account.id, { keepSessionId: signedIn.sessionId });
        deps.audit.record('account.totp_reenrolled', { account_id: account.id, ip: ctx.ip, sessions: ended.sessions, grants: ended.grants });
        if (body.json) {
          ctx.status = 200;
          ctx.body = { totp_enrolled: true, sessions_ended: ended.sessions, grants_ended: ended.grants };
          return;
        }
        redirectWithFlash(ctx, deps, SECTION_PATHS.security, { kind: 'notice', text: 'Your new authenticator app is set up. Codes from the previous one stop working, and your other sessions were signed out.' });
      },
      // The confirm step keeps its QR code to try again.
      ...refusals(ctx, deps, signedIn, 'confirm', async () => (pending ? enrollmentView(deps, signedIn, sealed, pending.secret) : undefined)),
    });
  };
}
