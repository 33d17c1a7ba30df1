/**
 * The opaque access tokens that carry an audience (AUTH_API_TOKEN_FORMAT=opaque: a request that
 * named API scopes), as userinfo sees them (jwt-userinfo.ts), and opaque subject tokens as the
 * token exchange sees them (opaqueSubjectTokens below). oidc-provider's own userinfo
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
import type { AccessTokenClaimsSeen } from './jwt-access-tokens.ts';
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

/**
 * An opaque access token as the token exchange sees a subject token (token-exchange.ts), in the
 * shape of a JWT access token's claims so both go through the same checks after this (expiry,
 * revocation of its jti, grant or subject, its client and user still there and enabled). Rules:
 * - undefined when oidc-provider finds no such token: unknown, expired, or destroyed (revoked);
 * - an opaque client_credentials token is a machine token: its subject is its client;
 * - a user's token is 'inactive' when its grant is gone (revoked: code reuse, refresh replay,
 *   logout, sign out everywhere) or belongs to another client or user.
 */
export function opaqueSubjectTokens(provider: Provider) {
  return async function findSubject(value: string): Promise<AccessTokenClaimsSeen | 'inactive' | undefined> {
    const { AccessToken, ClientCredentials, Grant } = provider;
    const token = await AccessToken.find(value);
    if (!token) {
      const machine = await ClientCredentials.find(value);
      if (!machine?.clientId || !machine.jti || !machine.exp || !machine.iat) return undefined;
      return { jti: machine.jti, sub: machine.clientId, client_id: machine.clientId, exp: machine.exp, iat: machine.iat, ...(machine.scope ? { scope: machine.scope } : {}) };
    }
    const { accountId, clientId, grantId, jti, exp, iat } = token;
    if (!accountId || !grantId || !clientId || !jti || !exp || !iat) return 'inactive';
    const grant = await Grant.find(grantId);
    if (!grant || grant.clientId !== clientId || grant.accountId !== accountId) return 'inactive';
    return {
      jti,
      sub: accountId,
      client_id: clientId,
      exp,
      iat,
      grant_id: grantId,
      ...(token.scope ? { scope: token.scope } : {}),
      ...(token.jkt ? { cnf: { jkt: token.jkt } } : {}),
    };
  };
}
