/**
 * POST /login/passkey/options and POST /mfa/passkey/options: a login's WebAuthn request options
 * (JSON). Rules:
 * - the interaction must be this browser's and match the body's `uid` (else interaction_expired);
 * - passwordless: no credential listed (discoverable credentials, conditional UI), user
 *   verification required;
 * - second factor: only after the password step (else password_required); the pending account's
 *   credentials listed, user verification preferred; an account without one: 404 passkey_unknown;
 * - each call issues a new single-use challenge bound to the interaction.
 */
import type { Context } from 'koa';
import { AuthError } from '../../errors/auth-error.ts';
import { readBody } from '../../http/read-body.ts';
import type { HandlerServices } from '../deps.ts';
import { loadInteraction } from '../interaction-state.ts';
import { readMfaRequest } from '../mfa/read-mfa-request.ts';
import { authenticationOptions } from '../../passkeys/authentication.ts';
import { ceremonyDeps, type CeremonyServices } from '../../passkeys/ceremony-deps.ts';

export type CeremonyOptionsDeps = CeremonyServices & Pick<HandlerServices, 'provider'>;

export function createLoginOptionsHandler(deps: CeremonyOptionsDeps) {
  return async function passkeyLoginOptions(ctx: Context): Promise<void> {
    const body = await readBody(ctx);
    const interaction = await loadInteraction(deps.provider(), ctx, body.fields.uid);
    ctx.status = 200;
    ctx.body = await authenticationOptions(ceremonyDeps(deps), interaction.uid, { userVerification: 'required' });
  };
}

export function createMfaOptionsHandler(deps: CeremonyOptionsDeps) {
  return async function passkeyMfaOptions(ctx: Context): Promise<void> {
    const { interaction, pending } = await readMfaRequest(ctx, deps);
    const allow = await deps.passkeys.listByAccount(pending.accountId);
    if (allow.length === 0) throw new AuthError(404, 'passkey_unknown', 'No passkey is registered for this account. Use another method.');
    ctx.status = 200;
    ctx.body = await authenticationOptions(ceremonyDeps(deps), interaction.uid, { userVerification: 'preferred', allow });
  };
}
