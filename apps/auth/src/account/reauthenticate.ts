/**
 * Proving the account's current credentials again on the account page, under the same
 * regulation as the login (regulation/regulation-keys.ts, regulation/regulate-attempt.ts).
 * Rules:
 * - a refused key set answers 429 with Retry-After before anything is checked;
 * - a wrong answer is 401 (like the login's), and counts as a failure of the login step it stands for: the current
 *   password against the password keys, a code against the second-factor keys, so the page
 *   cannot be used to guess past the login's limits;
 * - a TOTP code is accepted once (the account's last used step, like the login); a recovery
 *   code (any input that is not 6 digits) is used up;
 * - a passkey assertion must answer a challenge issued for the same purpose (`binding`), once, with
 *   one of the account's credentials (passkeys/authentication.ts); a refusal is 401 with the
 *   passkey's stable code, and a counter regression is audited `passkey.clone_suspected`.
 */
import type { Context } from 'koa';
import type { Account } from '../accounts/account-store.ts';
import { verifyPassword } from '../accounts/password.ts';
import { AuthError } from '../errors/auth-error.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { regulateAttempt, type RegulateAttemptDeps } from '../regulation/regulate-attempt.ts';
import { passwordKeys, secondFactorKeys } from '../regulation/regulation-keys.ts';
import { auditCloneSuspected } from '../passkeys/audit-clone.ts';
import { PasskeyAssertionRefused, verifyAuthentication } from '../passkeys/authentication.ts';
import { ceremonyDeps, type CeremonyServices } from '../passkeys/ceremony-deps.ts';

export type ReauthenticateDeps = RegulateAttemptDeps & Pick<HandlerServices, 'knownDevices' | 'accounts' | 'totp' | 'recoveryCodes' | 'clock'>;

type Check = () => Promise<AuthError | undefined>;

/** The account page's re-checks name no login step: the page audits its own refusals. */
async function regulated(deps: ReauthenticateDeps, keys: string[], check: Check): Promise<void> {
  const attempt = await regulateAttempt(deps, { keys });
  const refusal = await check();
  if (refusal) await attempt.fail(refusal);
}

const origin = (ctx: Context, deps: ReauthenticateDeps, account: Account) => ({ username: account.username, ip: ctx.ip, device: deps.knownDevices.recognise(ctx, account.id) });

export const wrongPassword = (): AuthError => new AuthError(401, 'invalid_current_password', 'Your current password is not correct.');

export async function requireCurrentPassword(ctx: Context, deps: ReauthenticateDeps, account: Account, password: string): Promise<void> {
  await regulated(deps, passwordKeys(origin(ctx, deps, account)), async () => ((await verifyPassword(account.passwordHash, password)) ? undefined : wrongPassword()));
}

/**
 * A current TOTP code (once) or an unused recovery code of the account. `keys`: what it counts
 * against (by default the login's second-factor keys; a reset link's page counts it against the
 * account's `mfa:` key alone, since the password keys may be locked by the guessing it recovers from).
 */
export async function requireCurrentFactor(ctx: Context, deps: ReauthenticateDeps, account: Account, code: string, keys = secondFactorKeys(origin(ctx, deps, account))): Promise<void> {
  await regulated(deps, keys, async () => {
    if (/^[0-9]{6}$/.test(code)) {
      const secret = await deps.accounts.getTotpSecret(account.id);
      const step = secret ? await deps.totp.verify(secret, code, deps.clock()) : null;
      if (step === null) return new AuthError(401, 'invalid_code', 'This code is not correct. Enter the current code of your authenticator app.');
      if (!(await deps.accounts.consumeTotpStep(account.id, step))) return new AuthError(401, 'code_replayed', 'This code was already used. Wait for the next one.');
      return undefined;
    }
    const result = await deps.recoveryCodes.consume(account.id, code);
    return result === 'accepted' ? undefined : new AuthError(401, 'invalid_code', 'This code is not correct. Enter the current code of your authenticator app or an unused recovery code.');
  });
}

/** A WebAuthn assertion of one of the account's passkeys, answering a challenge issued for `binding`. */
export async function requirePasskey(
  ctx: Context,
  deps: ReauthenticateDeps & CeremonyServices & Pick<HandlerServices, 'audit'>,
  account: Account,
  binding: string,
  credential: string,
  keys: string[],
): Promise<void> {
  await regulated(deps, keys, async () => {
    try {
      await verifyAuthentication(ceremonyDeps(deps), binding, credential, { userVerification: 'preferred', accountId: account.id });
      return undefined;
    } catch (error) {
      if (!(error instanceof PasskeyAssertionRefused)) throw error;
      auditCloneSuspected(ctx, deps.audit, error);
      return error;
    }
  });
}
