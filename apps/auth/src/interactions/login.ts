/**
 * POST /login: the password step.
 * Rules:
 * - the interaction must be this browser's (signed cookie) and match the form's uid;
 * - the attempt's regulation keys are the known device's, or the account's and the client IP's
 *   (regulation-keys.ts); a refused key set is answered 429 with Retry-After before the password
 *   is checked, even a correct one: `login.throttled` while a progressive delay runs,
 *   `login.lockout` while locked; neither is counted as a failure;
 * - an unknown username costs one argon2 verification, like a wrong password, and both get
 *   the same message (no user enumeration); the account is looked up before the regulation
 *   check (to recognise a known device), which every attempt does alike;
 * - each failure counts against the attempt's keys; the failure that starts a lock is audited
 *   `login.lockout` and counted once;
 * - success answers 200 with the second-factor page (enrollment QR when the user has no TOTP).
 */
import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { AuthError, tooManyAttempts } from '../errors/auth-error.ts';
import { readBody, requireField, type ParsedBody } from '../http/read-body.ts';
import { burnPasswordCheck, verifyPassword } from '../accounts/password.ts';
import { generateRecoveryCodes } from '../recovery/recovery-codes.ts';
import { loginPage } from '../views/login-page.ts';
import { clientName, loadInteraction, redirectOrigin, pendingLogin, savePendingLogin, type Interaction, type PendingLogin } from './interaction-state.ts';
import { applyErrorHeaders, errorBody, respond } from './respond.ts';
import { renderMfaStep, type MfaStepDeps } from './mfa-step.ts';
import { passwordKeys } from './regulation-keys.ts';
import type { HandlerServices } from './deps.ts';

export type LoginDeps = MfaStepDeps &
  Pick<HandlerServices, 'provider' | 'accounts' | 'regulator' | 'knownDevices' | 'box' | 'totp' | 'recoveryCodes' | 'audit' | 'metrics' | 'clock'>;

export function createLoginHandler(deps: LoginDeps) {
  return async function login(ctx: Context): Promise<void> {
    const provider = deps.provider();
    let body: ParsedBody | undefined;
    let interaction: Interaction | undefined;
    let username = '';
    try {
      body = await readBody(ctx);
      interaction = await loadInteraction(provider, ctx, body.fields.uid);
      username = requireField(body, 'username', 64).trim();
      const password = requireField(body, 'password', 1024);
      const account = await deps.accounts.findByUsername(username);
      const device = account ? deps.knownDevices.recognise(ctx, account.id) : undefined;
      const keys = passwordKeys({ username, ip: ctx.ip, device });
      const known_device = device !== undefined;

      const ban = await deps.regulator.check(keys);
      if (ban.state !== 'open') {
        if (ban.state === 'locked') deps.audit.record('login.lockout', { username, ip: ctx.ip, step: 'password', known_device });
        else deps.audit.record('login.throttled', { username, ip: ctx.ip, step: 'password', known_device, retry_after: ban.retryAfterSeconds });
        deps.metrics.login('password', ban.state);
        throw tooManyAttempts(ban.retryAfterSeconds);
      }
      const ok = account ? await verifyPassword(account.passwordHash, password) : (await burnPasswordCheck(password), false);
      if (!account || !ok) {
        const after = await deps.regulator.fail(keys);
        deps.audit.record('login.password.failure', { username, ip: ctx.ip });
        deps.metrics.login('password', 'failure');
        if (after.state === 'locked') {
          deps.audit.record('login.lockout', { username, ip: ctx.ip, step: 'password', known_device });
          deps.metrics.lockout('password');
        }
        throw new AuthError(401, 'invalid_credentials', 'Invalid username or password.');
      }
      if (account.disabledAt !== null) {
        deps.audit.record('login.account_disabled', { account_id: account.id, ip: ctx.ip });
        throw new AuthError(403, 'account_disabled', 'This account is disabled. Contact your administrator.');
      }
      deps.audit.record('login.password.success', { account_id: account.id, ip: ctx.ip });
      deps.metrics.login('password', 'success');

      const previous = pendingLogin(interaction);
      const pending: PendingLogin = { accountId: account.id, username: account.username, passwordAt: deps.clock() };
      if (!account.totpEnrolled) {
        const resumed = previous?.accountId === account.id && previous.pendingTotpSecret ? previous : undefined;
        pending.pendingTotpSecret = resumed?.pendingTotpSecret ?? deps.box.seal(deps.totp.generateSecret());
        // Second-factor enrollment hands out the recovery codes (once) unless the account has some.
        if (resumed?.pendingRecoveryCodes) pending.pendingRecoveryCodes = resumed.pendingRecoveryCodes;
        else if ((await deps.recoveryCodes.remaining(account.id)) === 0) {
          pending.pendingRecoveryCodes = deps.box.seal(JSON.stringify(generateRecoveryCodes()));
        }
      }
      await savePendingLogin(interaction, pending);
      await renderMfaStep(ctx, deps, { interaction, pending, json: body.json, status: 200 });
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      applyErrorHeaders(ctx, error);
      const json = body?.json ?? Boolean(ctx.request.is('application/json'));
      if (!interaction || error.code === 'interaction_expired' || error.status === 413 || error.status === 415) throw error;
      const name = await clientName(provider, interaction);
      const uid = interaction.uid;
      // The page offers a passkey, whose success is a redirect to the client (CSP form-action).
      ctx.state.formActionOrigins = redirectOrigin(interaction);
      respond(ctx, json, error.status, () => loginPage({ uid, clientName: name, username, error: error.message, errorCode: error.code }), {
        ...errorBody(error),
        next: AUTH_ROUTES.login,
      });
    }
  };
}
