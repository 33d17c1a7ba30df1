/**
 * The server's own view of the JWT access tokens it issued (RFC 9068), for introspection
 * (RFC 7662), revocation (RFC 7009) and userinfo. Rules:
 * - a token is ours when its signature verifies with one of our current signing keys, `typ` is
 *   `at+jwt`, `alg` RS256 and `iss` our issuer; anything else is unknown (inactive, not an error);
 * - a known token is active until `exp` unless its `jti`, its grant (`grant_id` claim) or its
 *   subject was revoked (revocation-store.ts), its client was removed, or its user was removed
 *   or disabled;
 * - introspection answers `token_type: DPoP` with `cnf.jkt` for a token bound to a DPoP key
 *   (RFC 9449 §6.2), `Bearer` for any other;
 * - revoking records the `jti` until the token's own `exp`, in the database, so every instance agrees.
 */
import { createLocalJWKSet, jwtVerify, type JWK, type JWTPayload } from 'jose';
import type { IntrospectionResponse } from '@gatehouse/contracts';
import type { Account, AccountStore } from '../accounts/account-store.ts';
import type { ClientStore } from '../clients/client-store.ts';
import type { RevocationStore } from '../revocation/revocation-store.ts';

export interface AccessTokenClaimsSeen extends JWTPayload {
  jti: string;
  sub: string;
  exp: number;
  iat: number;
  client_id: string;
  scope?: string;
  grant_id?: string;
  groups?: string[];
  /** The DPoP key the token is bound to (RFC 9449 §6.1). */
  cnf?: { jkt?: string };
}

export interface JwtAccessTokens {
  /** The token's claims when it is one of ours (signature, typ, iss), expired or not; else undefined. */
  decode(token: string): Promise<AccessTokenClaimsSeen | undefined>;
  /** The RFC 7662 answer for a token that looks like a JWT. */
  introspect(token: string): Promise<IntrospectionResponse & { client_id?: string }>;
  /** Whether decoded claims describe an active token right now. */
  isActive(claims: AccessTokenClaimsSeen): Promise<boolean>;
  /** Records the token as revoked until it expires. */
  revoke(claims: AccessTokenClaimsSeen): Promise<void>;
}

export interface JwtAccessTokensDeps {
  issuer: string;
  /** The signing keys in use now (private JWKs are reduced to their public part). */
  keys: () => readonly JWK[];
  clients: Pick<ClientStore, 'find'>;
  accounts: Pick<AccountStore, 'findById'>;
  revocations: Pick<RevocationStore, 'isRevoked' | 'revokeToken'>;
  clock: () => number;
}

const PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']);

export function publicJwk(jwk: JWK): JWK {
  return Object.fromEntries(Object.entries(jwk).filter(([name]) => !PRIVATE_MEMBERS.has(name))) as JWK;
}

/** Cheap syntactic test: three base64url segments, the first a JSON header. */
export function looksLikeJwt(token: unknown): token is string {
  if (typeof token !== 'string') return false;
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[\w-]*$/.test(p))) return false;
  try {
    return typeof JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) === 'object';
  } catch {
    return false;
  }
}

/** The token type and confirmation of a token: DPoP with its key's thumbprint when bound, else Bearer. */
function dpopBinding(claims: AccessTokenClaimsSeen): { token_type: 'DPoP'; cnf: { jkt: string } } | { token_type: 'Bearer' } {
  const jkt = claims.cnf?.jkt;
  return typeof jkt === 'string' && jkt !== '' ? { token_type: 'DPoP', cnf: { jkt } } : { token_type: 'Bearer' };
}

export function createJwtAccessTokens(deps: JwtAccessTokensDeps): JwtAccessTokens {
  let keySource: readonly JWK[] | undefined;
  let keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  const currentKeySet = () => {
    const keys = deps.keys();
    if (keys !== keySource || !keySet) {
      keySource = keys;
      keySet = createLocalJWKSet({ keys: keys.map(publicJwk) });
    }
    return keySet;
  };

  const decode: JwtAccessTokens['decode'] = async (token) => {
    if (!looksLikeJwt(token)) return undefined;
    try {
      const { payload } = await jwtVerify(token, currentKeySet(), {
        issuer: deps.issuer,
        typ: 'at+jwt',
        algorithms: ['RS256'],
        // Expiry is judged by isActive, so an expired token of ours is still recognised.
        currentDate: new Date(0),
      });
      const claims = payload as AccessTokenClaimsSeen;
      if (typeof claims.jti !== 'string' || typeof claims.sub !== 'string' || typeof claims.exp !== 'number' || typeof claims.client_id !== 'string') {
        return undefined;
      }
      return claims;
    } catch {
      return undefined;
    }
  };

  /** false when inactive; else the token's user (undefined for a machine token, whose subject is its client). */
  const activeSubject = async (claims: AccessTokenClaimsSeen): Promise<false | { account: Account | undefined }> => {
    if (claims.exp * 1000 <= deps.clock()) return false;
    if (await deps.revocations.isRevoked({ jti: claims.jti, grantId: claims.grant_id, sub: claims.sub, iat: claims.iat })) return false;
    if (!(await deps.clients.find(claims.client_id))) return false;
    if (claims.sub === claims.client_id) return { account: undefined };
    // A user's token needs the user to exist and be enabled.
    const account = await deps.accounts.findById(claims.sub);
    return account && account.disabledAt === null ? { account } : false;
  };
  const isActive: JwtAccessTokens['isActive'] = async (claims) => (await activeSubject(claims)) !== false;

  return {
    decode,
    isActive,
    async introspect(token) {
      const claims = await decode(token);
      const subject = claims && (await activeSubject(claims));
      if (!claims || !subject) return { active: false };
      const { account } = subject;
      return {
        active: true,
        ...(claims.scope ? { scope: claims.scope } : {}),
        client_id: claims.client_id,
        sub: claims.sub,
        aud: claims.aud as string | [string, ...string[]],
        iss: deps.issuer,
        exp: claims.exp,
        iat: claims.iat,
        jti: claims.jti,
        ...dpopBinding(claims),
        ...(account ? { username: account.username, groups: account.groups } : {}),
      };
    },
    async revoke(claims) {
      if (claims.exp * 1000 <= deps.clock()) return;
      await deps.revocations.revokeToken(claims.jti, claims.exp * 1000);
    },
  };
}
