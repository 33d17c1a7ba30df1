import type { Context, Next } from 'koa';

/**
 * The API's scopes belong to its resource server, not to oidc-provider's OpenID scope list
 * (which would make them consent-bound OIDC scopes), so discovery would not list them.
 * This adds them to `scopes_supported` so clients can find every scope in one place.
 */
export function discoveryScopes(apiScopes: readonly string[]) {
  return async function addApiScopes(ctx: Context, next: Next): Promise<void> {
    await next();
    const route = (ctx as Context & { oidc?: { route?: string } }).oidc?.route;
    if (route !== 'discovery' || ctx.status !== 200 || !ctx.body || typeof ctx.body !== 'object') return;
    const doc = ctx.body as { scopes_supported?: string[] };
    doc.scopes_supported = [...new Set([...(doc.scopes_supported ?? []), ...apiScopes])];
  };
}
