/**
 * The authorization server's signing keys. Rules:
 * - the JWKS is fetched from the discovery document's `jwks_uri` on first use and kept;
 * - a token whose `kid` is unknown triggers one refetch, at most once per cooldown, so key
 *   rotation needs no restart and a flood of made-up kids cannot turn into a flood of fetches;
 * - a set older than `maxAgeMs` is refetched on next use; if that fails the old set stays in use;
 * - after every successful fetch `onKeys` learns the current kids (to forget tokens of removed keys).
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import type { Discovery } from './discovery.ts';

type KeyResolver = ReturnType<typeof createLocalJWKSet>;
type ResolvedKey = Awaited<ReturnType<KeyResolver>>;

export class JwksError extends Error {
  readonly code = 'jwks_unavailable';
}

export interface JwksCache {
  /** Key resolver for jose's jwtVerify. */
  getKey(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<ResolvedKey>;
  /** Makes sure a key set was loaded; rejects when none could be. */
  load(): Promise<void>;
}

export function createJwksCache(options: {
  discovery: Discovery;
  fetch: typeof fetch;
  clock: () => number;
  cooldownMs: number;
  maxAgeMs: number;
  onKeys?: (kids: ReadonlySet<string>) => void;
}): JwksCache {
  let resolver: KeyResolver | undefined;
  let fetchedAt = -Infinity;
  let refetchedForUnknownKidAt = -Infinity;
  let pending: Promise<void> | undefined;

  async function fetchKeys(): Promise<void> {
    const { jwks_uri } = await options.discovery.get();
    let response: Response;
    try {
      response = await options.fetch(jwks_uri, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(5_000) });
    } catch (error) {
      throw new JwksError(`JWKS ${jwks_uri} could not be fetched`, { cause: error });
    }
    if (!response.ok) throw new JwksError(`JWKS ${jwks_uri} answered ${response.status}`);
    const body = (await response.json().catch(() => undefined)) as JSONWebKeySet | undefined;
    if (!body || !Array.isArray(body.keys)) throw new JwksError(`JWKS ${jwks_uri} is not a key set`);
    resolver = createLocalJWKSet(body);
    fetchedAt = options.clock();
    options.onKeys?.(new Set(body.keys.map((k) => k.kid).filter((kid): kid is string => typeof kid === 'string')));
  }

  function refresh(): Promise<void> {
    pending ??= fetchKeys().finally(() => {
      pending = undefined;
    });
    return pending;
  }

  return {
    async load() {
      if (!resolver) await refresh();
    },
    async getKey(header, token) {
      const now = options.clock();
      if (!resolver) await refresh();
      else if (now - fetchedAt >= options.maxAgeMs) await refresh().catch(() => undefined);
      try {
        return await resolver!(header, token);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey) || options.clock() - refetchedForUnknownKidAt < options.cooldownMs) throw error;
        refetchedForUnknownKidAt = options.clock();
        await refresh();
        return await resolver!(header, token);
      }
    },
  };
}
