/**
 * POST /login/passkey: passwordless sign-in with a discoverable passkey. Rules:
 * - the interaction must be this browser's and match the form's `uid`; `credential` is the
 *   browser's assertion (JSON text) answering a challenge of this interaction
 *   (POST /login/passkey/options), used once;
 * - user verification is required: the passkey (something you have) unlocked by a PIN or
 *   biometrics (something you are or know) counts as both factors, amr `hwk`|`swk` + `user`
 *   (RFC 8176), so there is no /mfa/verify step;
 * - a banned IP is refused before anything is checked, a banned account once its credential is
 *   known and before its signature is checked (429), audited `login.lockout` step `passkey`;
 * - every refusal counts against the IP, and against the account when the credential was found
 *   (the counters the password and code steps use), is audited `login.passkey.failure` with its
 *   reason and answered 401 with the login page and its stable code; a counter regression is
 *   also audited `passkey.clone_suspected`;
 * - a disabled account is refused (403 account_disabled);
 * - success is audited `login.passkey.success` and ends like the second factor: oidc-provider's
 *   302 to the client with `code` and `state`, and the SSO session cookie.
 */
import type { Context, Next } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { Account } from '../accounts/account-store.ts';
import { AuthError, tooManyAttempts } from '../errors/auth-error.ts';
import { readBody, requireField, type ParsedBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { clientName, loadInteraction, redirectOrigin, type Interaction } from '../interactions/interaction-state.ts';
import { finishLogin, passkeyAmr } from '../interactions/mfa/complete-login.ts';
import { regulationKeys } from '../interactions/regulation-keys.ts';
import { applyErrorHeaders, errorBody, respond } from '../interactions/respond.ts';
import { audit } from '../logging/logger.ts';
import { loginPage } from '../views/login-page.ts';
import { auditCloneSuspected } from './audit-clone.ts';
import { PasskeyAssertionRefused, verifyAuthentication } from './authentication.ts';
import { ceremonyDeps, type CeremonyServices } from './ceremony-deps.ts';
import { CREDENTIAL_MAX } from './read-credential.ts';

export type PasswordlessLoginDeps = CeremonyServices & Pick<HandlerServices, 'provider' | 'accounts' | 'regulator' | 'logger' | 'metrics'>;

/** The IP's counter alone, for an assertion whose credential is unknown. */
const ipKeys = (ip: string): string[] => regulationKeys('', ip).filter((key) => key.startsWith('ip:'));

export function createPasswordlessLoginHandler(deps: PasswordlessLoginDeps) {
  return async function passkeyLogin(ctx: Context, next: Next): Promise<void> {
    const provider = deps.provider();
    let body: ParsedBody | undefined;
    let interaction: Interaction | undefined;
    try {
      body = await readBody(ctx);
      interaction = await loadInteraction(provider, ctx, body.fields.uid);
      const credential = requireField(body, 'credential', CREDENTIAL_MAX);
      const ipBan = await deps.regulator.check(ipKeys(ctx.ip));
      if (ipBan.banned) {
        deps.metrics.login('passkey', 'locked');
        throw tooManyAttempts(ipBan.retryAfterSeconds);
      }
      const account = await verifyPasswordless(ctx, deps, interaction.uid, credential);
      if (account.account.disabledAt !== null) {
        audit(deps.logger, 'login.account_disabled', { account_id: account.account.id, ip: ctx.ip });
        throw new AuthError(403, 'account_disabled', 'This account is disabled. Contact your administrator.');
      }
      audit(deps.logger, 'login.passkey.success', { account_id: account.account.id, credential_id: account.credentialId, ip: ctx.ip });
      deps.metrics.login('passkey', 'success');
      await finishLogin(ctx, next, deps, { interaction, json: body.json }, account.account.id, account.amr);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      applyErrorHeaders(ctx, error);
      if (!interaction || error.code === 'interaction_expired' || error.status === 413 || error.status === 415) throw error;
      const json = body?.json ?? false;
      const name = await clientName(provider, interaction);
      const uid = interaction.uid;
      // The page offers the passkey again, whose success is a redirect to the client.
      ctx.state.formActionOrigins = redirectOrigin(interaction);
      respond(ctx, json, error.status, () => loginPage({ uid, clientName: name, error: error.message }), { ...errorBody(error), next: AUTH_ROUTES.login });
    }
  };
}

async function verifyPasswordless(
  ctx: Context,
  deps: PasswordlessLoginDeps,
  uid: string,
  credential: string,
): Promise<{ account: Account; credentialId: string; amr: string[] }> {
  let account: Account | undefined;
  try {
    const { passkey, userVerified } = await verifyAuthentication(ceremonyDeps(deps), uid, credential, {
      userVerification: 'required',
      beforeVerify: async (found) => {
        account = await deps.accounts.findById(found.accountId);
        if (!account) throw new PasskeyAssertionRefused('unknown_credential');
        const ban = await deps.regulator.check(regulationKeys(account.username, ctx.ip));
        if (ban.banned) {
          audit(deps.logger, 'login.lockout', { username: account.username, account_id: account.id, ip: ctx.ip, step: 'passkey' });
          deps.metrics.login('passkey', 'locked');
          throw tooManyAttempts(ban.retryAfterSeconds);
        }
      },
    });
    return { account: account!, credentialId: passkey.id, amr: passkeyAmr(passkey.deviceType, userVerified) };
  } catch (error) {
    if (!(error instanceof PasskeyAssertionRefused)) throw error;
    const after = await deps.regulator.fail(account ? regulationKeys(account.username, ctx.ip) : ipKeys(ctx.ip));
    audit(deps.logger, 'login.passkey.failure', {
      ip: ctx.ip,
      reason: error.reason,
      ...(account ? { account_id: account.id } : {}),
      ...(error.passkey ? { credential_id: error.passkey.id } : {}),
    });
    auditCloneSuspected(ctx, deps.logger, error);
    deps.metrics.login('passkey', 'failure');
    if (after.banned && account) {
      audit(deps.logger, 'login.lockout', { username: account.username, account_id: account.id, ip: ctx.ip, step: 'passkey' });
      deps.metrics.lockout('passkey');
    }
    throw error;
  }
}
