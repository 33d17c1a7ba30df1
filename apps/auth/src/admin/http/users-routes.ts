/**
 * /admin/v1/users: operators' view and changes of user accounts, through the user service
 * (admin/user-admin.ts, shared with authctl). Rules:
 * - `{id}` is the account id (authctl keeps usernames); an unknown id is 404 `user_not_found`;
 * - reads need `admin:users:read`, changes `admin:users:write`; every change is audited by the
 *   service with the token's actor;
 * - the list pages by username (keyset: `limit` 1..200, default 50; `after` the opaque cursor
 *   of the previous page's `next`); `q` matches a substring of username or email, ignoring case;
 * - a user is shown without credentials: no password hash, TOTP secret or recovery codes, only
 *   which second factors are enrolled.
 */
import { z } from 'zod';
import { AccountError, type Account } from '../../accounts/account-store.ts';
import type { UserAdmin, UserDetails } from '../user-admin.ts';
import type { AdminRouter } from './admin-router.ts';
import { AdminProblem, validationFailed } from './problem.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A user as the admin API shows it (schema `User` in openapi.ts). */
function userJson(account: Account) {
  return {
    id: account.id,
    username: account.username,
    email: account.email,
    name: account.name,
    groups: account.groups,
    disabled: account.disabledAt !== null,
    disabled_at: iso(account.disabledAt),
    created_at: iso(account.createdAt),
  };
}

function userDetailsJson({ account, secondFactors }: UserDetails) {
  return {
    ...userJson(account),
    second_factors: {
      totp: secondFactors.totp,
      devices: secondFactors.devices,
      passkeys: secondFactors.passkeys,
      recovery_codes_left: secondFactors.recoveryCodesLeft,
    },
  };
}

const UserListQuery = z.strictObject({
  q: z.string().min(1).max(254).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  after: z.string().min(1).max(512).optional(),
});

/** The service's refusals as problems. */
async function answered<T>(run: () => Promise<T>, field?: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AccountError) {
      if (error.code === 'unknown_user') throw new AdminProblem(404, 'user_not_found', 'There is no user with this id.');
      if (error.code === 'duplicate_username') throw new AdminProblem(409, 'duplicate_username', error.message);
      throw validationFailed([{ field: field ?? error.message.split(' ')[0]!, message: error.message }]);
    }
    throw error;
  }
}

export function addUserRoutes(router: AdminRouter, deps: { users: UserAdmin }): void {
  const { users } = deps;

  router.add({
    method: 'GET',
    path: '/users',
    scope: 'admin:users:read',
    query: UserListQuery,
    async handle({ query }) {
      const page = await answered(() => users.list({ search: query.q, after: query.after, limit: query.limit }), 'after');
      return { status: 200, body: { items: page.items.map(userJson), next: page.next } };
    },
  });

  router.add({
    method: 'GET',
    path: '/users/{id}',
    scope: 'admin:users:read',
    async handle({ params }) {
      return { status: 200, body: userDetailsJson(await answered(() => users.get(params.id!))) };
    },
  });
}
