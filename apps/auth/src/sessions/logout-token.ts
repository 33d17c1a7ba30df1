/**
 * Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4), signed with jose by the server's
 * current signing key, the key that signs ID tokens (keys/signing-keys.ts). Rules:
 * - claims: `iss` (the issuer), `aud` (the client id), `iat`, `exp` two minutes later, a fresh `jti`,
 *   `sub` (the account id), `sid` when the client registered backchannel_logout_session_required
 *   (its ID tokens carry it then), and `events` with the
 *   back-channel logout member (an empty object); never `nonce`;
 * - header: the key's `alg` and `kid`, and `typ: logout+jwt` (§2.4, as oidc-provider's own);
 * - a client without a backchannel_logout_uri, or not registered at all, gets none.
 */
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { ClientStore } from '../clients/client-store.ts';
import type { LogoutTokenSigner } from './backchannel-logout.ts';

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const LOGOUT_TOKEN_TTL_S = 120;

export interface LogoutTokenDeps {
  issuer: string;
  clients: Pick<ClientStore, 'find'>;
  /** The private JWK that signs now (with `alg` and `kid`); undefined when none is active. */
  signingKey: () => Promise<JWK | undefined>;
  clock: () => number;
}

export function createLogoutTokenSigner(deps: LogoutTokenDeps): LogoutTokenSigner {
  return async (clientId, sub, sid) => {
    const client = await deps.clients.find(clientId);
    if (!client?.backchannelLogoutUri) return undefined;
    const jwk = await deps.signingKey();
    if (!jwk?.alg) throw new Error('no signing key is active');
    const iat = Math.floor(deps.clock() / 1000);
    // `sid` goes to a client that asked for it, whose ID tokens carry it too (oidc-provider's includeSid).
    const withSid = sid !== undefined && client.backchannelLogoutSessionRequired === true;
    const token = await new SignJWT({ events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, ...(withSid ? { sid } : {}) })
      .setProtectedHeader({ alg: jwk.alg, typ: 'logout+jwt', ...(jwk.kid ? { kid: jwk.kid } : {}) })
      .setIssuer(deps.issuer)
      .setAudience(clientId)
      .setSubject(sub)
      .setIssuedAt(iat)
      .setExpirationTime(iat + LOGOUT_TOKEN_TTL_S)
      .setJti(randomUUID())
      .sign(await importJWK(jwk, jwk.alg));
    return { uri: client.backchannelLogoutUri, token, clientName: client.name };
  };
}
