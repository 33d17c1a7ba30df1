/**
 * /admin/v1/users: operators' view and changes of user accounts, through the user service
 * (admin/user-admin.ts, shared with authctl). Rules:
 * - `{id}` is the account id (authctl keeps usernames); an unknown id is 404 `user_not_found`;
 * - reads need `admin:users:read`, changes `admin:users:write`; every change is audited by the
 *   service with the token's actor;
 * - the list pages by username (keyset: `limit` 1..200, default 50; `after` the opaque cursor
 *   of the previous page's `next`); `q` matches a substring of username or email, ignoring case;
 * - users, sessions and grants are shown in the shapes of admin/json/ (user-json.ts,
 *   session-json.ts), as `authctl user ... --json` prints them: no credential, no session id;
 * - a password refused by the policy is 422 with the rule's code (`password_too_short`, ...);
 *   a taken username is 409 `duplicate_username`; other field rules are 400 `validation_failed`;
 * - DELETE removes the user; it, disable, the new password and the second-factor reset end every
 *   session, grant and token of the user at once (the service's lockdown); enable never brings a
 *   session back;
 * - a password-reset link (admin/password-reset.ts) is in the answer only, never logged; a
 *   disabled user gets none (409 `user_disabled`: the link could not be used).
 */
import { z } from 'zod';
import { AccountError, type Account } from '../../accounts/account-store.ts';
import { PasswordPolicyError } from '../../accounts/password-policy.ts';
import { UserAdminError, type UserAdmin, type UserDetails } from '../user-admin.ts';
import type { Actor } from '../../audit/actor.ts';
import type { IssuedPasswordReset } from '../password-reset.ts';
import { IsoTime } from '../json/json-time.ts';
import { itemsJson } from '../json/page-json.ts';
import { GrantJson, grantJson, SessionJson, sessionJson } from '../json/session-json.ts';
import { UserDetailsJson, userDetailsJson, userJson, UserPageJson } from '../json/user-json.ts';
import { ADMIN_BASE, type AdminRouter } from './admin-router.ts';
import { AdminProblem, validationFailed } from './problem.ts';

const Groups = z.array(z.string()).max(64);

/**
 * Field shapes here; the account rules themselves (formats, lengths) are the store's and the
 * password policy's, documented as metadata only (a refused value is their problem, not a 400 here).
 */
const Email = z.string().meta({ format: 'email', maxLength: 254 });
const Name = z.string().meta({ minLength: 1, maxLength: 128 });
const Password = z.string().meta({ minLength: 12, maxLength: 128 });

const NewUserBody = z.strictObject({
  username: z.string().meta({ pattern: '^[a-zA-Z0-9._@-]{1,64}$' }),
  email: Email,
  name: Name,
  groups: Groups.default([]),
  password: Password.optional(),
});

const UserChangesBody = z
  .strictObject({ email: Email.optional(), name: Name.optional(), groups: Groups.optional() })
  .refine((b) => b.email !== undefined || b.name !== undefined || b.groups !== undefined, { message: 'name at least one of email, name, groups' })
  .meta({ minProperties: 1 });

const PasswordBody = z.strictObject({ password: Password });

const UserListQuery = z.strictObject({
  q: z.string().min(1).max(254).optional().meta({ description: 'A substring of the username or email, any case' }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  after: z.string().min(1).max(512).optional().meta({ description: 'The `next` cursor of the previous page' }),
});

const USER_ID = { id: 'The account id' };
const USER_NOT_FOUND = 'No user with this id (`user_not_found`)';
const PASSWORD_REFUSED = 'The password policy refused the password (`password_empty`, `password_too_short`, `password_too_long`, `password_common`)';
const THE_USER = { description: 'The user', body: UserDetailsJson };

const Cleared = z.object({ cleared: z.number().int() });
const Removed = z.object({ removed: z.object({ totp: z.boolean(), devices: z.number().int(), passkeys: z.number().int(), recovery_codes: z.number().int() }) });
const Ended = z.object({ sessions: z.number().int(), grants: z.number().int() });
const ResetLink = z.object({ url: z.string().meta({ format: 'uri' }), expires_at: IsoTime });

/** The field an account rule is about: the store's messages start with it ("email must be ...", "each group ..."). */
function accountField(message: string): string {
  const first = message.split(' ')[0]!;
  if (first === 'username' || first === 'email' || first === 'name') return first;
  return message.includes('group') ? 'groups' : '(body)';
}

/** The service's refusals as problems. */
async function answered<T>(run: () => Promise<T>, field?: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AccountError) {
      if (error.code === 'unknown_user') throw new AdminProblem(404, 'user_not_found', 'There is no user with this id.');
      if (error.code === 'duplicate_username') throw new AdminProblem(409, 'duplicate_username', error.message);
      throw validationFailed([{ field: field ?? accountField(error.message), message: error.message }]);
    }
    if (error instanceof PasswordPolicyError) throw new AdminProblem(422, `password_${error.code}`, error.message);
    if (error instanceof UserAdminError) throw new AdminProblem(404, 'grant_not_found', error.message);
    throw error;
  }
}

export interface UserRoutesDeps {
  users: UserAdmin;
  /** Issues a one-time password-reset link (admin/password-reset.ts, as `authctl user reset-link`). */
  issuePasswordReset(actor: Actor, username: string): Promise<IssuedPasswordReset>;
}

export function addUserRoutes(router: AdminRouter, deps: UserRoutesDeps): void {
  const { users } = deps;
  const shown = async (account: Account) => userJson(account, await users.lockedUntil(account.username));
  const shownDetails = async (user: UserDetails) => userDetailsJson(user, await users.lockedUntil(user.account.username));

  router.add({
    method: 'GET',
    path: '/users',
    scope: 'admin:users:read',
    summary: 'List users by username, with search and keyset paging',
    operationId: 'listUsers',
    query: UserListQuery,
    responses: { 200: { description: 'One page of users', body: UserPageJson } },
    async handle({ query }) {
      const page = await answered(() => users.list({ search: query.q, after: query.after, limit: query.limit }), 'after');
      return { status: 200, body: { items: await Promise.all(page.items.map(shown)), next: page.next } };
    },
  });

  router.add({
    method: 'GET',
    path: '/users/{id}',
    scope: 'admin:users:read',
    summary: 'One user, with the second factors enrolled',
    operationId: 'getUser',
    params: USER_ID,
    responses: { 200: THE_USER },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params }) {
      return { status: 200, body: await shownDetails(await answered(() => users.get(params.id!))) };
    },
  });

  /** The account of the path's id: the service's verbs take the username (as authctl does). */
  const username = async (id: string) => (await answered(() => users.byId(id))).username;
  const details = async (id: string) => ({ status: 200, body: await shownDetails(await answered(() => users.get(id))) });

  router.add({
    method: 'POST',
    path: '/users',
    scope: 'admin:users:write',
    summary: 'Create a user (without a password it cannot sign in until one is set)',
    operationId: 'createUser',
    body: NewUserBody,
    responses: { 201: { ...THE_USER, headers: { Location: 'The new user' } } },
    problems: { 409: 'The username is taken (`duplicate_username`)', 422: PASSWORD_REFUSED },
    async handle({ body, actor }) {
      const account = await answered(() => users.create(actor, body));
      const created = await details(account.id);
      return { ...created, status: 201, headers: { Location: `${ADMIN_BASE}/users/${account.id}` } };
    },
  });

  router.add({
    method: 'PATCH',
    path: '/users/{id}',
    scope: 'admin:users:write',
    summary: 'Change the email, name or groups',
    operationId: 'updateUser',
    params: USER_ID,
    body: UserChangesBody,
    responses: { 200: THE_USER },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params, body, actor }) {
      const name = await username(params.id!);
      await answered(() => users.update(actor, name, body));
      return details(params.id!);
    },
  });

  router.add({
    method: 'DELETE',
    path: '/users/{id}',
    scope: 'admin:users:write',
    summary: 'Remove the user and their data; every session, grant, refresh and access token of theirs ends at once',
    operationId: 'removeUser',
    params: USER_ID,
    responses: { 204: { description: 'Removed' } },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params, actor }) {
      const name = await username(params.id!);
      await answered(() => users.remove(actor, name));
      return { status: 204 };
    },
  });

  const toggles = {
    disable: { summary: 'Disable: no more sign-ins; every session, grant, refresh and access token of the user ends at once', operationId: 'disableUser' },
    enable: { summary: 'Enable a disabled user: sign-in is allowed again; no earlier session comes back', operationId: 'enableUser' },
  };
  for (const verb of ['disable', 'enable'] as const) {
    router.add({
      method: 'POST',
      path: `/users/{id}/${verb}`,
      scope: 'admin:users:write',
      ...toggles[verb],
      params: USER_ID,
      responses: { 200: THE_USER },
      problems: { 404: USER_NOT_FOUND },
      async handle({ params, actor }) {
        const name = await username(params.id!);
        await answered(() => users[verb](actor, name));
        return details(params.id!);
      },
    });
  }

  router.add({
    method: 'POST',
    path: '/users/{id}/unlock',
    scope: 'admin:users:write',
    summary: 'End the lockouts of the password and second-factor steps',
    operationId: 'unlockUser',
    params: USER_ID,
    responses: { 200: { description: 'How many recorded failures were cleared', body: Cleared } },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params, actor }) {
      const name = await username(params.id!);
      const { cleared } = await answered(() => users.unlock(actor, name));
      return { status: 200, body: { cleared } };
    },
  });

  router.add({
    method: 'POST',
    path: '/users/{id}/password',
    scope: 'admin:users:write',
    summary: 'Set a new password; ends the lockouts and every session, grant and refresh token of the user',
    operationId: 'setUserPassword',
    params: USER_ID,
    body: PasswordBody,
    responses: { 204: { description: 'Set' } },
    problems: { 404: USER_NOT_FOUND, 422: PASSWORD_REFUSED },
    async handle({ params, body, actor }) {
      const name = await username(params.id!);
      await answered(() => users.setPassword(actor, name, body.password));
      return { status: 204 };
    },
  });

  router.add({
    method: 'POST',
    path: '/users/{id}/second-factors/reset',
    scope: 'admin:users:write',
    summary: 'Remove the TOTP secret, authenticator devices, passkeys and recovery codes; ends every session, grant and refresh token of the user',
    operationId: 'resetSecondFactors',
    params: USER_ID,
    responses: { 200: { description: 'What was removed', body: Removed } },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params, actor }) {
      const name = await username(params.id!);
      const removed = await answered(() => users.resetSecondFactors(actor, name));
      return { status: 200, body: { removed: { totp: removed.totp, devices: removed.devices, passkeys: removed.passkeys, recovery_codes: removed.recoveryCodes } } };
    },
  });

  router.add({
    method: 'GET',
    path: '/users/{id}/sessions',
    scope: 'admin:users:read',
    summary: 'The user\'s SSO sessions (without their ids), most recently used first',
    operationId: 'listUserSessions',
    params: USER_ID,
    responses: { 200: { description: 'The sessions', body: itemsJson(SessionJson) } },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params }) {
      const name = await username(params.id!);
      const { sessions } = await answered(() => users.listSessions(name));
      return { status: 200, body: { items: sessions.map(sessionJson) } };
    },
  });

  router.add({
    method: 'POST',
    path: '/users/{id}/signout-all',
    scope: 'admin:users:write',
    summary: 'Sign out everywhere: end every session and grant (refresh tokens answer invalid_grant)',
    operationId: 'signOutEverywhere',
    params: USER_ID,
    responses: { 200: { description: 'How many sessions and grants ended', body: Ended } },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params, actor }) {
      const name = await username(params.id!);
      const ended = await answered(() => users.signOutEverywhere(actor, name));
      return { status: 200, body: { sessions: ended.sessions, grants: ended.grants } };
    },
  });

  router.add({
    method: 'GET',
    path: '/users/{id}/grants',
    scope: 'admin:users:read',
    summary: 'The user\'s grants (one per client signed in to), newest first',
    operationId: 'listUserGrants',
    params: USER_ID,
    responses: { 200: { description: 'The grants', body: itemsJson(GrantJson) } },
    problems: { 404: USER_NOT_FOUND },
    async handle({ params }) {
      const name = await username(params.id!);
      const { grants } = await answered(() => users.listGrants(name));
      return { status: 200, body: { items: grants.map(grantJson) } };
    },
  });

  router.add({
    method: 'DELETE',
    path: '/users/{id}/grants/{grantId}',
    scope: 'admin:users:write',
    summary: 'Revoke one grant: its refresh tokens answer invalid_grant, its access tokens are inactive',
    operationId: 'revokeUserGrant',
    params: { ...USER_ID, grantId: 'The grant id' },
    responses: { 204: { description: 'Revoked' } },
    problems: { 404: 'No user with this id (`user_not_found`), or no such grant of the user (`grant_not_found`)' },
    async handle({ params, actor }) {
      const name = await username(params.id!);
      await answered(() => users.revokeGrant(actor, name, params.grantId!));
      return { status: 204 };
    },
  });

  router.add({
    method: 'POST',
    path: '/users/{id}/password-reset',
    scope: 'admin:users:write',
    summary: 'Issue a one-time password-reset link (1 hour, single use, replaces the previous link); the link is in this answer only',
    operationId: 'issuePasswordReset',
    params: USER_ID,
    responses: { 201: { description: 'The link, to hand to the user (Gatehouse sends no mail)', body: ResetLink } },
    problems: { 404: USER_NOT_FOUND, 409: 'The user is disabled (`user_disabled`)' },
    async handle({ params, actor }) {
      const account = await answered(() => users.byId(params.id!));
      if (account.disabledAt !== null) throw new AdminProblem(409, 'user_disabled', 'The user is disabled; enable them before issuing a password-reset link.');
      const issued = await answered(() => deps.issuePasswordReset(actor, account.username));
      return { status: 201, body: { url: issued.url, expires_at: new Date(issued.expiresAt).toISOString() } };
    },
  });
}
