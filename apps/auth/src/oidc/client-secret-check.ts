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
 * - symmetric uses of the secret (HS* signatures, client_secret_jwt) keep the current secret
 *   only; Gatehouse enables none of them.
 */
import type { Provider } from 'oidc-provider';
import { clientSecretMatches } from '../clients/client-secret.ts';

type RotationMetadata = { previous_client_secret?: unknown; previous_client_secret_expires_at_ms?: unknown };

export function acceptPreviousClientSecret(provider: Provider, clock: () => number): void {
  provider.Client.prototype.compareClientSecret = function compareClientSecret(actual: string) {
    const { previous_client_secret: previous, previous_client_secret_expires_at_ms: expiresAt } = this as RotationMetadata;
    const inGrace = typeof previous === 'string' && typeof expiresAt === 'number' && clock() < expiresAt;
    return clientSecretMatches(actual, { current: this.clientSecret, previous: inGrace ? previous : undefined });
  };
}
