/**
 * The authorization server's metadata, read from `${issuer}/.well-known/openid-configuration`.
 * Rules: the document's `issuer` must equal the configured issuer exactly (RFC 8414 §3.3);
 * a good document is kept for the life of the process; a failure is retried at most once per
 * `retryMs`, so an outage does not turn every request into a fetch.
 */
import { z } from 'zod';
import { AUTH_ROUTES } from '@gatehouse/contracts';

const Metadata = z.object({
  issuer: z.string(),
  jwks_uri: z.url(),
  introspection_endpoint: z.url().optional(),
});
export type AuthorizationServerMetadata = z.infer<typeof Metadata>;

export class DiscoveryError extends Error {
  readonly code = 'discovery_failed';
}

export interface Discovery {
  get(): Promise<AuthorizationServerMetadata>;
}

export function createDiscovery(options: { issuer: string; fetch: typeof fetch; clock: () => number; retryMs?: number }): Discovery {
  // One second: short enough that an API started beside its authorization server (pnpm dev)
  // validates tokens as soon as that server answers, long enough that an outage is one fetch a second.
  const retryMs = options.retryMs ?? 1_000;
  let metadata: AuthorizationServerMetadata | undefined;
  let pending: Promise<AuthorizationServerMetadata> | undefined;
  let failedAt = -Infinity;
  let lastError: DiscoveryError | undefined;

  async function load(): Promise<AuthorizationServerMetadata> {
    const url = `${options.issuer}${AUTH_ROUTES.discovery}`;
    let response: Response;
    try {
      response = await options.fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(5_000) });
    } catch (error) {
      throw new DiscoveryError(`discovery document ${url} could not be fetched`, { cause: error });
    }
    if (!response.ok) throw new DiscoveryError(`discovery document ${url} answered ${response.status}`);
    const parsed = Metadata.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new DiscoveryError(`discovery document ${url} is not valid authorization server metadata`);
    if (parsed.data.issuer !== options.issuer) {
      throw new DiscoveryError(`discovery document ${url} names issuer ${parsed.data.issuer}, expected ${options.issuer}`);
    }
    return parsed.data;
  }

  return {
    get() {
      if (metadata) return Promise.resolve(metadata);
      if (lastError && options.clock() - failedAt < retryMs) return Promise.reject(lastError);
      pending ??= load()
        .then((m) => {
          metadata = m;
          return m;
        })
        .catch((error: unknown) => {
          failedAt = options.clock();
          lastError = error instanceof DiscoveryError ? error : new DiscoveryError('discovery failed', { cause: error });
          throw lastError;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
  };
}
