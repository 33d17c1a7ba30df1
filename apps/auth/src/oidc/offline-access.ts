/**
 * `offline_access` asked for without `prompt=consent`, as Okta and Auth0 clients send it.
 * OpenID Connect Core §11 lets the OP honour it when "other conditions for processing the request
 * permitting offline access" are in place; here that condition is the consent step. oidc-provider
 * drops the scope whenever `prompt` lacks `consent` (lib/actions/authorization/scopes.js); this
 * puts it back right after that check, as oidc-provider's validator of the `scope` parameter
 * (its `extraParams` validators run after the scope check, at the authorization and PAR
 * endpoints, before the interaction starts or the pushed request is stored). Rules:
 * - it is kept when the request asked for it (in the query or form, or in the pushed request its
 *   `request_uri` names), the response type includes `code`, and the client may use
 *   `refresh_token` (oidc-provider's two other conditions, unchanged), and the client's
 *   registered `scope`, if it has one, lists it; the scope keeps the order the request gave;
 * - the grant then holds it only for a first-party client (the seed apps are trusted: no page)
 *   or when the user's consent record for the client has it (grants.ts); otherwise
 *   oidc-provider's consent prompt shows the page (op_scopes_missing), or answers
 *   `consent_required` to `prompt=none`; Allow adds it to the record;
 * - with it, the code and refresh token outlive the SSO session (token-policies.ts).
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { decodeJwt } from 'jose';

const OFFLINE_ACCESS = 'offline_access';
const ROUTES = new Set(['authorization', 'pushed_authorization_request']);

const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

/** The `scope` as the request sent it, before oidc-provider's scope check rewrote the parameters. */
function requestedScope(ctx: KoaContextWithOIDC): unknown {
  const pushed = (ctx.oidc.entities as { PushedAuthorizationRequest?: { request: string } }).PushedAuthorizationRequest;
  // The pushed request was stored with its scope kept by this same validator at the PAR endpoint.
  if (pushed) return decodeJwt(pushed.request).scope;
  const source = ctx.method === 'POST' ? ctx.oidc.body : ctx.query;
  return source?.scope;
}

/** oidc-provider's `extraParams.scope` validator: puts back an `offline_access` it dropped for want of `prompt=consent`. */
export async function keepOfflineAccess(ctx: KoaContextWithOIDC, scope: string | undefined): Promise<void> {
  const { params, client, route } = ctx.oidc;
  if (!params || !client || !ROUTES.has(route) || words(scope).includes(OFFLINE_ACCESS)) return;
  const asked = [...new Set(words(requestedScope(ctx)))];
  if (!asked.includes(OFFLINE_ACCESS)) return;
  if (!words(params.response_type).includes('code') || !client.grantTypeAllowed('refresh_token')) return;
  if (client.scope && !words(client.scope).includes(OFFLINE_ACCESS)) return;
  const kept = new Set(words(scope));
  params.scope = asked.filter((s) => s === OFFLINE_ACCESS || kept.has(s)).join(' ');
}
