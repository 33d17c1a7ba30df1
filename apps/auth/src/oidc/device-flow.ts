/**
 * The device authorization grant (RFC 8628), oidc-provider's deviceFlow feature. Rules:
 * - a client registered for urn:ietf:params:oauth:grant-type:device_code (public clients
 *   included) asks at /oauth2/v1/device/authorize; discovery names that endpoint;
 * - user codes are eight letters of the base-20 alphabet BCDFGHJKLMNPQRSTVWXZ (no vowels, no
 *   digits, nothing to confuse: RFC 8628 §6.1), shown as XXXX-XXXX; case, spaces and dashes
 *   are ignored when typed;
 * - device and user codes live DEVICE_CODE_TTL seconds;
 * - /activate asks for the code (verification_uri_complete posts it for the user); a known
 *   code shows which application asks, for what, from which device, with Approve and Deny;
 *   Approve continues with the usual sign-in (password and second factor, or the SSO session)
 *   and, for a client that is not first-party, the consent step; Deny ends the request
 *   (the device's next poll gets access_denied);
 * - a user code is accepted once: confirmed, approved or denied, it is refused afterwards;
 * - a denial is audited `device.denied` (the approval, `device.approved`, by provider.ts);
 * - every error on /activate says what happened and shows the code field again, with a stable
 *   code: `user_code_missing`, `user_code_not_found` (also for an expired code, which the
 *   store does not return one), `user_code_expired`, `user_code_used` (400), `access_denied` (the
 *   user's own Deny, 200), and the OAuth error of anything else at its status (the library's
 *   English description of it on English pages only).
 */
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { AccountStore } from '../accounts/account-store.ts';
import type { Auditor } from '../audit/auditor.ts';
import { describeScopes } from '../consent/scope-descriptions.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import { activateCodePage, activateConfirmPage, activateDonePage, type ActivateProblem } from '../views/activate-page.ts';

/** Seconds a device code and its user code stay usable (RFC 8628 §3.2 `expires_in`). */
export const DEVICE_CODE_TTL = 600;

type DeviceFlowFeature = NonNullable<NonNullable<Configuration['features']>['deviceFlow']>;

/** What /activate tells the user, by oidc-provider's re-render error class. */
const PROBLEMS: Record<string, { status: number; code: 'user_code_missing' | 'user_code_not_found' | 'user_code_expired' | 'user_code_used' | 'access_denied'; notice?: boolean }> = {
  NoCodeError: { status: 400, code: 'user_code_missing' },
  NotFoundError: { status: 400, code: 'user_code_not_found' },
  ExpiredError: { status: 400, code: 'user_code_expired' },
  AlreadyUsedError: { status: 400, code: 'user_code_used' },
  AbortedError: { status: 200, code: 'access_denied', notice: true },
};

const xsrfOf = (ctx: KoaContextWithOIDC) => String((ctx.oidc.session as unknown as { state?: { secret?: string } } | undefined)?.state?.secret ?? '');

/** Marks the request whose code was not found: user-code-regulation.ts counts it as a wrong guess. */
export const WRONG_USER_CODE = 'deviceUserCodeNotFound';

export function deviceFlow(deps: { accounts: Pick<AccountStore, 'findById'>; audit: Auditor }): DeviceFlowFeature {
  return {
    enabled: true,
    charset: 'base-20',
    mask: '****-****',
    userCodeInputSource: async (ctx, _form, out, err) => {
      ctx.type = 'html';
      const language = pageLanguage(ctx);
      const typed = (err as { userCode?: string } | undefined)?.userCode;
      let problem: ActivateProblem | undefined;
      if (err) {
        const known = PROBLEMS[err.name];
        if (known) {
          ctx.status = known.status;
          problem = { code: known.code, message: language.t(`activate.problem.${known.code}`), ...(known.notice ? { notice: true } : {}) };
          if (err.name === 'NotFoundError') ctx.state[WRONG_USER_CODE] = true;
          const clientId = (ctx.oidc.entities.DeviceCode as { clientId?: string } | undefined)?.clientId;
          if (err.name === 'AbortedError' && clientId) deps.audit.record('device.denied', { client_id: clientId, ip: ctx.ip });
        } else {
          // The library words its description in English: other languages say the refusal without it.
          const description = language.locale === 'en' && typeof out?.error_description === 'string' ? out.error_description : undefined;
          problem = { code: String(out?.error ?? 'server_error'), message: description ? language.t('activate.problem.other', { description }) : language.t('activate.problem.refused') };
        }
      }
      ctx.body = activateCodePage({ xsrf: xsrfOf(ctx), ...(typed ? { userCode: typed } : {}), ...(problem ? { problem } : {}), language });
    },
    userCodeConfirmSource: async (ctx, _form, client, deviceInfo, userCode) => {
      const params = (ctx.oidc.entities.DeviceCode as { params?: { scope?: unknown } } | undefined)?.params;
      const scopes = typeof params?.scope === 'string' ? params.scope.split(' ').filter(Boolean) : [];
      const accountId = ctx.oidc.session?.accountId;
      const account = accountId ? await deps.accounts.findById(accountId) : undefined;
      const info = (deviceInfo ?? {}) as { ip?: unknown; ua?: unknown };
      ctx.type = 'html';
      ctx.body = activateConfirmPage({
        xsrf: xsrfOf(ctx),
        userCode,
        clientName: client.clientName ?? client.clientId,
        scopes: describeScopes(scopes),
        device: { ...(typeof info.ip === 'string' ? { ip: info.ip } : {}), ...(typeof info.ua === 'string' ? { userAgent: info.ua } : {}) },
        ...(account && account.disabledAt === null ? { username: account.username } : {}),
        language: pageLanguage(ctx),
      });
    },
    successSource: async (ctx) => {
      ctx.type = 'html';
      ctx.body = activateDonePage(ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId, pageLanguage(ctx));
    },
  };
}
