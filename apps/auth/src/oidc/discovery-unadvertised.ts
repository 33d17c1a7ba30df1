import type { Context, Next } from 'koa';

/**
 * Discovery lists the response types a registered client can use (client-store.ts: `code` and
 * `id_token`). oidc-provider also supports `none`, which only the account page's built-in client
 * uses (account/account-client.ts) and which no client can register, so discovery leaves it out.
 */
export function discoveryResponseTypes(builtInOnly: readonly string[]) {
  const hidden = new Set(builtInOnly);
  return async function listRegistrableResponseTypes(ctx: Context, next: Next): Promise<void> {
    await next();
    const route = (ctx as Context & { oidc?: { route?: string } }).oidc?.route;
    if (route !== 'discovery' || ctx.status !== 200 || !ctx.body || typeof ctx.body !== 'object') return;
    const doc = ctx.body as { response_types_supported?: string[] };
    if (doc.response_types_supported) doc.response_types_supported = doc.response_types_supported.filter((type) => !hidden.has(type));
  };
}
