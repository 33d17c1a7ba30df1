/**
 * Which secrets authenticate a confidential client. Rules:
 * - the current secret always; the secret replaced by the last rotation only while its grace
 *   period runs (client-store.ts returns it only then, so the expiry is enforced in one place);
 * - every comparison is constant-time (safe-equal.ts: SHA-256 digests compared with
 *   timingSafeEqual) and both are made whatever the first one answered, so the time taken does not
 *   say which secret matched; the presented secret is hashed once, and each stored secret's digest
 *   is made once and kept (at most STORED_DIGESTS_LIMIT of them);
 * - one check for every place a client authenticates with its secret: oidc-provider's
 *   client_secret_basic and client_secret_post at token, introspection and revocation
 *   (oidc/client-secret-check.ts) and the revocation feed's Basic credentials.
 */
import { timingSafeEqual } from 'node:crypto';
import { secretDigest } from '../crypto/safe-equal.ts';

export interface ClientSecrets {
  current: string | undefined;
  previous: string | undefined;
}

/** Most stored secrets whose digest is kept; past it the digests are dropped and made again. */
export const STORED_DIGESTS_LIMIT = 1024;

// The digests of the stored secrets, made once per secret: the token endpoint checks the same
// client's secret on every request. A secret rotated out simply stops being looked up.
const storedDigests = new Map<string, Buffer>();
function storedDigest(secret: string): Buffer {
  let digest = storedDigests.get(secret);
  if (digest === undefined) {
    digest = secretDigest(secret);
    if (storedDigests.size >= STORED_DIGESTS_LIMIT) storedDigests.clear();
    storedDigests.set(secret, digest);
  }
  return digest;
}

/** How many stored secrets' digests are kept now (tests). */
export const storedDigestCount = (): number => storedDigests.size;

export function clientSecretMatches(presented: string, secrets: ClientSecrets): boolean {
  // The presented value is hashed once and compared with both stored digests, in constant time.
  const given = secretDigest(presented);
  const current = timingSafeEqual(given, storedDigest(secrets.current ?? '')) && secrets.current !== undefined;
  const previous = timingSafeEqual(given, storedDigest(secrets.previous ?? '')) && secrets.previous !== undefined;
  return current || previous;
}
