/**
 * Shapes successful token responses (route `token`, status 200) the way relying parties of
 * Okta and Keycloak expect, on top of what oidc-provider issued:
 * - `scope` lists every granted scope, OpenID and API alike, in the order of the request (the
 *   code's or refresh token's scope, or the narrower `scope` of a refresh request); the library
 *   lists only the access token's own scopes (e.g. just `movies:read`); the code keeps the
 *   request's order (scope-order.ts);
 * - a client registered with an ID-token field (`authctl client add --id-token-field JWT_token`)
 *   gets the ID token under that name too, alongside `id_token`.
 */
import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { orderAsRequested } from './scope-order.ts';

type OidcContext = Context & { oidc?: KoaContextWithOIDC['oidc'] };
type TokenBody = Record<string, unknown> & { scope?: string; id_token?: string };

const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

/** The granted scopes, OpenID and resource, in the order they were asked for. */
function grantedScope(oidc: KoaContextWithOIDC['oidc'], body: TokenBody): string | undefined {
  const entities = oidc.entities as { AuthorizationCode?: { scope?: string }; RefreshToken?: { scope?: string }; Grant?: { getOIDCScopeFiltered(s: Set<string>): string } };
  const source = entities.AuthorizationCode ?? entities.RefreshToken;
  if (!source) return body.scope;
  const requested = oidc.params?.scope && entities.RefreshToken && !entities.AuthorizationCode ? words(oidc.params.scope) : words(source.scope);
  const granted = [...new Set([...words(body.scope), ...words(entities.Grant?.getOIDCScopeFiltered(new Set(requested)))])];
  return granted.length ? orderAsRequested(granted.join(' '), requested.join(' ')) : undefined;
}

export function tokenResponse() {
  return async function shapeTokenResponse(ctx: OidcContext, next: Next): Promise<void> {
    await next();
    const oidc = ctx.oidc;
    if (oidc?.route !== 'token' || ctx.status !== 200 || !ctx.body || typeof ctx.body !== 'object') return;
    const body = ctx.body as TokenBody;
    const scope = grantedScope(oidc, body);
    if (scope !== undefined) body.scope = scope;
    // The client's registered field (client-store.ts), served to oidc-provider as custom metadata.
    const field = (oidc.client as { id_token_field?: unknown } | undefined)?.id_token_field;
    if (body.id_token && typeof field === 'string') body[field] = body.id_token;
  };
}
