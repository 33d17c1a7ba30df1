import type { Account as OidcAccount, KoaContextWithOIDC } from 'oidc-provider';
import type { Account, AccountStore } from '../accounts/account-store.ts';

/**
 * The one authentication context class a sign-in ends with: every way in (password and a second
 * factor, a passkey, a federated sign-in with the upstream's MFA trusted or a Gatehouse factor)
 * passes two factors (interactions/mfa/complete-login.ts). Listed in discovery
 * (`acr_values_supported`) and carried by every ID token.
 */

/**
 * Claims released per scope: `openid` gives sub, amr and acr, `profile` gives name and groups, `email` the address,
 * `groups` the groups alone. The ID token carries them too (conformIdTokenClaims off).
 */
export const CLAIMS = {
  acr: null,
  auth_time: null,
  sid: null,
  iss: null,
  // amr and acr with openid: every ID token says which factors were used (RFC 8176 values) and the
  // session's authentication context class (mfa/acr.ts).
  openid: ['sub', 'amr', 'acr'],
  profile: ['name', 'preferred_username', 'groups'],
  email: ['email', 'email_verified'],
  groups: ['groups'],
};

/** Every claim an account can release; scopes select among them (CLAIMS). */
export function accountClaims(account: Account): { sub: string } & Record<string, unknown> {
  return {
    sub: account.id,
    name: account.name,
    preferred_username: account.username,
    email: account.email,
    email_verified: true,
    groups: account.groups,
  };
}

export function createFindAccount(accounts: AccountStore) {
  return async (_ctx: KoaContextWithOIDC, id: string): Promise<OidcAccount | undefined> => {
    const account = await accounts.findById(id);
    // A removed or disabled account is gone for oidc-provider: refresh tokens fail, and an SSO
    // session that stood for it asks for a new login (interaction-policy.ts).
    if (!account || account.disabledAt !== null) return undefined;
    return {
      accountId: account.id,
      // Read again by extraTokenClaims in the same request (provider.ts) instead of a second query.
      groups: account.groups,
      async claims() {
        return accountClaims(account);
      },
    };
  };
}
