/**
 * The token endpoint's answer to a client registered to require DPoP (`dpop_bound_access_tokens`,
 * `authctl client add --require-dpop`) that sent no proof. Rules:
 * - oidc-provider refuses such a request in every grant (sender_constraints.js checkDpopRequired:
 *   authorization_code, refresh_token, client_credentials) with `InvalidGrant`, whose body says only
 *   "grant request is invalid"; this answers `invalid_dpop_proof` instead (the token endpoint's error
 *   code for a DPoP proof problem, RFC 9449), still 400, with a description that names the cause
 *   and the way on;
 * - only that refusal is rewritten: an `InvalidGrant` whose structured `error_detail` is the one
 *   checkDpopRequired sets. The detail is the only signal that tells it from the other
 *   `InvalidGrant`s of a proof-less request (an unknown code or refresh token is refused earlier in
 *   the same grant), so it is compared as a whole; the client's registration is checked too;
 * - the headers stay oidc-provider's: it sets no WWW-Authenticate for DPoP errors at the token
 *   endpoint (only at userinfo), and no DPoP-Nonce (no nonce secret is configured);
 * - the pushed authorization request endpoint is not concerned: oidc-provider checks a proof there
 *   only when one is sent, and leaves `dpop_bound_access_tokens` to the token endpoint.
 */
import type { Context, Next } from 'koa';
import { errors, type Provider } from 'oidc-provider';

/** What checkDpopRequired gives InvalidGrant as its detail (oidc-provider lib/helpers/sender_constraints.js). */
const DPOP_NOT_PROVIDED = 'DPoP proof JWT not provided';

const DPOP_REQUIRED_ANSWER = {
  error: 'invalid_dpop_proof',
  error_description: 'this client is registered to require DPoP: send a DPoP proof in the DPoP header',
} as const;

export function dpopRequiredAnswer(provider: Provider) {
  // oidc-provider catches the grant's error inside its route and reports it with this event, on
  // the request's own context, before the wrapper below resumes.
  const missingProof = new WeakSet<object>();
  provider.on('grant.error', (ctx, error) => {
    const client = ctx.oidc?.client as { dpopBoundAccessTokens?: boolean } | undefined;
    if (error instanceof errors.InvalidGrant && error.error_detail === DPOP_NOT_PROVIDED && client?.dpopBoundAccessTokens === true) missingProof.add(ctx);
  });
  return async function dpopRequired(ctx: Context, next: Next): Promise<void> {
    await next();
    if (missingProof.has(ctx)) ctx.body = { ...DPOP_REQUIRED_ANSWER };
  };
}
