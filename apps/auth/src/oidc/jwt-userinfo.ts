/**
 * The userinfo endpoint for the JWT access tokens this server issues. oidc-provider's own
 * userinfo only knows opaque tokens without an audience, so a Bearer JWT is answered here before
 * the library routes. Rules (OIDC Core 5.3, RFC 6750):
 * - any active token of ours (jwt-access-tokens.ts) that carries `openid` is accepted, whatever
 *   its audience: the userinfo audience of an OpenID-only request, or an API audience of a
 *   request that also named API scopes (its `scope` carries the OpenID scopes granted with it,
 *   resource-server.ts); a resource server still accepts only tokens for its own audience;
 * - a token that is not ours, inactive or of a removed user is 401 with
 *   `WWW-Authenticate: Bearer error="invalid_token"`; a valid one without `openid` (a machine
 *   token, or a refresh narrowed to API scopes) is 403 insufficient_scope;
 * - the claims released are those of the token's own scopes (find-account.ts CLAIMS), `sub` always;
 * - the answer is JSON and never cached;
 * - the token may come as `Bearer` or `DPoP`: a token bound to a DPoP key only as DPoP with a
 *   valid proof, any other only as Bearer (userinfo-dpop.ts); a refusal of a DPoP request, or of a
 *   bound token, is a DPoP challenge with `algs` (RFC 9449 §7.1).
 * - an opaque access token with an audience (AUTH_API_TOKEN_FORMAT=opaque, a request that also
 *   named API scopes), which oidc-provider's userinfo refuses for its audience, is answered here
 *   by the same rules once opaque-access-tokens.ts found it active;
 * Other opaque tokens (unknown, or without an audience) and tokens sent in a form body go on to
 * oidc-provider unchanged.
 */
import type { Context, Next } from 'koa';
import { AUTH_ROUTES, DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import type { AccountStore } from '../accounts/account-store.ts';
import { CLAIMS, accountClaims } from './find-account.ts';
import { looksLikeJwt, type JwtAccessTokens } from './jwt-access-tokens.ts';
import type { userinfoDpop } from './userinfo-dpop.ts';

export interface JwtUserinfoDeps {
  tokens: JwtAccessTokens;
  accounts: Pick<AccountStore, 'findById'>;
  /** The issuer's realm for WWW-Authenticate. */
  realm: string;
  /** Whether the token came the way its DPoP binding asks (userinfo-dpop.ts). */
  dpop: ReturnType<typeof userinfoDpop>;
  /** An opaque access token with an audience (opaque-access-tokens.ts); undefined: oidc-provider answers. */
  opaque?: (token: string) => Promise<UserinfoToken | 'inactive' | undefined>;
}

/** What userinfo needs of an active access token. */
export interface UserinfoToken {
  sub: string;
  scope?: string;
  /** The DPoP key the token is bound to (RFC 9449 cnf.jkt). */
  jkt?: string;
}

const SCOPE_CLAIMS = CLAIMS as Record<string, readonly string[] | null>;

type Scheme = 'Bearer' | 'DPoP';
const DPOP_ALGS = DPOP_SIGNING_ALGORITHMS.join(' ');
const schemeOf = (authorization: string): Scheme => (/^dpop /i.test(authorization) ? 'DPoP' : 'Bearer');

function refuse(ctx: Context, realm: string, status: 401 | 403, error: string, description: string, scheme: Scheme = schemeOf(ctx.get('authorization'))): void {
  ctx.status = status;
  const algs = scheme === 'DPoP' ? `, algs="${DPOP_ALGS}"` : '';
  ctx.set('WWW-Authenticate', `${scheme} realm="${realm}", error="${error}", error_description="${description}"${algs}`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

export function jwtUserinfo(deps: JwtUserinfoDeps) {
  return async function userinfoForJwt(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== AUTH_ROUTES.userinfo || (ctx.method !== 'GET' && ctx.method !== 'POST')) return next();
    const match = /^(Bearer|DPoP) ([^\s]+)$/i.exec(ctx.get('authorization'));
    if (!match) return next();

    let token: UserinfoToken | 'inactive' | undefined;
    if (looksLikeJwt(match[2])) {
      const claims = await deps.tokens.decode(match[2]);
      token = claims && (await deps.tokens.isActive(claims)) ? { sub: claims.sub, scope: claims.scope, jkt: claims.cnf?.jkt } : 'inactive';
    } else {
      token = await deps.opaque?.(match[2]!);
      if (token === undefined) return next();
    }
    if (token === 'inactive') return refuse(ctx, deps.realm, 401, 'invalid_token', 'invalid token provided');
    const binding = await deps.dpop({ scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2]!, method: ctx.method, proof: ctx.req.headers.dpop }, token.jkt);
    if (binding) return refuse(ctx, deps.realm, 401, binding.error, binding.description, 'DPoP');
    const scopes = new Set((token.scope ?? '').split(' ').filter(Boolean));
    if (!scopes.has('openid')) return refuse(ctx, deps.realm, 403, 'insufficient_scope', 'the openid scope is required');
    const account = await deps.accounts.findById(token.sub);
    if (!account) return refuse(ctx, deps.realm, 401, 'invalid_token', 'invalid token provided');

    const all = accountClaims(account);
    const released = new Set<string>(['sub']);
    for (const scope of scopes) for (const name of SCOPE_CLAIMS[scope] ?? []) released.add(name);
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = Object.fromEntries(Object.entries(all).filter(([name, value]) => released.has(name) && value !== undefined));
  };
}
