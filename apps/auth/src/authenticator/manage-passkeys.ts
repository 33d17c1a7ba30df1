/**
 * The signed-in user's passkeys on the account page's Security section (/account/security). Rules:
 * - every endpoint needs the SSO session (else 401 login_required) and a same-origin request
 *   (else 403 forbidden), like the device endpoints (http/same-origin.ts), and a fresh sign-in
 *   (account/fresh-sign-in.ts: a stale JSON call is 401 reauth_required, a stale form post is
 *   sent to sign in again);
 * - POST options (JSON) issues registration options with a challenge bound to the account;
 * - POST register takes `name` (1–64 printable characters, default "Passkey") and `credential`
 *   (the browser's attestation as JSON text), verified by registration.ts; success is 201
 *   `{ id, name }`, audited `passkey.registered`; a refusal is audited
 *   `passkey.registration.refused` and answered with its code;
 * - POST remove takes `credential_id`; only the owner's credential is removed (else 404),
 *   audited `passkey.removed`; a form gets 303 back to the Security page with the message at its top.
 */
import { redirectWithFlash, type FlashDeps } from '../account/account-flash.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
import type { Context } from 'koa';
import { responseFormat } from '@gatehouse/http';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';
import { readBody, requireField } from '../http/read-body.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import { normalizeDeviceName } from '../devices/device-store.ts';
import { freshSessionAccount, type SessionDeps } from './manage.ts';
import type { FreshSignInDeps } from '../account/fresh-sign-in.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { ceremonyDeps, type CeremonyServices } from '../passkeys/ceremony-deps.ts';
import { PasskeyRefused } from '../passkeys/passkey-policy.ts';
import { CREDENTIAL_MAX } from '../passkeys/read-credential.ts';
import { registrationOptions, verifyRegistration } from '../passkeys/registration.ts';

export type ManagePasskeysDeps = SessionDeps & OriginDeps & FlashDeps & FreshSignInDeps & CeremonyServices & Pick<HandlerServices, 'audit'>;

export function createRegistrationOptionsHandler(deps: ManagePasskeysDeps) {
  return async function passkeyRegistrationOptions(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const account = await freshSessionAccount(ctx, deps);
    if (!account) return;
    await readBody(ctx);
    ctx.status = 200;
    ctx.body = await registrationOptions(ceremonyDeps(deps), account);
  };
}

export function createRegisterHandler(deps: ManagePasskeysDeps) {
  return async function registerPasskey(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const account = await freshSessionAccount(ctx, deps);
    if (!account) return;
    const body = await readBody(ctx);
    const name = normalizeDeviceName(body.fields.name || 'Passkey');
    if (!name) throw invalidRequest('Give the passkey a name of 1 to 64 characters.');
    const credential = requireField(body, 'credential', CREDENTIAL_MAX);
    try {
      const passkey = await verifyRegistration(ceremonyDeps(deps), account.id, name, credential);
      deps.audit.record('passkey.registered', { account_id: account.id, credential_id: passkey.id, device_type: passkey.deviceType, ip: ctx.ip });
      ctx.status = 201;
      ctx.body = { id: passkey.id, name: passkey.name };
    } catch (error) {
      if (error instanceof PasskeyRefused) deps.audit.record('passkey.registration.refused', { account_id: account.id, reason: error.reason, ip: ctx.ip });
      else if (error instanceof AuthError && error.code === 'passkey_already_registered') {
        deps.audit.record('passkey.registration.refused', { account_id: account.id, reason: 'already_registered', ip: ctx.ip });
      }
      throw error;
    }
  };
}

export function createRemovePasskeyHandler(deps: ManagePasskeysDeps) {
  return async function removePasskey(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const account = await freshSessionAccount(ctx, deps);
    if (!account) return;
    const body = await readBody(ctx);
    const id = body.fields.credential_id ?? '';
    if (!/^[\w-]{1,1400}$/.test(id)) throw invalidRequest('Field "credential_id" is required.');
    if (!(await deps.passkeys.remove(account.id, id))) throw new AuthError(404, 'not_found', 'No such passkey on your account.', { detail: 'not_found.passkey' });
    deps.audit.record('passkey.removed', { account_id: account.id, credential_id: id, via: 'devices_page' });
    if (body.json || responseFormat(ctx) === 'json') {
      ctx.body = { removed: id };
      return;
    }
    redirectWithFlash(ctx, deps, SECTION_PATHS.security, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.passkeyRemoved') });
  };
}
