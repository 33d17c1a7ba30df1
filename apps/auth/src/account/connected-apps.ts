/**
 * The account page's "Connected apps": the applications the user allowed on the consent page
 * (consent/consent-store.ts), and POST /account/apps/revoke. Rules:
 * - an app is listed while the user's consent record for it exists, with what it was allowed and
 *   when; first-party apps have no record (they are granted what they ask), so they are not
 *   listed;
 * - the Apps page's Revoke opens a confirmation page (GET on the same path, account/confirm-actions.ts)
 *   whose Confirm posts here; revoking takes same-origin posts only (403) from a signed-in session (401), and a `client_id`
 *   the user has a record or a grant for (else 404 not_found);
 * - it deletes the consent record, then ends every grant of the user for that client at once
 *   (sessions/user-sessions.ts endGrant): refresh tokens and codes are deleted, the grant's JWT access
 *   tokens stop being active and resource servers hear `session-revoked` (revocation feed);
 * - the app asks for consent again at its next authorization; audited `consent.revoked`;
 *   a form gets 303 to the Apps page with the message at its top, a JSON caller 200 `{ client_id, grants_ended }`.
 */
import { redirectWithFlash, type FlashDeps } from './account-flash.ts';
import { ACCOUNT_CONFIRM_PATHS, SECTION_PATHS } from '../views/account-paths.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';
import { readBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import type { ConnectedAppView } from '../views/account-page.ts';
import { requireSession, type SignedInDeps } from '../interactions/signed-in.ts';

/** The confirmation page (GET, account/confirm-actions.ts) and the revocation (POST) share the path. */
export const CONNECTED_APPS_REVOKE_PATH = ACCOUNT_CONFIRM_PATHS.revokeApp;

export type ConnectedAppsDeps = Pick<HandlerServices, 'consents' | 'clients'>;

/** The user's consent records with their clients' names, most recently granted first. */
export async function connectedApps(deps: ConnectedAppsDeps, accountId: string): Promise<ConnectedAppView[]> {
  const consents = await deps.consents.listByAccount(accountId);
  return Promise.all(
    consents.map(async (c) => ({
      clientId: c.clientId,
      // A client removed since keeps its record until revoked: shown by its id.
      name: (await deps.clients.find(c.clientId))?.name ?? c.clientId,
      scopes: c.scopes,
      grantedAt: c.grantedAt,
      updatedAt: c.updatedAt,
    })),
  );
}

export type RevokeAppDeps = SignedInDeps & OriginDeps & FlashDeps & Pick<HandlerServices, 'consents' | 'userSessions' | 'audit'>;

export function createRevokeAppHandler(deps: RevokeAppDeps) {
  return async function revokeApp(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const { account } = await requireSession(ctx, deps);
    const body = await readBody(ctx);
    const clientId = body.fields.client_id ?? '';
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(clientId)) throw invalidRequest('Field "client_id" is required.');
    const revoked = await deps.consents.revoke(account.id, clientId);
    const grants = (await deps.userSessions.listGrants(account.id)).filter((g) => g.clientId === clientId);
    if (!revoked && grants.length === 0) throw new AuthError(404, 'not_found', 'No such application is connected to your account.', { detail: 'not_found.connectedApp' });
    let ended = 0;
    for (const grant of grants) if (await deps.userSessions.endGrant(account.id, grant.id)) ended += 1;
    deps.audit.record('consent.revoked', { account_id: account.id, client_id: clientId, ip: ctx.ip, grants: ended });
    if (body.json) {
      ctx.status = 200;
      ctx.body = { client_id: clientId, grants_ended: ended };
      return;
    }
    redirectWithFlash(ctx, deps, SECTION_PATHS.apps, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.appRevoked') });
  };
}
