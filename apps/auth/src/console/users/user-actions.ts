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
 *   saying what was done (console-flash.ts).
 */
import type { Account } from '../../accounts/account-store.ts';
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

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function registerUserActions(routes: ConsoleRoutes, deps: UsersSectionDeps): void {
  const account = (id: string): Promise<Account> => deps.users.byId(id);

  // --- create
  const blank = { username: '', name: '', email: '', groups: '' };
  routes.page(`${USERS}/new`, async ({ viewer, render }) => {
    render({ title: 'Create a user', body: userFormBody({ viewer, action: `${USERS}/new`, heading: 'Create a user', submitLabel: 'Create the user', values: blank, withUsername: true, cancelHref: USERS }) });
  }, WRITE);
  routes.action(
    `${USERS}/new`,
    async (request) => {
      const values = { username: request.optional('username', 64), name: request.optional('name', 200), email: request.optional('email', 254), groups: request.optional('groups', 1000) };
      try {
        const created = await deps.users.create(request.admin.actor, { username: values.username, name: values.name, email: values.email, groups: parseGroups(values.groups) });
        const link = await deps.issuePasswordReset(request.admin.actor, created.username);
        request.render({
          title: 'User created',
          body: resetLinkBody({ heading: 'User created', intro: `User ${created.username} was created.`, username: created.username, url: link.url, expiresAt: link.expiresAt, userHref: userUrl(created.id) }),
        });
      } catch (error) {
        showForm(request, error, { action: `${USERS}/new`, heading: 'Create a user', submitLabel: 'Create the user', values, withUsername: true, cancelHref: USERS });
      }
    },
    { back: () => `${USERS}/new` },
  );

  // --- edit
  routes.page(`${USERS}/:id/edit`, async ({ params, viewer, render }) => {
    const user = await account(params.id!);
    render({
      title: `Edit ${user.username}`,
      body: userFormBody({ viewer, action: `${userUrl(user.id)}/edit`, heading: `Edit ${user.username}`, submitLabel: 'Save changes', values: { name: user.name, email: user.email, groups: user.groups.join(', ') }, withUsername: false, cancelHref: userUrl(user.id) }),
    });
  }, WRITE);
  routes.action(`${USERS}/:id/edit`, async (request) => {
    const user = await account(request.params.id!);
    const values = { name: request.optional('name', 200), email: request.optional('email', 254), groups: request.optional('groups', 1000) };
    try {
      await deps.users.update(request.admin.actor, user.username, { name: values.name, email: values.email, groups: parseGroups(values.groups) });
    } catch (error) {
      showForm(request, error, { action: `${userUrl(user.id)}/edit`, heading: `Edit ${user.username}`, submitLabel: 'Save changes', values, withUsername: false, cancelHref: userUrl(user.id) });
      return;
    }
    request.redirect(userUrl(user.id), { kind: 'notice', text: `The profile and groups of ${user.username} were saved.` });
  });

  // --- disable / enable / unlock
  routes.page(`${USERS}/:id/disable`, async ({ params, confirm }) => {
    const user = await account(params.id!);
    confirm(`Disable ${user.username}`, {
      heading: `Disable ${user.username}?`,
      consequences: [
        `${user.username} can no longer sign in, until an administrator enables the account again.`,
        'Every session of the account ends now, and every app it signed in to is told (back-channel logout).',
        "The account's grants, refresh tokens and access tokens stop working at once.",
      ],
      action: `${userUrl(user.id)}/disable`,
      submitLabel: `Disable ${user.username}`,
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/disable`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.disable(request.admin.actor, user.username);
    request.redirect(userUrl(user.id), { kind: 'notice', text: `${user.username} is disabled: ${plural(done.ended.sessions, 'session', 'sessions')} and ${plural(done.ended.grants, 'grant', 'grants')} ended.` });
  });
  routes.action(`${USERS}/:id/enable`, async (request) => {
    const user = await account(request.params.id!);
    await deps.users.enable(request.admin.actor, user.username);
    request.redirect(userUrl(user.id), { kind: 'notice', text: `${user.username} is enabled and may sign in again.` });
  });
  routes.action(`${USERS}/:id/unlock`, async (request) => {
    const user = await account(request.params.id!);
    const { cleared } = await deps.users.unlock(request.admin.actor, user.username);
    request.redirect(userUrl(user.id), {
      kind: 'notice',
      text: cleared > 0 ? `${user.username} is unlocked: ${plural(cleared, 'recorded failure was', 'recorded failures were')} cleared.` : `${user.username} had no recorded failures to clear; the account is not locked.`,
    });
  });

  // --- second factors
  routes.page(`${USERS}/:id/second-factors/reset`, async ({ params, confirm }) => {
    const user = await account(params.id!);
    confirm(`Reset the second factors of ${user.username}`, {
      heading: `Reset the second factors of ${user.username}?`,
      consequences: [
        'Removes the authenticator app (TOTP), every authenticator device, every passkey and every recovery code of the account.',
        `${user.username} sets up a second factor again at the next sign-in.`,
        'Every session, grant and refresh token of the account ends now.',
      ],
      action: `${userUrl(user.id)}/second-factors/reset`,
      submitLabel: 'Reset second factors',
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/second-factors/reset`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.resetSecondFactors(request.admin.actor, user.username);
    const removed = [done.totp ? 'the authenticator app' : '', done.devices ? plural(done.devices, 'device', 'devices') : '', done.passkeys ? plural(done.passkeys, 'passkey', 'passkeys') : '', done.recoveryCodes ? plural(done.recoveryCodes, 'recovery code', 'recovery codes') : ''].filter(Boolean);
    request.redirect(userUrl(user.id), {
      kind: 'notice',
      text: `The second factors of ${user.username} were reset (${removed.length ? `removed ${removed.join(', ')}` : 'none was set up'}); ${plural(done.sessions, 'session', 'sessions')} ended.`,
    });
  });

  // --- sessions and grants
  routes.page(`${USERS}/:id/sign-out`, async ({ params, confirm }) => {
    const user = await account(params.id!);
    confirm(`Sign ${user.username} out everywhere`, {
      heading: `Sign ${user.username} out everywhere?`,
      consequences: [
        'Ends every session of the account in every browser; the apps it signed in to are told (back-channel logout).',
        "Ends the account's grants: refresh tokens stop working and access tokens are revoked.",
        `${user.username} can sign in again.`,
      ],
      action: `${userUrl(user.id)}/sign-out`,
      submitLabel: 'Sign out everywhere',
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/sign-out`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.signOutEverywhere(request.admin.actor, user.username);
    request.redirect(`${userUrl(user.id)}#sessions`, { kind: 'notice', text: `${user.username} was signed out everywhere: ${plural(done.sessions, 'session', 'sessions')} and ${plural(done.grants, 'grant', 'grants')} ended.` });
  });
  routes.page(`${USERS}/:id/grants/:grantId/revoke`, async ({ params, confirm }) => {
    const user = await account(params.id!);
    const { grants } = await deps.users.listGrants(user.username);
    const grant = grants.find((g) => g.id === params.grantId);
    if (!grant) throw missingGrant(user, params.grantId!);
    confirm(`Revoke a grant of ${user.username}`, {
      heading: `Revoke the grant of ${grant.clientId}?`,
      consequences: [`The app ${grant.clientId} loses the access ${user.username} gave it: its refresh tokens stop working and its access tokens are revoked.`, 'The app asks for consent again at its next sign-in.'],
      action: `${userUrl(user.id)}/grants/${encodeURIComponent(grant.id)}/revoke`,
      submitLabel: 'Revoke the grant',
      cancelHref: `${userUrl(user.id)}#grants`,
      danger: true,
    });
  }, WRITE);
  routes.action(
    `${USERS}/:id/grants/:grantId/revoke`,
    async (request) => {
      const user = await account(request.params.id!);
      await deps.users.revokeGrant(request.admin.actor, user.username, request.params.grantId!);
      request.redirect(`${userUrl(user.id)}#grants`, { kind: 'notice', text: `The grant was revoked; the app's tokens for ${user.username} stop working.` });
    },
    { back: (params) => `${userUrl(params.id!)}#grants` },
  );

  // --- remove
  routes.page(`${USERS}/:id/remove`, async ({ params, confirm }) => {
    const user = await account(params.id!);
    confirm(`Remove ${user.username}`, {
      heading: `Remove ${user.username}?`,
      consequences: [
        `Deletes the account ${user.username} with its second factors, devices, passkeys and recovery codes; this cannot be undone.`,
        'Every session, grant and token of the account ends now, and every app it signed in to is told (back-channel logout).',
        'Its audit events stay in the audit trail.',
      ],
      action: `${userUrl(user.id)}/remove`,
      submitLabel: `Remove ${user.username}`,
      cancelHref: userUrl(user.id),
      danger: true,
    });
  }, WRITE);
  routes.action(`${USERS}/:id/remove`, async (request) => {
    const user = await account(request.params.id!);
    const done = await deps.users.remove(request.admin.actor, user.username);
    request.redirect(USERS, { kind: 'notice', text: `${user.username} was removed: ${plural(done.sessions, 'session', 'sessions')} and ${plural(done.grants, 'grant', 'grants')} ended.` });
  });

  // --- password-reset link
  routes.action(`${USERS}/:id/reset-link`, async (request) => {
    const user = await account(request.params.id!);
    const link = await deps.issuePasswordReset(request.admin.actor, user.username);
    request.render({
      title: 'Password-reset link',
      body: resetLinkBody({ heading: 'Password-reset link', intro: `A new password-reset link for ${user.username} was created; any earlier link stops working.`, username: user.username, url: link.url, expiresAt: link.expiresAt, userHref: userUrl(user.id) }),
    });
  });

  const missingGrant = (user: Account, grantId: string) => new UserAdminError('unknown_grant', `user "${user.username}" has no grant ${grantId}`);

  function showForm(request: ConsoleActionRequest, error: unknown, form: Omit<Parameters<typeof userFormBody>[0], 'viewer' | 'error'>): void {
    const refusal = consoleRefusal(error);
    if (!refusal) throw error;
    request.render({ title: form.heading, status: refusal.status, body: userFormBody({ ...form, viewer: request.viewer, error: { message: refusal.message, code: refusal.code } }) });
  }
}
