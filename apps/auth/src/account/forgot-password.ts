/**
 * "Forgot password?": GET and POST /account/forgot-password[?return=/interaction/<uid>]. Rules, in
 * the order they run:
 * - without a mailer (production without AUTH_SMTP_URL) both answer 404 `password_recovery_unavailable`
 *   with a page saying to ask the administrator, and the login page shows no link;
 * - the POST is same-origin only (403);
 * - the username or e-mail address is required, at most 254 characters (400 `identifier_required`);
 * - the request counts against what was typed (lowercased) and the client IP (regulation rules
 *   `recovery` and `recovery-ip`, services.ts RECOVERY_RULES); while either is spent the answer is
 *   429 with Retry-After, whether or not an account matches;
 * - a username matches its account; otherwise an e-mail address matches the accounts having it
 *   (ignoring case); disabled accounts never match;
 * - each match gets a fresh one-time link (admin/password-reset.ts machinery: replaces its earlier
 *   link, 1 hour) by e-mail, unless its own `recovery` key is spent (then nothing is sent and the
 *   answer is the same); the mail is sent after the answer, so the answer's time and content never
 *   tell whether an account matched; a send that fails is logged without the link;
 * - every request is audited `password_reset.requested` (account_id when matched, `sent`);
 * - the answer is always the same page: "If an account matches, we sent a link…", with the way back
 *   to the sign-in page the user came from.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import type { Account } from '../accounts/account-store.ts';
import { PASSWORD_RESET_PATH, PASSWORD_RESET_TTL_MS } from '../admin/password-reset.ts';
import { AuthError, tooManyAttempts } from '../errors/auth-error.ts';
import { formPage } from '../http/form-page.ts';
import { readBody } from '../http/read-body.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { forgotPasswordPage, forgotPasswordSentPage, recoveryUnavailablePage } from '../views/forgot-password-page.ts';
import { recoveryMail } from './recovery-mail.ts';
import { recoveryReturn, returnQuery, signInAgainUrl } from './recovery-return.ts';

export const FORGOT_PASSWORD_PATH = '/account/forgot-password';
const EXPIRES_IN_MINUTES = PASSWORD_RESET_TTL_MS / 60_000;

export type ForgotPasswordDeps = OriginDeps &
  Pick<HandlerServices, 'mailer' | 'accounts' | 'passwordResets' | 'regulator' | 'audit' | 'logger'> & {
    config: Pick<HandlerServices['config'], 'issuer'>;
  };

function unavailable(ctx: Context, returnTo: string | undefined): void {
  ctx.status = 404;
  ctx.type = 'html';
  ctx.body = recoveryUnavailablePage({ signInUrl: signInAgainUrl(returnTo), language: pageLanguage(ctx) });
}

export function createForgotPasswordFormHandler(deps: ForgotPasswordDeps) {
  return async function showForgotPassword(ctx: Context): Promise<void> {
    const returnTo = recoveryReturn(ctx.query.return);
    if (!deps.mailer) return unavailable(ctx, returnTo);
    ctx.status = 200;
    ctx.type = 'html';
    ctx.body = forgotPasswordPage({ action: `${FORGOT_PASSWORD_PATH}${returnQuery(returnTo)}`, signInUrl: signInAgainUrl(returnTo), language: pageLanguage(ctx) });
  };
}

async function matches(deps: ForgotPasswordDeps, identifier: string): Promise<Account[]> {
  const byName = await deps.accounts.findByUsername(identifier);
  const found = byName ? [byName] : identifier.includes('@') ? await deps.accounts.findByEmail(identifier) : [];
  return found.filter((account) => account.disabledAt === null);
}

export function createForgotPasswordHandler(deps: ForgotPasswordDeps) {
  const mailer = deps.mailer;
  return async function requestReset(ctx: Context): Promise<void> {
    const returnTo = recoveryReturn(ctx.query.return);
    if (!mailer) return unavailable(ctx, returnTo);
    requireSameOrigin(ctx, deps);
    const action = `${FORGOT_PASSWORD_PATH}${returnQuery(returnTo)}`;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        const identifier = (body.fields.identifier ?? '').trim();
        if (identifier === '' || identifier.length > 254) throw new AuthError(400, 'identifier_required', 'Enter your username or email address.');
        const keys = [`recovery:name/${identifier.toLowerCase()}`, `recovery-ip:${ctx.ip}`];
        const state = await deps.regulator.check(keys);
        if (state.state !== 'open') throw tooManyAttempts(state.retryAfterSeconds);
        await deps.regulator.fail(keys);
        const accounts = await matches(deps, identifier);
        if (accounts.length === 0) deps.audit.record('password_reset.requested', { ip: ctx.ip, sent: false });
        for (const account of accounts) {
          const accountKey = [`recovery:account/${account.id}`];
          const open = (await deps.regulator.check(accountKey)).state === 'open';
          deps.audit.record('password_reset.requested', { account_id: account.id, ip: ctx.ip, sent: open });
          if (!open) continue;
          await deps.regulator.fail(accountKey);
          const { token } = await deps.passwordResets.issue(account.id, PASSWORD_RESET_TTL_MS);
          const url = `${deps.config.issuer}${PASSWORD_RESET_PATH}/${token}${returnQuery(returnTo)}`;
          // After the answer: its time does not depend on the mail server (nor on a match).
          void mailer.send(recoveryMail({ to: account.email, username: account.username, url, expiresInMinutes: EXPIRES_IN_MINUTES, language: pageLanguage(ctx) })).catch((error: unknown) => {
            deps.logger.warn({ event: 'mail.send_failed', account_id: account.id, reason: error instanceof Error ? error.message : String(error) }, 'the password-recovery mail could not be sent');
          });
        }
        ctx.status = 200;
        if (body.json) {
          ctx.body = { status: 'sent_if_matched' };
          return;
        }
        ctx.type = 'html';
        ctx.body = forgotPasswordSentPage({ signInUrl: signInAgainUrl(returnTo), expiresInMinutes: EXPIRES_IN_MINUTES, language: pageLanguage(ctx) });
      },
      async page(error, body) {
        if (body.json) return false;
        ctx.status = error.status;
        ctx.type = 'html';
        const language = pageLanguage(ctx);
        ctx.body = forgotPasswordPage({ action, signInUrl: signInAgainUrl(returnTo), identifier: (body.fields.identifier ?? '').slice(0, 254), error: { code: error.code, message: language.errorText(error) }, language });
        return true;
      },
    });
  };
}
