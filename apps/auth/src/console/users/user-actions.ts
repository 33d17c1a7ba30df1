/**
 * The Users section's forms (admins only: console-routes.ts refuses an auditor's post with 403),
 * each a call of admin/user-admin.ts or admin/password-reset.ts with the admin as the actor, so
 * each is audited with their account. Rules:
 * - create (/admin/users/new): username, name, e-mail and groups, never a password: the account
 *   gets a password nobody knows, and the answer shows a one-time password-reset link to hand
 *   over (it is shown on that answer only, never carried by a redirect or logged);
 * - edit (/admin/users/:id/edit): name, e-mail and groups (separated by commas or spaces);
 * - a refused create or edit shows the form again with the admin's values and the error (its status);
 * - disable, remove, reset second factors, sign out everywhere and revoking a grant first show a
 *   confirmation page (GET) saying what they will do; the post does it;
 * - enable and unlock act at once; every success returns 303 to the user's page with a message
 *   saying what was done (console-flash.ts), in the language of the post.
 */
import type { Account } from '../../accounts/account-store.ts';
import type { PageLanguage } from '../../i18n/page-language.ts';
import { UserAdminError } from '../../admin/user-admin.ts';
import { resetLinkBody, userFormBody } from '../../views/console-users-page.ts';
import type { ConsoleActionRequest, ConsoleRoutes } from '../console-routes.ts';
import { consoleRefusal } from '../console-refusal.ts';
import { userUrl } from '../console-paths.ts';
import type { UsersSectionDeps } from './users-deps.ts';

const USERS = '/admin/users';
const WRITE = { write: true };

/** Groups as typed: separated by commas or white space, empty entries dropped. */
export const parseGroups = (text: string): string[] => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

export function registerUserActions(routes: ConsoleRoutes, deps: UsersSectionDeps): void {
  const account = (id: string): Promise<Account> => deps.users.byId(id);

  // --- create
  const blank = { username: '', name: '', email: '', groups: '' };
  const createForm = (language: PageLanguage) => ({ action: `${USERS}/new`, heading: language.t('console.users.create'), submitLabel: language.t('console.users.createSubmit'), withUsername: true, cancelHref: USERS });
  routes.page(`${USERS}/new`, async ({ viewer, language, render }) => {
    const form = createForm(language);
    render({ title: form.heading, body: userFormBody({ ...form, viewer, values: blank }) });
  }, WRITE);
  routes.action(
    `${USERS}/new`,
    async (request) => {
      const { language } = request;
      const { t } = language;
      const values = { username: request.optional('username', 64), name: request.optional('name', 200), email: request.optional('email', 254), groups: request.optional('groups', 1000) };
      try {
        const created = await deps.users.create(request.admin.actor, { username: values.username, name: values.name, email: values.email, groups: parseGroups(values.groups) });
        const link = await deps.issuePasswordReset(request.admin.actor, created.username);
        request.render({
          title: t('console.users.created.title'),
          body: resetLinkBody({ language, heading: t('console.users.created.title'), intro: t('console.users.created.intro', { username: created.username }), username: created.username, url: link.url, expiresAt: link.expiresAt, userHref: userUrl(created.id) }),
        });
      } catch (error) {
        showForm(request, error, { ...createForm(language), values });
      }
    },
    { back: () => `${USERS}/new` },
  );

  // --- edit
  const editForm = (language: PageLanguage, user: Account) => ({ action: `${userUrl(user.id)}/edit`, heading: language.t('console.users.editTitle', { username: user.username }), submitLabel: language.t('console.users.save'), withUsername: false, cancelHref: userUrl(user.id) });
  routes.page(`${USERS}/:id/edit`, async ({ params, viewer, language, render }) => {
    const user = await account(params.id!);
    const form = editForm(language, user);
    render({ title: form.heading, body: userFormBody({ ...form, viewer, values: { name: user.name, email: user.email, groups: user.groups.join(', ') } }) });
  }, WRITE);
  routes.action(`${USERS}/:id/edit`, async (request) => {
    const user = await account(request.params.id!);
    const values = { name: request.optional('name', 200), email: request.optional('email', 254), groups: request.optional('groups', 1000) };
    try {
      await deps.users.update(request.admin.actor, user.username, { name: values.name, email: values.email, groups: parseGroups(values.groups) });
    } catch (error) {
      showForm(request, error, { ...editForm(request.language, user), values });
      return;
    }
    request.redirect(userUrl(user.id), { kind: 'notice', text: request.language.t('console.users.flash.saved', { username: user.username }) });
  });

  // --- disable / enable / unlock
  routes.page(`${USERS}/:id/disable`, async ({ params, language: { t }, confirm }) => {
    const user = await account(params.id!);
    const username = user.username;
    confirm(t('console.users.disable.title', { username }), {
      heading: t('console.users.disable.heading', { username }),
      consequences: [t('console.users.disable.noSignIn', { username }), t('console.users.disable.sessions'), t('console.users.disable.tokens')],
      action: `${userUrl(user.id)}/disable`,
      submitLabel: t('console.users.disable.title', { username }),
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/disable`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.disable(request.admin.actor, user.username);
    request.redirect(userUrl(user.id), { kind: 'notice', text: request.language.t('console.users.flash.disabled', { username: user.username, sessions: done.ended.sessions, grants: done.ended.grants }) });
  });
  routes.action(`${USERS}/:id/enable`, async (request) => {
    const user = await account(request.params.id!);
    await deps.users.enable(request.admin.actor, user.username);
    request.redirect(userUrl(user.id), { kind: 'notice', text: request.language.t('console.users.flash.enabled', { username: user.username }) });
  });
  routes.action(`${USERS}/:id/unlock`, async (request) => {
    const user = await account(request.params.id!);
    const { cleared } = await deps.users.unlock(request.admin.actor, user.username);
    const { t } = request.language;
    request.redirect(userUrl(user.id), {
      kind: 'notice',
      text: cleared > 0 ? t('console.users.flash.unlocked', { username: user.username, n: cleared }) : t('console.users.flash.notLocked', { username: user.username }),
    });
  });

  // --- second factors
  routes.page(`${USERS}/:id/second-factors/reset`, async ({ params, language: { t }, confirm }) => {
    const user = await account(params.id!);
    const username = user.username;
    confirm(t('console.users.resetFactors.title', { username }), {
      heading: t('console.users.resetFactors.heading', { username }),
      consequences: [t('console.users.resetFactors.removes'), t('console.users.resetFactors.again', { username }), t('console.users.resetFactors.ends')],
      action: `${userUrl(user.id)}/second-factors/reset`,
      submitLabel: t('console.users.resetFactors.submit'),
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/second-factors/reset`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.resetSecondFactors(request.admin.actor, user.username);
    const { t } = request.language;
    const removed = [
      done.totp ? t('console.users.removed.totp') : '',
      done.devices ? t('console.users.removed.devices', { n: done.devices }) : '',
      done.passkeys ? t('console.users.removed.passkeys', { n: done.passkeys }) : '',
      done.recoveryCodes ? t('console.users.removed.recoveryCodes', { n: done.recoveryCodes }) : '',
    ].filter(Boolean);
    request.redirect(userUrl(user.id), {
      kind: 'notice',
      text: t('console.users.flash.factorsReset', { username: user.username, removed: removed.length ? t('console.users.removed.list', { items: removed.join(', ') }) : t('console.users.removed.none'), sessions: done.sessions }),
    });
  });

  // --- sessions and grants
  routes.page(`${USERS}/:id/sign-out`, async ({ params, language: { t }, confirm }) => {
    const user = await account(params.id!);
    const username = user.username;
    confirm(t('console.users.signOut.title', { username }), {
      heading: t('console.users.signOut.heading', { username }),
      consequences: [t('console.users.signOut.sessions'), t('console.users.signOut.grants'), t('console.users.signOut.again', { username })],
      action: `${userUrl(user.id)}/sign-out`,
      submitLabel: t('console.users.signOut.submit'),
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/sign-out`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.signOutEverywhere(request.admin.actor, user.username);
    request.redirect(`${userUrl(user.id)}#sessions`, { kind: 'notice', text: request.language.t('console.users.flash.signedOut', { username: user.username, sessions: done.sessions, grants: done.grants }) });
  });
  routes.page(`${USERS}/:id/grants/:grantId/revoke`, async ({ params, language: { t }, confirm }) => {
    const user = await account(params.id!);
    const { grants } = await deps.users.listGrants(user.username);
    const grant = grants.find((g) => g.id === params.grantId);
    if (!grant) throw missingGrant(user, params.grantId!);
    confirm(t('console.users.revoke.title', { username: user.username }), {
      heading: t('console.users.revoke.heading', { client: grant.clientId }),
      consequences: [t('console.users.revoke.loses', { client: grant.clientId, username: user.username }), t('console.users.revoke.again')],
      action: `${userUrl(user.id)}/grants/${encodeURIComponent(grant.id)}/revoke`,
      submitLabel: t('console.users.revoke.submit'),
      cancelHref: `${userUrl(user.id)}#grants`,
      danger: true,
    });
  }, WRITE);
  routes.action(
    `${USERS}/:id/grants/:grantId/revoke`,
    async (request) => {
      const user = await account(request.params.id!);
      await deps.users.revokeGrant(request.admin.actor, user.username, request.params.grantId!);
      request.redirect(`${userUrl(user.id)}#grants`, { kind: 'notice', text: request.language.t('console.users.flash.revoked', { username: user.username }) });
    },
    { back: (params) => `${userUrl(params.id!)}#grants` },
  );

  // --- remove
  routes.page(`${USERS}/:id/remove`, async ({ params, language: { t }, confirm }) => {
    const user = await account(params.id!);
    const username = user.username;
    confirm(t('console.users.remove.title', { username }), {
      heading: t('console.users.remove.heading', { username }),
      consequences: [t('console.users.remove.deletes', { username }), t('console.users.remove.ends'), t('console.users.remove.audit')],
      action: `${userUrl(user.id)}/remove`,
      submitLabel: t('console.users.remove.title', { username }),
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/remove`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.remove(request.admin.actor, user.username);
    request.redirect(USERS, { kind: 'notice', text: request.language.t('console.users.flash.removed', { username: user.username, sessions: done.sessions, grants: done.grants }) });
  });

  // --- password-reset link
  routes.action(`${USERS}/:id/reset-link`, async (request) => {
    const user = await account(request.params.id!);
    const link = await deps.issuePasswordReset(request.admin.actor, user.username);
    const { language } = request;
    const heading = language.t('console.users.resetLink');
    request.render({
      title: heading,
      body: resetLinkBody({ language, heading, intro: language.t('console.users.resetLinkIntro', { username: user.username }), username: user.username, url: link.url, expiresAt: link.expiresAt, userHref: userUrl(user.id) }),
    });
  });

  const missingGrant = (user: Account, grantId: string) => new UserAdminError('unknown_grant', `user "${user.username}" has no grant ${grantId}`);

  function showForm(request: ConsoleActionRequest, error: unknown, form: Omit<Parameters<typeof userFormBody>[0], 'viewer' | 'error'>): void {
    const refusal = consoleRefusal(error, request.language);
    if (!refusal) throw error;
    request.render({ title: form.heading, status: refusal.status, body: userFormBody({ ...form, viewer: request.viewer, error: { message: refusal.message, code: refusal.code } }) });
  }
}
