/**
 * The confirmation pages of the account page's destructive actions: a GET page says what will
 * happen, with Confirm (a form posting to the action) and Cancel (back to the section); no
 * script is needed. Rules:
 * - every page needs a signed-in session (a visit without one goes through the login and
 *   comes back to the same page);
 * - removing a push device or a passkey and creating new recovery codes also need a fresh
 *   sign-in (fresh-sign-in.ts): a stale session signs in again and comes back here;
 * - the thing named must be the account's own (a device, passkey, linked provider or another
 *   session of the account); otherwise the section page opens with an error at its top
 *   (303, `not_found`), and "this session" cannot be ended here (sign out instead);
 * - values are taken from the query only as the action's own fields (ids of bounded length).
 */
import type { Context } from 'koa';
import type { HandlerServices } from '../interactions/deps.ts';
import { PASSKEY_PATHS } from '../views/passkey-paths.ts';
import { confirmPage, type ConfirmModel } from '../views/account-page.ts';
import { ACCOUNT_CONFIRM_PATHS, SECTION_PATHS, type AccountSection } from '../views/account-paths.ts';
import { redirectWithFlash } from './account-flash.ts';
import { accountFrame, pageSession, sessionsOf, type AccountViewDeps } from './account-view.ts';
import { requireFreshSignIn, type FreshSignInDeps } from './fresh-sign-in.ts';
import { linkedProviders } from './linked-providers.ts';
import type { SignedIn } from './signed-in.ts';
import { END_SESSION_PATH } from './end-session.ts';
import { LINKED_PROVIDERS_REMOVE_PATH } from './remove-link.ts';

export type ConfirmActionsDeps = AccountViewDeps & FreshSignInDeps & Pick<HandlerServices, 'clock'>;

type Prepared = ConfirmModel | { missing: string };

interface ConfirmAction {
  section: AccountSection;
  fresh: boolean;
  prepare(deps: ConfirmActionsDeps, signedIn: SignedIn, query: (name: string) => string): Promise<Prepared>;
}

const param = (ctx: Context) => (name: string) => {
  const value = ctx.query[name];
  return typeof value === 'string' && value.length <= 1400 ? value : '';
};

const ACTIONS: Record<keyof typeof ACCOUNT_CONFIRM_PATHS, ConfirmAction> = {
  removeDevice: {
    section: 'security',
    fresh: true,
    async prepare(deps, { account }, q) {
      const device = (await deps.devices.listByAccount(account.id)).find((d) => d.id === q('device_id'));
      if (!device) return { missing: 'This device is not on your account. Nothing was removed.' };
      return {
        title: 'Remove this device?',
        subject: device.name,
        consequence: 'This device will no longer be able to approve your sign-ins with a push. You can add it again later.',
        action: '/authenticator/devices/remove',
        fields: { device_id: device.id },
        confirmLabel: 'Remove the device',
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  removePasskey: {
    section: 'security',
    fresh: true,
    async prepare(deps, { account }, q) {
      const passkey = (await deps.passkeys.listByAccount(account.id)).find((p) => p.id === q('credential_id'));
      if (!passkey) return { missing: 'This passkey is not on your account. Nothing was removed.' };
      return {
        title: 'Remove this passkey?',
        subject: passkey.name,
        consequence: 'This passkey will no longer sign you in. The key itself stays on your device or security key; you can delete it there.',
        action: PASSKEY_PATHS.remove,
        fields: { credential_id: passkey.id },
        confirmLabel: 'Remove the passkey',
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  recoveryCodes: {
    section: 'security',
    fresh: true,
    async prepare(deps, { account }) {
      const remaining = await deps.recoveryCodes.remaining(account.id);
      return {
        title: 'Create new recovery codes?',
        consequence: `You get 10 new recovery codes. Your ${remaining === 1 ? 'unused recovery code stops' : `${remaining} unused recovery codes stop`} working at once, so keep the new ones somewhere safe.`,
        action: '/authenticator/recovery-codes',
        fields: {},
        confirmLabel: 'Create new codes',
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  removeLink: {
    section: 'security',
    fresh: false,
    async prepare(deps, { account }, q) {
      const link = (await linkedProviders(deps, account.id)).find((l) => l.provider === q('provider'));
      if (!link) return { missing: 'Your account is not linked to this provider. Nothing was removed.' };
      return {
        title: 'Remove this sign-in provider?',
        subject: link.name,
        consequence: `${link.name} will no longer sign you in to this account. You can link it again by signing in with it.`,
        action: LINKED_PROVIDERS_REMOVE_PATH,
        fields: { provider: link.provider },
        confirmLabel: 'Remove the provider',
        cancelHref: SECTION_PATHS.security,
      };
    },
  },
  signOutOthers: {
    section: 'sessions',
    fresh: false,
    async prepare(deps, signedIn) {
      const others = (await sessionsOf(deps, signedIn)).filter((s) => !s.current).length;
      return {
        title: 'Sign out all other sessions?',
        consequence: `${others === 1 ? '1 other session ends' : `${others} other sessions end`}, with the app sign-ins they hold: those browsers must sign in again. This browser stays signed in.`,
        action: ACCOUNT_CONFIRM_PATHS.signOutOthers,
        fields: {},
        confirmLabel: 'Sign out other sessions',
        cancelHref: SECTION_PATHS.sessions,
      };
    },
  },
  endSession: {
    section: 'sessions',
    fresh: false,
    async prepare(deps, signedIn, q) {
      const session = (await sessionsOf(deps, signedIn)).find((s) => s.uid !== undefined && s.uid === q('session'));
      if (!session) return { missing: 'This session has already ended or is not one of yours. Nothing was signed out.' };
      if (session.current) return { missing: 'This is the session you are using. To end it, use Sign out.' };
      const place = session.ip ? ` from ${session.ip}` : '';
      return {
        title: 'Sign out this session?',
        subject: `${session.browser}${place}`,
        consequence: 'That browser must sign in again, and the app sign-ins it holds end. Your other sessions stay signed in.',
        action: END_SESSION_PATH,
        fields: { session: q('session') },
        confirmLabel: 'Sign out the session',
        cancelHref: SECTION_PATHS.sessions,
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
    const prepared = await action.prepare(deps, signedIn, param(ctx));
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
