/**
 * The `grant_type` label of auth_tokens_issued_total (metrics/auth-metrics.ts): every grant a
 * client can be registered for and the token endpoint serves has its own value, anything else
 * is `other`.
 */
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '@gatehouse/metrics';
import { createAuthMetrics } from '../../src/metrics/auth-metrics.ts';
import { CLIENT_GRANT_TYPES } from '../../src/clients/client-store.ts';

async function issuedSeries(record: (metrics: ReturnType<typeof createAuthMetrics>) => void): Promise<string[]> {
  const registry = createMetricsRegistry({ processMetrics: false });
  record(createAuthMetrics(registry));
  return (await registry.metrics()).split('\n').filter((line) => line.startsWith('auth_tokens_issued_total{'));
}

describe('auth_tokens_issued_total', () => {
  it('counts the device grant and token exchange under their own grant_type values', async () => {
    expect(
      await issuedSeries((m) => {
        m.tokenIssued('urn:ietf:params:oauth:grant-type:device_code');
        m.tokenIssued('urn:ietf:params:oauth:grant-type:token-exchange');
        m.tokenIssued('urn:ietf:params:oauth:grant-type:token-exchange');
      }),
    ).toEqual([
      'auth_tokens_issued_total{grant_type="urn:ietf:params:oauth:grant-type:device_code"} 1',
      'auth_tokens_issued_total{grant_type="urn:ietf:params:oauth:grant-type:token-exchange"} 2',
    ]);
  });

  it('every grant type a client may be registered for at the token endpoint has its own value', async () => {
    // implicit issues its tokens at the authorization endpoint, never at the token endpoint.
    const tokenGrants = CLIENT_GRANT_TYPES.filter((g) => g !== 'implicit');
    const series = await issuedSeries((m) => tokenGrants.forEach((g) => m.tokenIssued(g)));
    expect(series).toEqual(tokenGrants.map((g) => `auth_tokens_issued_total{grant_type="${g}"} 1`));
  });

  it('anything else, or no grant type, is other', async () => {
    expect(await issuedSeries((m) => ['password', 'urn:example:grant', '', undefined].forEach((g) => m.tokenIssued(g)))).toEqual([
      'auth_tokens_issued_total{grant_type="other"} 4',
    ]);
  });
});
