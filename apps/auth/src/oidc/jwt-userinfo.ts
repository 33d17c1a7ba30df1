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
 * - the token may also come in a POST form body, `access_token=...` (RFC 6750 §2.2): oidc-provider
 *   reads the body and applies its rules first (one mechanism only, no `DPoP` header with a body
 *   token, no token in the query string: 400 invalid_request); when it then refuses the token as
 *   unknown (a JWT) or for its audience (an opaque API token), the token is answered here by the
 *   rules above, as Bearer: a token bound to a DPoP key is refused, as it needs its proof;
 * - a token in the header while the query string or a form body carries one too is 400
 *   invalid_request (RFC 6750 §2: one method per request), as oidc-provider answers for its own;
 * Other opaque tokens (unknown, or without an audience) go on to oidc-provider unchanged.
 */
import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { AUTH_ROUTES, DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { BodyError, readRequestBody } from '@gatehouse/http';
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

function refuse(ctx: Context, realm: string, status: 400 | 401 | 403, error: string, description: string, scheme: Scheme): void {
  ctx.status = status;
  const algs = scheme === 'DPoP' ? `, algs="${DPOP_ALGS}"` : '';
  ctx.set('WWW-Authenticate', `${scheme} realm="${realm}", error="${error}", error_description="${description}"${algs}`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

type OidcContext = Context & { oidc?: KoaContextWithOIDC['oidc'] };

/** oidc-provider's answer when a request carries its token in more than one way (oidc_context.js). */
const ONE_MECHANISM = 'access token must only be provided using one mechanism';

/** oidc-provider's limit for a request body (selective_body.js); a larger one is refused as it refuses it. */
const BODY_LIMIT = 56 * 1024;

/**
 * Whether the form body of a request that also has a header token carries `access_token`, read by
 * the one body reader under oidc-provider's limit; undefined when the body cannot be read (larger
 * than the limit, or a charset other than UTF-8). Other fields, repeated or not, are not this
 * check's business (userinfo reads none of them for a JWT).
 */
async function formHasAccessToken(ctx: Context): Promise<boolean | undefined> {
  try {
    const body = await readRequestBody(ctx.req, { limit: BODY_LIMIT, accept: ['application/x-www-form-urlencoded'] });
    return body.kind === 'form' && body.params.has('access_token');
  } catch (error) {
    if (error instanceof BodyError && (error.code === 'payload_too_large' || error.code === 'unsupported_media_type')) return undefined;
    throw error;
  }
}

/** A token oidc-provider refused as invalid_token: one it does not know (a JWT), or one with an audience. */
function refusedAsInvalidToken(ctx: Context): boolean {
  return ctx.status === 401 && (ctx.body as { error?: unknown } | undefined)?.error === 'invalid_token';
}

export function jwtUserinfo(deps: JwtUserinfoDeps) {
  /** The token as userinfo sees it; undefined: not ours, oidc-provider's answer stands. */
  async function find(value: string): Promise<UserinfoToken | 'inactive' | undefined> {
    if (!looksLikeJwt(value)) return deps.opaque?.(value);
    const claims = await deps.tokens.decode(value);
    return claims && (await deps.tokens.isActive(claims)) ? { sub: claims.sub, scope: claims.scope, jkt: claims.cnf?.jkt } : 'inactive';
  }

  async function answer(ctx: Context, token: UserinfoToken | 'inactive', request: Parameters<JwtUserinfoDeps['dpop']>[0]): Promise<void> {
    if (token === 'inactive') return refuse(ctx, deps.realm, 401, 'invalid_token', 'invalid token provided', request.scheme);
    const binding = await deps.dpop(request, token.jkt);
    if (binding) return refuse(ctx, deps.realm, 401, binding.error, binding.description, 'DPoP');
    const scopes = new Set((token.scope ?? '').split(' ').filter(Boolean));
    if (!scopes.has('openid')) return refuse(ctx, deps.realm, 403, 'insufficient_scope', 'the openid scope is required', request.scheme);
    const account = await deps.accounts.findById(token.sub);
    if (!account) return refuse(ctx, deps.realm, 401, 'invalid_token', 'invalid token provided', request.scheme);

    const all = accountClaims(account);
    const released = new Set<string>(['sub']);
    for (const scope of scopes) for (const name of SCOPE_CLAIMS[scope] ?? []) released.add(name);
    ctx.status = 200;
    ctx.remove('WWW-Authenticate');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = Object.fromEntries(Object.entries(all).filter(([name, value]) => released.has(name) && value !== undefined));
  }

  /** A form-body token (RFC 6750 §2.2), after oidc-provider checked how it came and refused it as unknown to it. */
  async function fromBody(ctx: OidcContext, next: Next): Promise<void> {
    await next();
    const value = ctx.oidc?.body?.access_token;
    if (ctx.oidc?.route !== 'userinfo' || typeof value !== 'string' || !value || !refusedAsInvalidToken(ctx)) return;
    const token = await find(value);
    if (token === undefined) return;
    await answer(ctx, token, { scheme: 'Bearer', token: value, method: ctx.method, proof: undefined });
  }

  return async function userinfoForJwt(ctx: OidcContext, next: Next): Promise<void> {
    if (ctx.path !== AUTH_ROUTES.userinfo || (ctx.method !== 'GET' && ctx.method !== 'POST')) return next();
    const match = /^(Bearer|DPoP) ([^\s]+)$/i.exec(ctx.get('authorization'));
    if (!match) return ctx.method === 'POST' && !ctx.get('authorization') ? fromBody(ctx, next) : next();
    const scheme: Scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';

    const token = await find(match[2]!);
    if (token === undefined) return next();
    // A second token in the query string or the form body: the request is malformed (RFC 6750 §2).
    const inForm = ctx.method === 'POST' && ctx.is('application/x-www-form-urlencoded') ? await formHasAccessToken(ctx) : false;
    if (inForm === undefined) return refuse(ctx, deps.realm, 400, 'invalid_request', 'failed to parse the request body', scheme);
    if (ctx.query.access_token !== undefined || inForm) return refuse(ctx, deps.realm, 400, 'invalid_request', ONE_MECHANISM, scheme);
    await answer(ctx, token, { scheme, token: match[2]!, method: ctx.method, proof: ctx.req.headers.dpop });
  };
}
