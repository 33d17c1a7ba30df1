import { describe, expect, it } from 'vitest';
import { createDiscovery, DiscoveryError } from '../../src/auth/discovery.ts';

const ISSUER = 'http://127.0.0.1:9';

describe('createDiscovery', () => {
  it('after a failure, answers from the failure for one second, then fetches again', async () => {
    let now = 0;
    let up = false;
    let fetches = 0;
    const fetchFn = (async () => {
      fetches += 1;
      if (!up) throw new Error('connect ECONNREFUSED');
      return new Response(JSON.stringify({ issuer: ISSUER, jwks_uri: `${ISSUER}/oauth2/v1/keys` }), { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const discovery = createDiscovery({ issuer: ISSUER, fetch: fetchFn, clock: () => now });
    await expect(discovery.get()).rejects.toBeInstanceOf(DiscoveryError);
    up = true;
    now = 999;
    await expect(discovery.get()).rejects.toThrow(`discovery document ${ISSUER}/.well-known/openid-configuration could not be fetched`);
    expect(fetches).toBe(1);
    now = 1_000;
    expect(await discovery.get()).toEqual({ issuer: ISSUER, jwks_uri: `${ISSUER}/oauth2/v1/keys` });
    expect(fetches).toBe(2);
    // Kept for the life of the process.
    up = false;
    now = 60_000;
    expect((await discovery.get()).issuer).toBe(ISSUER);
    expect(fetches).toBe(2);
  });
});
