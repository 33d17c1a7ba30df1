/**
 * Okta's resource-server SDKs (`@okta/jwt-verifier` and its peers) look for the signing keys at
 * `<issuer>/v1/keys` unless told otherwise, the path of an Okta authorization server. Rules:
 * - `GET`/`HEAD /v1/keys` is answered exactly as `/oauth2/v1/keys` (the JWKS discovery names):
 *   the request is routed to that endpoint, so body, caching and errors are the same;
 * - nothing else under `/v1/` is served (those paths keep their 404).
 */
import type { Context, Next } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';

/** Where Okta's SDKs fetch the JWKS by default. */
export const OKTA_KEYS_PATH = '/v1/keys';

export async function oktaKeysAlias(ctx: Context, next: Next): Promise<void> {
  if (ctx.path === OKTA_KEYS_PATH) ctx.path = AUTH_ROUTES.jwks;
  await next();
}
