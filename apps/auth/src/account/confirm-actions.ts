/**
 * The confirmation pages of the account page's destructive actions: a GET page says what will
 * happen, with Confirm (a form posting to the action) and Cancel (back to the section); no
 * script is needed. Rules:
 * - every page needs a signed-in session (a visit without one goes through the login and
 *   comes back to the same page);
 * - removing a push device or a passkey and creating new recovery codes also need a fresh
 *   sign-in (fresh-sign-in.ts): a stale session signs in again and comes back here;
 * - the thing named must be the account's own (a device, passkey, linked provider, another
 *   session of the account or an app connected to it); otherwise the section page opens with an error at its top
 *   (303, `not_found`), and "this session" cannot be ended here (sign out instead);
 * - values are taken from the query only as the action's own fields (ids of bounded length).
 */
import { pageLanguage, type PageLanguage } from '../i18n/page-language.ts';
import { sayBrowserLabel } from '../views/browser-label.ts';
import type { Context } from 'koa';
import type { HandlerServices } from '../interactions/deps.ts';
import { PASSKEY_PATHS } from '../views/passkey-paths.ts';
import { confirmPage, type ConfirmModel } from '../views/account-page.ts';
import { ACCOUNT_CONFIRM_PATHS, SECTION_PATHS, type AccountSection } from '../views/account-paths.ts';
import { redirectWithFlash } from './account-flash.ts';
import { accountFrame, pageSession, sessionsOf, type AccountViewDeps } from './account-view.ts';
import { requireFreshSignIn, type FreshSignInDeps } from './fresh-sign-in.ts';
import { linkedProviders } from './linked-providers.ts';
import type { SignedIn } from '../interactions/signed-in.ts';
import { END_SESSION_PATH } from './end-session.ts';
import { LINKED_PROVIDERS_REMOVE_PATH } from './remove-link.ts';
import { CONNECTED_APPS_REVOKE_PATH, connectedApps } from './connected-apps.ts';

export type ConfirmActionsDeps = AccountViewDeps & FreshSignInDeps & Pick<HandlerServices, 'clock'>;

type Prepared = ConfirmModel | { missing: string };

interface ConfirmAction {
  section: AccountSection;
  fresh: boolean;
  prepare(deps: ConfirmActionsDeps, signedIn: SignedIn, query: (name: string) => string, language: PageLanguage): Promise<Prepared>;
}

const param = (ctx: Context) => (name: string) => {
  const value = ctx.query[name];
  return typeof value === 'string' && value.length <= 1400 ? value : '';
};

const ACTIONS: Record<keyof typeof ACCOUNT_CONFIRM_PATHS, ConfirmAction> = {
  removeDevice: {
    section: 'security',
    fresh: true,
    async prepare(deps, { account }, q, { t }) {
      const device = (await deps.devices.listByAccount(account.id)).find((d) => d.id === q('device_id'));
      if (!device) return { missing: t('confirm.noDevice') };
      return {
        title: t('confirm.removeDeviceTitle'),
        subject: device.name,
        consequence: t('confirm.removeDevice'),
        action: '/authenticator/devices/remove',
        fields: { device_id: device.id },
        confirmLabel: t('confirm.removeDeviceButton'),
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  removePasskey: {
    section: 'security',
    fresh: true,
    async prepare(deps, { account }, q, { t }) {
      const passkey = (await deps.passkeys.listByAccount(account.id)).find((p) => p.id === q('credential_id'));
      if (!passkey) return { missing: t('confirm.noPasskey') };
      return {
        title: t('confirm.removePasskeyTitle'),
        subject: passkey.name,
        consequence: t('confirm.removePasskey'),
        action: PASSKEY_PATHS.remove,
        fields: { credential_id: passkey.id },
        confirmLabel: t('confirm.removePasskeyButton'),
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  recoveryCodes: {
    section: 'security',
    fresh: true,
    async prepare(deps, { account }, _q, { t }) {
      const remaining = await deps.recoveryCodes.remaining(account.id);
      return {
        title: t('confirm.newCodesTitle'),
        consequence: t('confirm.newCodes', { remaining }),
        action: '/authenticator/recovery-codes',
        fields: {},
        confirmLabel: t('confirm.newCodesButton'),
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  removeLink: {
    section: 'security',
    fresh: false,
    async prepare(deps, { account }, q, { t }) {
      const link = (await linkedProviders(deps, account.id)).find((l) => l.provider === q('provider'));
      if (!link) return { missing: t('confirm.noLink') };
      return {
        title: t('confirm.removeLinkTitle'),
        subject: link.name,
        consequence: t('confirm.removeLink', { provider: link.name }),
        action: LINKED_PROVIDERS_REMOVE_PATH,
        fields: { provider: link.provider },
        confirmLabel: t('confirm.removeLinkButton'),
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  signOutOthers: {
    section: 'sessions',
    fresh: false,
    async prepare(deps, signedIn, _q, { t }) {
      const others = (await sessionsOf(deps, signedIn)).filter((s) => !s.current).length;
      return {
        title: t('confirm.othersTitle'),
        consequence: t('confirm.others', { others }),
        action: ACCOUNT_CONFIRM_PATHS.signOutOthers,
        fields: {},
        confirmLabel: t('confirm.othersButton'),
        cancelHref: SECTION_PATHS.sessions,
      };
    },
  },
  endSession: {
    section: 'sessions',
    fresh: false,
    async prepare(deps, signedIn, q, language) {
      const { t } = language;
      const session = (await sessionsOf(deps, signedIn)).find((s) => s.uid !== undefined && s.uid === q('session'));
      if (!session) return { missing: t('confirm.noSession') };
      if (session.current) return { missing: t('confirm.thisSession') };
      const place = session.ip ? t('confirm.from', { ip: session.ip }) : '';
      return {
        title: t('confirm.endSessionTitle'),
        subject: `${sayBrowserLabel(session.browser, language)}${place}`,
        consequence: t('confirm.endSession'),
        action: END_SESSION_PATH,
        fields: { session: q('session') },
        confirmLabel: t('confirm.endSessionButton'),
        cancelHref: SECTION_PATHS.sessions,
      };
    },
  },
  revokeApp: {
    section: 'apps',
    fresh: false,
    async prepare(deps, { account }, q, { t }) {
      const app = (await connectedApps(deps, account.id)).find((a) => a.clientId === q('client_id'));
      if (!app) return { missing: t('confirm.noApp') };
      return {
        title: t('confirm.revokeAppTitle'),
        subject: app.name,
        consequence: t('confirm.revokeApp', { app: app.name }),
        action: CONNECTED_APPS_REVOKE_PATH,
        fields: { client_id: app.clientId },
        confirmLabel: t('confirm.revokeAppButton'),
        cancelHref: SECTION_PATHS.apps,
      };
    },
  },
};

function createConfirmHandler(deps: ConfirmActionsDeps, path: string, action: ConfirmAction) {
  return async function confirmAction(ctx: Context): Promise<void> {
    const here = ctx.querystring ? `${path}?${ctx.querystring}` : path;
    const signedIn = await pageSession(ctx, deps, here);
    if (!signedIn) return;
    if (action.fresh && !requireFreshSignIn(ctx, deps, signedIn, here)) return;
    const prepared = await action.prepare(deps, signedIn, param(ctx), pageLanguage(ctx));
    if ('missing' in prepared) {
      redirectWithFlash(ctx, deps, SECTION_PATHS[action.section], { kind: 'error', text: prepared.missing, code: 'not_found' });
      return;
    }
    ctx.status = 200;
    ctx.type = 'html';
    ctx.body = confirmPage(await accountFrame(ctx, deps, signedIn, action.section), prepared);
  };
}

/** [path, GET handler] of every confirmation page. */
export function confirmPages(deps: ConfirmActionsDeps): [string, ReturnType<typeof createConfirmHandler>][] {
  return (Object.keys(ACTIONS) as (keyof typeof ACTIONS)[]).map((key) => [ACCOUNT_CONFIRM_PATHS[key], createConfirmHandler(deps, ACCOUNT_CONFIRM_PATHS[key], ACTIONS[key])]);
}
