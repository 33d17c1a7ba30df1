/**
 * The Users section (/admin/users): the list and a user's page, read by admins and auditors;
 * its forms are in user-actions.ts. Rules:
 * - the list is admin/user-admin.ts's `list`: 25 users a page by username, `q` a substring of the
 *   username or e-mail, `after` the opaque cursor of the next page (a cursor this server did not
 *   issue is 400 `invalid_input`);
 * - a user's page reads the same service (get, lockedUntil, listSessions, listGrants) and the
 *   stores of the account's devices, passkeys, session browsers and consents (the apps the user
 *   allowed, as the account page lists them); an unknown id is 404;
 * - the user's audit events are the audit trail filtered by the account id (auditTrailUrl `account`).
 */
import type { Account } from '../../accounts/account-store.ts';
import type { PageLanguage } from '../../i18n/page-language.ts';
import { ACCOUNT_CLIENT_ID } from '../../clients/account-client.ts';
import { userDetailBody, userListBody, type UserGrantView, type UserRowView } from '../../views/console-users-page.ts';
import type { ConsoleSection } from '../console-routes.ts';
import type { UsersSectionDeps } from './users-deps.ts';
import { auditTrailUrl, clientUrl, CONSOLE_PATH, userUrl } from '../console-paths.ts';
import { registerUserActions } from './user-actions.ts';

export const USERS_PATH = `${CONSOLE_PATH}/users`;
export const USERS_PAGE_SIZE = 25;


export const rowOf = (account: Account): UserRowView => ({
  id: account.id,
  username: account.username,
  name: account.name,
  email: account.email,
  groups: account.groups,
  disabled: account.disabledAt !== null,
});

const queryString = (value: unknown, max: number): string => (typeof value === 'string' ? value.trim().slice(0, max) : '');

/** The names of the clients a user's grants and sessions name, by id (the account page's client is built in). */
async function clientNames(deps: UsersSectionDeps, language: PageLanguage, clientIds: Iterable<string>): Promise<Map<string, { name: string; known: boolean }>> {
  const names = new Map<string, { name: string; known: boolean }>();
  for (const clientId of clientIds) {
    if (names.has(clientId)) continue;
    if (clientId === ACCOUNT_CLIENT_ID) {
      names.set(clientId, { name: language.t('console.users.accountClient'), known: false });
      continue;
    }
    try {
      const client = await deps.clients.get(clientId);
      names.set(clientId, { name: client.name || clientId, known: true });
    } catch {
      names.set(clientId, { name: clientId, known: false });
    }
  }
  return names;
}

export const usersSection: ConsoleSection<UsersSectionDeps> = {
  nav: { key: 'users', href: USERS_PATH },
  register(routes, deps) {
    routes.page(USERS_PATH, async ({ ctx, viewer, language, render }) => {
      const search = queryString(ctx.query.q, 128);
      const after = queryString(ctx.query.after, 512);
      const page = await deps.users.list({ ...(search ? { search } : {}), ...(after ? { after } : {}), limit: USERS_PAGE_SIZE });
      const href = (extra: Record<string, string>) => {
        const query = new URLSearchParams({ ...(search ? { q: search } : {}), ...extra }).toString();
        return `${USERS_PATH}${query ? `?${query}` : ''}`;
      };
      render({
        title: language.t('console.nav.users'),
        body: userListBody({
          viewer,
          search,
          users: page.items.map(rowOf),
          nextHref: page.next ? href({ after: page.next }) : null,
          firstHref: after ? href({}) : null,
          userHref: userUrl,
        }),
      });
    });

    // Before /users/:id, which would take `new` for an id.
    registerUserActions(routes, deps);

    routes.page(`${USERS_PATH}/:id`, async ({ params, viewer, language, render }) => {
      const { account, secondFactors } = await deps.users.get(params.id!);
      const [lockedUntil, { sessions }, { grants }, devices, passkeys, consents] = await Promise.all([
        deps.users.lockedUntil(account.username),
        deps.users.listSessions(account.username),
        deps.users.listGrants(account.username),
        deps.devices.listByAccount(account.id),
        deps.passkeys.listByAccount(account.id),
        deps.consents.listByAccount(account.id),
      ]);
      const meta = new Map((await deps.sessionMeta.find(sessions.flatMap((s) => (s.uid ? [s.uid] : [])))).map((m) => [m.sessionUid, m]));
      const names = await clientNames(deps, language, [...grants.map((g) => g.clientId), ...consents.map((c) => c.clientId), ...sessions.flatMap((s) => s.clients.map((c) => c.clientId))]);
      const grantViews: UserGrantView[] = grants.map((g) => ({
        id: g.id,
        clientId: g.clientId,
        clientName: names.get(g.clientId)?.name ?? g.clientId,
        clientHref: names.get(g.clientId)?.known ? clientUrl(g.clientId) : null,
        scopes: [...g.openidScopes, ...Object.values(g.resources).flat()],
        createdAt: g.createdAt,
      }));
      render({
        title: account.username,
        body: userDetailBody({
          viewer,
          user: { ...rowOf(account), createdAt: account.createdAt, disabledAt: account.disabledAt },
          lockedUntil,
          secondFactors,
          sessions: sessions.map((s) => {
            const seen = s.uid ? meta.get(s.uid) : undefined;
            return {
              browser: seen?.browser ?? language.t('console.users.unknownBrowser'),
              ip: seen?.ip ?? null,
              signedInAt: s.signedInAt,
              lastUsedAt: seen ? Math.max(seen.lastUsedAt, s.lastUsedAt ?? 0) : s.lastUsedAt,
              clients: s.clients.map((c) => names.get(c.clientId)?.name ?? c.clientId),
            };
          }),
          devices,
          passkeys,
          grants: grantViews,
          consents: consents.map((c) => ({ clientName: names.get(c.clientId)?.name ?? c.clientId, clientHref: names.get(c.clientId)?.known ? clientUrl(c.clientId) : null, scopes: c.scopes, grantedAt: c.grantedAt })),
          auditHref: auditTrailUrl({ account: account.id }),
          base: userUrl(account.id),
        }),
      });
    });
  },
};
