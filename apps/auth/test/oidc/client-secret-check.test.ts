/**
 * oidc/client-secret-check.ts on a bare oidc-provider: the previous secret is compared only before
 * its expiry by the injected clock, even on a Client object built while the grace period ran.
 */
import { Provider } from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { acceptPreviousClientSecret } from '../../src/oidc/client-secret-check.ts';

const NOW = 1_790_000_000_000;

function providerWith(metadata: Record<string, unknown>, clock: () => number): Provider {
  const provider = new Provider('http://127.0.0.1:1', {
    clients: [{ client_id: 'svc', client_secret: 'current-secret-0123', redirect_uris: [], response_types: [], grant_types: ['client_credentials'], ...metadata }],
    extraClientMetadata: { properties: ['previous_client_secret', 'previous_client_secret_expires_at_ms'] },
    features: { clientCredentials: { enabled: true } },
  });
  acceptPreviousClientSecret(provider, clock);
  return provider;
}

describe('compareClientSecret with a previous secret', () => {
  it('accepts the previous secret until its expiry, then only the current one', async () => {
    let now = NOW;
    const provider = providerWith({ previous_client_secret: 'previous-secret-0123', previous_client_secret_expires_at_ms: NOW + 1000 }, () => now);
    const client = (await provider.Client.find('svc'))!;
    expect(await client.compareClientSecret('current-secret-0123')).toBe(true);
    expect(await client.compareClientSecret('previous-secret-0123')).toBe(true);
    expect(await client.compareClientSecret('another-secret-0123')).toBe(false);
    now = NOW + 999;
    expect(await client.compareClientSecret('previous-secret-0123')).toBe(true);
    now = NOW + 1000;
    expect(await client.compareClientSecret('previous-secret-0123')).toBe(false);
    expect(await client.compareClientSecret('current-secret-0123')).toBe(true);
  });

  it('ignores a previous secret without an expiry, and changes only its own provider', async () => {
    const provider = providerWith({ previous_client_secret: 'previous-secret-0123' }, () => NOW);
    expect(await (await provider.Client.find('svc'))!.compareClientSecret('previous-secret-0123')).toBe(false);
    const untouched = new Provider('http://127.0.0.1:1', {
      clients: [{ client_id: 'svc', client_secret: 'current-secret-0123', redirect_uris: [], response_types: [], grant_types: ['client_credentials'] }],
    });
    expect(untouched.Client.prototype.compareClientSecret).not.toBe(provider.Client.prototype.compareClientSecret);
  });
});
