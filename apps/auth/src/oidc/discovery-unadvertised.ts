import type { Context, Next } from 'koa';

/** What oidc-provider supports or lists by default but no registered client can use. */
export interface Unadvertised {
  /**
   * Response types only a built-in client uses: `none`, the account page's own
   * (clients/account-client.ts); clients register `code` and `id_token` (client-store.ts).
   */
  responseTypes: readonly string[];
  /** Claims no token carries here: `sid` (issued only for front- or back-channel logout, not offered). */
  claims: readonly string[];
}

/**
 * Discovery lists only what a registered client can use and what a token can carry; this
 * removes the rest from oidc-provider's document (the library keeps supporting what it must).
 */
export function discoveryUnadvertised(hide: Unadvertised) {
  const responseTypes = new Set(hide.responseTypes);
  const claims = new Set(hide.claims);
  return async function listOnlyWhatWorks(ctx: Context, next: Next): Promise<void> {
    await next();
    const route = (ctx as Context & { oidc?: { route?: string } }).oidc?.route;
    if (route !== 'discovery' || ctx.status !== 200 || !ctx.body || typeof ctx.body !== 'object') return;
    const doc = ctx.body as { response_types_supported?: string[]; claims_supported?: string[] };
    if (doc.response_types_supported) doc.response_types_supported = doc.response_types_supported.filter((type) => !responseTypes.has(type));
    if (doc.claims_supported) doc.claims_supported = doc.claims_supported.filter((claim) => !claims.has(claim));
  };
}
