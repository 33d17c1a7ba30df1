/**
 * Changing the account's e-mail address from the Profile page, verified by a link. Rules:
 * - POST /account/email `email`: same-origin posts only (403) from a signed-in session (401) whose
 *   sign-in is fresh (fresh-sign-in.ts: a stale one signs in again, back to /account); the address
 *   must be valid (400 invalid_email, shown at the top of the Profile page) and differ from the
 *   current one; without a mailer (production without AUTH_SMTP_URL) it is 404 not_found;
 * - the new address is not used yet: a one-time link (32 random bytes, only its SHA-256 kept,
 *   valid 24 hours; accounts/email-change-store.ts, one pending change per account) is mailed to
 *   it (email-change-mail.ts, in the language of the request); the answer is 303 to the Profile page saying so; audited `account.email_change.requested`;
 * - GET /account/email/verify/<token>: a known, unexpired token (used up by this request) sets
 *   the new address, audited `account.email_changed`, and a notice goes to the old address; the
 *   page says so (in the reader's language), with the way to the account page; anything else is 410 `reset_link_invalid`
 *   (the link is unknown, used or expired). The link works in any browser: the token proves the
 *   mailbox, and the change was asked for by a fresh sign-in.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { z } from 'zod';
import { AuthError, type WayOn } from '../errors/auth-error.ts';
import { pageLanguage, requestLanguage } from '../i18n/page-language.ts';
import { formPage } from '../http/form-page.ts';
import { readBody } from '../http/read-body.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import type { MailMessage } from '../mail/mailer.ts';
import { messagePage } from '../views/message-page.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
import { emailChangedMail, emailVerificationMail } from './email-change-mail.ts';
import { redirectWithFlash } from './account-flash.ts';
import { renderAccount, type AccountViewDeps } from './account-view.ts';
import { requireFreshSignIn, type FreshSignInDeps } from './fresh-sign-in.ts';
import { requireSession } from '../interactions/signed-in.ts';

export const EMAIL_CHANGE_PATH = '/account/email';
export const EMAIL_VERIFY_ROUTE = '/account/email/verify/:token';

const LINK_TTL_MS = 24 * 3600_000;
const EMAIL = z.email().max(254);

export type ChangeEmailDeps = AccountViewDeps & OriginDeps & FreshSignInDeps & Pick<HandlerServices, 'mailer' | 'emailChanges' | 'accounts' | 'audit' | 'logger' | 'clock'>;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

function send(deps: ChangeEmailDeps, message: MailMessage): void {
  void deps.mailer?.send(message).catch((error: unknown) => deps.logger.warn({ err: error, event: 'mail.failed' }, 'email change mail not sent'));
}

export function createChangeEmailHandler(deps: ChangeEmailDeps) {
  return async function changeEmail(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const signedIn = await requireSession(ctx, deps);
    if (!requireFreshSignIn(ctx, deps, signedIn, SECTION_PATHS.profile)) return;
    const { account } = signedIn;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        if (!deps.mailer) throw new AuthError(404, 'not_found', 'Email addresses cannot be changed here: this server sends no mail. Ask your administrator.', { detail: 'not_found.emailChangeWithoutMail' });
        const email = (body.fields.email ?? '').trim();
        if (!EMAIL.safeParse(email).success) throw new AuthError(400, 'invalid_email', 'Enter a valid email address, such as name@example.com.');
        if (email.toLowerCase() === account.email.toLowerCase()) throw new AuthError(400, 'invalid_email', 'This is already your email address.', { detail: 'invalid_email.unchanged' });
        const token = randomBytes(32).toString('base64url');
        await deps.emailChanges.start({ accountId: account.id, newEmail: email, tokenHash: digest(token), expiresAt: deps.clock() + LINK_TTL_MS });
        send(deps, emailVerificationMail({ to: email, username: account.username, url: `${deps.config.issuer}${EMAIL_CHANGE_PATH}/verify/${token}`, expiresInHours: LINK_TTL_MS / 3600_000, language: requestLanguage(ctx) }));
        deps.audit.record('account.email_change.requested', { account_id: account.id, ip: ctx.ip });
        if (body.json) {
          ctx.status = 202;
          ctx.body = { pending_email: email };
          return;
        }
        redirectWithFlash(ctx, deps, SECTION_PATHS.profile, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.emailLinkSent', { email }) });
      },
      async page(error, body) {
        if (body.json) return false;
        await renderAccount(ctx, deps, signedIn, 'profile', { error });
        return true;
      },
    });
  };
}

export function createVerifyEmailHandler(deps: ChangeEmailDeps) {
  return async function verifyEmail(ctx: Context): Promise<void> {
    const token = typeof ctx.params.token === 'string' && /^[\w-]{43}$/.test(ctx.params.token) ? ctx.params.token : undefined;
    const change = token ? await deps.emailChanges.consume(digest(token), deps.clock()) : undefined;
    const account = change ? await deps.accounts.findById(change.accountId) : undefined;
    const language = pageLanguage(ctx);
    const way: WayOn = { label: 'Go to your account', href: SECTION_PATHS.profile, says: { way: 'account' } };
    ctx.type = 'html';
    if (!change || !account || account.disabledAt !== null) {
      ctx.status = 410;
      ctx.body = messagePage(language.t('account.emailVerify.invalidTitle'), language.t('account.emailVerify.invalid'), { code: 'reset_link_invalid', way, language });
      return;
    }
    const old = account.email;
    await deps.accounts.update(account.id, { email: change.newEmail });
    deps.audit.record('account.email_changed', { account_id: account.id, ip: ctx.ip });
    send(deps, emailChangedMail({ to: old, username: account.username, newEmail: change.newEmail, language: requestLanguage(ctx) }));
    ctx.status = 200;
    ctx.body = messagePage(language.t('account.emailVerify.doneTitle'), language.t('account.emailVerify.done', { email: change.newEmail }), { way, language });
  };
}
