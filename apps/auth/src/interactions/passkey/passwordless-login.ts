/**
 * POST /login/passkey: passwordless sign-in with a discoverable passkey. Rules:
 * - the interaction must be this browser's and match the form's `uid`; `credential` is the
 *   browser's assertion (JSON text) answering a challenge of this interaction
 *   (POST /login/passkey/options), used once;
 * - user verification is required: the passkey (something you have) unlocked by a PIN or
 *   biometrics (something you are or know) counts as both factors, amr `hwk`|`swk` + `user`
 *   (RFC 8176), so there is no /mfa/verify step;
 * - once the credential is known, the attempt's keys are the password step's
 *   (regulation/regulation-keys.ts: the known device's, or the account's and the IP's); while
 *   they wait or are locked the attempt is refused before the signature is checked (429 with
 *   Retry-After), audited `login.throttled` or `login.lockout` with step `passkey`, not counted;
 * - an assertion whose credential is unknown counts against the client IP alone, and is refused
 *   (429, not counted) while the IP waits or is locked;
 * - every refusal counts against those keys, is audited `login.passkey.failure` with its reason
 *   and answered 401 with the login page naming its stable code (like every refusal of this
 *   endpoint: HTML pages name the code, docs/spec.md §7); a counter regression is also
 *   audited `passkey.clone_suspected`; the failure that starts a lock is audited `login.lockout`;
 * - a disabled account is refused (403 account_disabled);
 * - a browser's form post (the page's script submits the assertion) gets 303 to
 *   `/interaction/<uid>` for any of these refusals, which shows that login page once with its
 *   status (step-refusal.ts: Back and reload never post the assertion again); the post counted
 *   it, the page counts nothing; API clients and JSON get the page or body itself;
 * - success is audited `login.passkey.success` and ends like the second factor: oidc-provider's
 *   302 to the client with `code` and `state`, and the SSO session cookie.
 */
import type { Context, Next } from 'koa';
import type { Account } from '../../accounts/account-store.ts';
import { AuthError } from '../../errors/auth-error.ts';
import { formPage } from '../../http/form-page.ts';
import { readBody, requireField } from '../../http/read-body.ts';
import type { HandlerServices } from '../deps.ts';
import { loadInteraction } from '../interaction-state.ts';
import { showLoginRefusal } from '../login/login-refusal.ts';
import { redirectRefusal, type StepRefusalDeps } from '../step-refusal.ts';
import { finishLogin, passkeyAmr } from '../mfa/complete-login.ts';
import { regulateAttempt, type RegulateAttemptDeps, type RegulatedAttempt } from '../../regulation/regulate-attempt.ts';
import { passwordKeys } from '../../regulation/regulation-keys.ts';
import { auditCloneSuspected } from '../../passkeys/audit-clone.ts';
import { PasskeyAssertionRefused, verifyAuthentication } from '../../passkeys/authentication.ts';
import { ceremonyDeps, type CeremonyServices } from '../../passkeys/ceremony-deps.ts';
import { CREDENTIAL_MAX } from '../../passkeys/read-credential.ts';

export type PasswordlessLoginDeps = CeremonyServices & RegulateAttemptDeps & StepRefusalDeps & Pick<HandlerServices, 'provider' | 'accounts' | 'knownDevices' | 'federation' | 'mailer'>;

/** The IP's counter alone, for an assertion whose credential is unknown. */
const ipKeys = (ip: string): string[] => passwordKeys({ username: '', ip, device: undefined }).filter((key) => key.startsWith('ip:'));

export function createPasswordlessLoginHandler(deps: PasswordlessLoginDeps) {
  return async function passkeyLogin(ctx: Context, next: Next): Promise<void> {
    await formPage(ctx, {
      async read() {
        const body = await readBody(ctx);
        return { body, interaction: await loadInteraction(deps.provider(), ctx, body.fields.uid) };
      },
      async run({ body, interaction }) {
        const credential = requireField(body, 'credential', CREDENTIAL_MAX);
        const account = await verifyPasswordless(ctx, deps, interaction.uid, credential);
        if (account.account.disabledAt !== null) {
          deps.audit.record('login.account_disabled', { account_id: account.account.id, ip: ctx.ip });
          throw new AuthError(403, 'account_disabled', 'This account is disabled. Contact your administrator.');
        }
        deps.audit.record('login.passkey.success', { account_id: account.account.id, credential_id: account.credentialId, ip: ctx.ip });
        deps.metrics.login('passkey', 'success');
        await finishLogin(ctx, next, deps, { interaction, json: body.json }, account.account.id, account.amr);
      },
      page: async (error, { body, interaction }) =>
        (error.code !== 'interaction_expired' && redirectRefusal(ctx, deps, { uid: interaction.uid, json: body.json }, { step: 'login', error })) ||
        showLoginRefusal(ctx, deps, { interaction, json: body.json }, error),
    });
  };
}

async function verifyPasswordless(
  ctx: Context,
  deps: PasswordlessLoginDeps,
  uid: string,
  credential: string,
): Promise<{ account: Account; credentialId: string; amr: string[] }> {
  let account: Account | undefined;
  let attempt: RegulatedAttempt | undefined;
  try {
    const { passkey, userVerified } = await verifyAuthentication(ceremonyDeps(deps), uid, credential, {
      userVerification: 'required',
      beforeVerify: async (found) => {
        account = await deps.accounts.findById(found.accountId);
        if (!account) throw new PasskeyAssertionRefused('unknown_credential');
        const device = deps.knownDevices.recognise(ctx, account.id);
        attempt = await regulateAttempt(deps, {
          keys: passwordKeys({ username: account.username, ip: ctx.ip, device }),
          step: 'passkey',
          lockout: { username: account.username, account_id: account.id, ip: ctx.ip, step: 'passkey', known_device: device !== undefined },
        });
      },
    });
    return { account: account!, credentialId: passkey.id, amr: passkeyAmr(passkey.deviceType, userVerified) };
  } catch (error) {
    if (!(error instanceof PasskeyAssertionRefused)) throw error;
    // No account behind the assertion: it counts against the client IP alone.
    attempt ??= await regulateAttempt(deps, { keys: ipKeys(ctx.ip), step: 'passkey' });
    const refused = account;
    return attempt.fail(error, () => {
      deps.audit.record('login.passkey.failure', {
        ip: ctx.ip,
        reason: error.reason,
        ...(refused ? { account_id: refused.id } : {}),
        ...(error.passkey ? { credential_id: error.passkey.id } : {}),
      });
      auditCloneSuspected(ctx, deps.audit, error);
    });
  }
}
