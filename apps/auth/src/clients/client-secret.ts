/**
 * Which secrets authenticate a confidential client. Rules:
 * - the current secret always; the secret replaced by the last rotation only while its grace
 *   period runs (client-store.ts returns it only then, so the expiry is enforced in one place);
 * - every comparison is constant-time (safe-equal.ts) and both are made whatever the first one
 *   answered, so the time taken does not say which secret matched;
 * - one check for every place a client authenticates with its secret: oidc-provider's
 *   client_secret_basic and client_secret_post at token, introspection and revocation
 *   (oidc/client-secret-check.ts) and the revocation feed's Basic credentials.
 */
import { safeEqual } from '../crypto/safe-equal.ts';

export interface ClientSecrets {
  current: string | undefined;
  previous: string | undefined;
}

export function clientSecretMatches(presented: string, secrets: ClientSecrets): boolean {
  const current = safeEqual(presented, secrets.current ?? '') && secrets.current !== undefined;
  const previous = safeEqual(presented, secrets.previous ?? '') && secrets.previous !== undefined;
  return current || previous;
}
