/**
 * The opaque access tokens that carry an audience (AUTH_API_TOKEN_FORMAT=opaque: a request that
 * named API scopes), as userinfo sees them (jwt-userinfo.ts). oidc-provider's own userinfo
 * refuses any token with an audience, so these are looked up here. Rules:
 * - a token oidc-provider does not find (unknown or expired), or one without an audience, is not
 *   this module's: undefined, and oidc-provider's userinfo answers as before;
 * - a found token is inactive when its grant is gone (revoked: code reuse, refresh replay,
 *   logout, sign out everywhere) or belongs to another client or user, when its client was
 *   removed, or when its user was removed or disabled;
 * - otherwise its subject, scope and DPoP binding (`jkt`).
 */
import type { Provider } from 'oidc-provider';
import type { AccountStore } from '../accounts/account-store.ts';
import type { UserinfoToken } from './jwt-userinfo.ts';

export function opaqueAccessTokens(provider: Provider, accounts: Pick<AccountStore, 'findById'>) {
  return async function findOpaque(value: string): Promise<UserinfoToken | 'inactive' | undefined> {
    const { AccessToken, Grant, Client } = provider;
    const token = await AccessToken.find(value);
    if (!token || token.aud === undefined) return undefined;
    const { accountId, clientId, grantId } = token;
    if (!accountId || !grantId || !clientId) return 'inactive';
    const [grant, client, account] = await Promise.all([Grant.find(grantId), Client.find(clientId), accounts.findById(accountId)]);
    if (!grant || grant.clientId !== clientId || grant.accountId !== accountId || !client) return 'inactive';
    if (!account || account.disabledAt !== null) return 'inactive';
    return { sub: accountId, ...(token.scope ? { scope: token.scope } : {}), ...(token.jkt ? { jkt: token.jkt } : {}) };
  };
}
