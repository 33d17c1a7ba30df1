/**
 * The device actions of the account page (/account, account/) for a user signed in at the
 * authorization server (the SSO session cookie, read with oidc-provider's Session.get). Rules:
 * - the old devices page (GET /authenticator/devices) is a 301 to the account's Security page,
 *   so old links land on the section that replaced it; a removal answers 303 to that page with
 *   the message at its top; the actions keep their paths;
 * - no session, or a session whose account is gone: 401 login_required;
 * - enrolling or removing a device and new recovery codes need a fresh sign-in
 *   (account/fresh-sign-in.ts): a stale session is sent to sign in again;
 * - state-changing posts must come from this origin (Origin / Sec-Fetch-Site checked, on top
 *   of the session cookie being SameSite=Lax), else 403 forbidden;
 * - an enrollment code is shown once, with a QR code of the authenticator link carrying it in
 *   the URL fragment (never sent to a server, never logged);
 * - the first device enrollment of an account without recovery codes also issues its 10
 *   recovery codes and shows them once; "new recovery codes" replaces the set;
 * - the "Add a device" page waits for its code: GET /authenticator/devices/enroll/status answers
 *   the state of the account's latest code (`pending` with `expires_in`, `enrolled` with the
 *   newest device's name, `expired`), and GET /authenticator/devices/enroll/done shows it as a
 *   page (the device added, or a new code); both need the session, neither shows the code;
 * - a device can be removed only by its owner (the store scopes the delete to the account);
 * - the page also lists the user's passkeys (added and removed by manage-passkeys.ts).
 */
import { pageLanguage } from '../i18n/page-language.ts';
import { redirectWithFlash, type FlashDeps } from '../account/account-flash.ts';
import { requireFreshSignIn, type FreshSignInDeps } from '../account/fresh-sign-in.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
import type { Context } from 'koa';
import { responseFormat } from '@gatehouse/http';
import type { Account } from '../accounts/account-store.ts';
import type { Device } from '../devices/device-store.ts';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';
import { readBody } from '../http/read-body.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { qrSvg } from '../mfa/qr.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { enrollmentDonePage, enrollmentPage, recoveryCodesPage } from '../views/devices-page.ts';

export const DEVICES_PATH = '/authenticator/devices';
/** Where the device actions send a browser back to: the account page's devices section. */
export const DEVICES_SECTION = SECTION_PATHS.security;

const wantsJson = (ctx: Context): boolean => responseFormat(ctx) === 'json';
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export type SessionDeps = Pick<HandlerServices, 'provider' | 'accounts'>;

export async function sessionAccount(ctx: Context, deps: SessionDeps): Promise<Account> {
  return (await sessionSignIn(ctx, deps)).account;
}

/** The session's account and when its sign-in happened (epoch ms; for fresh-sign-in.ts). */
async function sessionSignIn(ctx: Context, deps: SessionDeps): Promise<{ account: Account; signedInAt: number | undefined }> {
  const session = await deps.provider().Session.get(ctx as never);
  const account = session.accountId ? await deps.accounts.findById(session.accountId) : undefined;
  if (!account) {
    throw new AuthError(401, 'login_required', 'You are not signed in to Gatehouse. Sign in to an application that uses Gatehouse, then open this page again.');
  }
  return { account, signedInAt: typeof session.loginTs === 'number' ? session.loginTs * 1000 : undefined };
}

/**
 * The session's account when its sign-in is fresh (account/fresh-sign-in.ts); otherwise the
 * browser is sent to sign in again, back to the Security page, and the answer is undefined.
 */
export async function freshSessionAccount(ctx: Context, deps: SessionDeps & FreshSignInDeps): Promise<Account | undefined> {
  const { account, signedInAt } = await sessionSignIn(ctx, deps);
  return requireFreshSignIn(ctx, deps, { signedInAt }, SECTION_PATHS.security) ? account : undefined;
}


export type EnrollDeps = SessionDeps & OriginDeps & FreshSignInDeps & Pick<HandlerServices, 'enrollments' | 'recoveryCodes' | 'audit' | 'clock'>;

/** The old devices page: moved to the account page's devices section (301). */
export function redirectDevicesPage(ctx: Context): void {
  ctx.status = 301;
  ctx.redirect(DEVICES_SECTION);
}

export function createEnrollHandler(deps: EnrollDeps) {
  return async function enroll(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const account = await freshSessionAccount(ctx, deps);
    if (!account) return;
    const json = (await readBody(ctx)).json || wantsJson(ctx);
    const { code, expiresAt } = await deps.enrollments.issue(account.id);
    const url = `${deps.config.issuer}/authenticator#enroll=${code}`;
    const recoveryCodes = (await deps.recoveryCodes.remaining(account.id)) === 0 ? await deps.recoveryCodes.replace(account.id) : undefined;
    deps.audit.record('device.enrollment.issued', { account_id: account.id, ip: ctx.ip });
    if (recoveryCodes) deps.audit.record('recovery.issued', { account_id: account.id, via: 'device_enrollment' });
    ctx.status = 201;
    if (json) {
      ctx.body = { enrollment_code: code, enrollment_url: url, expires_at: iso(expiresAt), ...(recoveryCodes ? { recovery_codes: recoveryCodes } : {}) };
      return;
    }
    ctx.type = 'html';
    ctx.body = enrollmentPage({ username: account.username, code, url, qrSvg: await qrSvg(url), expiresInSeconds: Math.round((expiresAt - deps.clock()) / 1000), recoveryCodes, language: pageLanguage(ctx) });
  };
}

export type EnrollStatusDeps = SessionDeps & Pick<HandlerServices, 'enrollments' | 'devices' | 'clock'>;

async function enrollmentState(ctx: Context, deps: EnrollStatusDeps) {
  const account = await sessionAccount(ctx, deps);
  const status = await deps.enrollments.status(account.id);
  if (status.state !== 'enrolled') return status;
  const newest = (await deps.devices.listByAccount(account.id)).reduce<Device | undefined>((a, d) => (!a || d.createdAt >= a.createdAt ? d : a), undefined);
  return { ...status, deviceName: newest?.name ?? '' };
}

export function createEnrollStatusHandler(deps: EnrollStatusDeps) {
  return async function enrollStatus(ctx: Context): Promise<void> {
    const status = await enrollmentState(ctx, deps);
    ctx.set('Cache-Control', 'no-store');
    if (status.state === 'enrolled') ctx.body = { state: 'enrolled', device_name: status.deviceName };
    else if (status.state === 'pending') ctx.body = { state: 'pending', expires_in: Math.max(0, Math.ceil((status.expiresAt - deps.clock()) / 1000)) };
    else ctx.body = { state: 'expired' };
  };
}

export function createEnrollDoneHandler(deps: EnrollStatusDeps) {
  return async function enrollDone(ctx: Context): Promise<void> {
    const status = await enrollmentState(ctx, deps);
    ctx.type = 'html';
    ctx.body = enrollmentDonePage({ ...(status.state === 'enrolled' ? { state: 'enrolled', deviceName: status.deviceName } : { state: status.state }), language: pageLanguage(ctx) });
  };
}

export type RemoveDeviceDeps = SessionDeps & OriginDeps & FlashDeps & FreshSignInDeps & Pick<HandlerServices, 'devices' | 'pushHub' | 'audit'>;

export function createRemoveDeviceHandler(deps: RemoveDeviceDeps) {
  return async function removeDevice(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const account = await freshSessionAccount(ctx, deps);
    if (!account) return;
    const body = await readBody(ctx);
    const deviceId = body.fields.device_id ?? '';
    if (!/^[\w-]{1,64}$/.test(deviceId)) throw invalidRequest('Field "device_id" is required.');
    if (!(await deps.devices.remove(account.id, deviceId))) throw new AuthError(404, 'not_found', 'No such device on your account.', { detail: 'not_found.device' });
    deps.audit.record('device.removed', { account_id: account.id, device_id: deviceId, via: 'devices_page' });
    // Open event streams of the removed device re-check it now and end with `event: revoked`.
    deps.pushHub.notify(account.id);
    if (body.json) {
      ctx.body = { removed: deviceId };
      return;
    }
    redirectWithFlash(ctx, deps, DEVICES_SECTION, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.deviceRemoved') });
  };
}

export type RecoveryCodesDeps = SessionDeps & OriginDeps & FreshSignInDeps & Pick<HandlerServices, 'recoveryCodes' | 'audit'>;

export function createRecoveryCodesHandler(deps: RecoveryCodesDeps) {
  return async function newRecoveryCodes(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const account = await freshSessionAccount(ctx, deps);
    if (!account) return;
    const json = (await readBody(ctx)).json || wantsJson(ctx);
    const codes = await deps.recoveryCodes.replace(account.id);
    deps.audit.record('recovery.issued', { account_id: account.id, via: 'devices_page' });
    ctx.status = 201;
    if (json) {
      ctx.body = { recovery_codes: codes };
      return;
    }
    ctx.type = 'html';
    ctx.body = recoveryCodesPage({ username: account.username, codes, language: pageLanguage(ctx) });
  };
}
