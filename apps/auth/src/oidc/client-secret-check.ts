/**
 * Client authentication with a secret, as oidc-provider runs it, extended to the grace period of a
 * secret rotation. Rules:
 * - oidc-provider checks client_secret_basic and client_secret_post, on every endpoint that
 *   authenticates a client (token, introspection, revocation), with `Client#compareClientSecret`;
 *   this replaces that method on the provider's own Client class (its documented extension point,
 *   typed in the library's types; each Provider has its own class, so nothing global changes);
 * - a presented secret is accepted when it is the current secret or the previous one
 *   (`previous_client_secret`, custom metadata that client-store.ts sets only while the grace
 *   period runs) before `previous_client_secret_expires_at_ms` by the injected clock, checked again
 *   here so that no copy of the client kept between requests outlives the grace period; with
 *   clients/client-secret.ts's constant-time check;
 * - the secret is accepted only by the method the client is registered for: oidc-provider takes
 *   client_secret_basic and client_secret_post for each other, so a secret sent in the body by a
 *   client_secret_basic client (or in an Authorization header by a client_secret_post one) is
 *   refused here as `invalid_client`, before any comparison, with oidc-provider's own description
 *   of a method mismatch. Introspection and revocation authenticate with the same method
 *   (oidc-provider has no separate metadata for them);
 * - symmetric uses of the secret (client_secret_jwt's HS256 assertions) use the current secret
 *   only: oidc-provider derives their key from `client_secret`, and a client rotating the secret
 *   of a client_secret_jwt client moves to the new one at once.
 */
import { errors, Provider } from 'oidc-provider';
import { clientSecretMatches } from '../clients/client-secret.ts';

type RotationMetadata = { previous_client_secret?: unknown; previous_client_secret_expires_at_ms?: unknown };

/** How the request being served presented a secret: in the body (post) or a Basic header; undefined outside a request. */
function presentedMethod(): 'client_secret_basic' | 'client_secret_post' | undefined {
  const ctx = Provider.ctx;
  if (!ctx) return undefined;
  const params = ctx.oidc?.params as { client_secret?: unknown } | undefined;
  if (params?.client_secret) return 'client_secret_post';
  return ctx.headers.authorization === undefined ? undefined : 'client_secret_basic';
}

export function acceptPreviousClientSecret(provider: Provider, clock: () => number): void {
  provider.Client.prototype.compareClientSecret = function compareClientSecret(actual: string) {
    const presented = presentedMethod();
    if (presented !== undefined && presented !== this.clientAuthMethod) {
      throw new errors.InvalidClientAuth('the provided authentication mechanism does not match the registered client authentication method');
    }
    const { previous_client_secret: previous, previous_client_secret_expires_at_ms: expiresAt } = this as RotationMetadata;
    const inGrace = typeof previous === 'string' && typeof expiresAt === 'number' && clock() < expiresAt;
    return clientSecretMatches(actual, { current: this.clientSecret, previous: inGrace ? previous : undefined });
  };
}
