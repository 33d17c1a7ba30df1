/**
 * When an upstream's sign-in stands for the second factor. Rules:
 * - `always_local`: never; a Gatehouse factor is asked every time;
 * - `trust_upstream`: when the ID token's `amr` (RFC 8176) holds one of the provider's accepted
 *   methods (`mfaAcceptedAmr`), or its `acr` is one of the accepted levels (`mfaAcceptedAcr`);
 *   anything else (no amr, `pwd` alone, an OAuth 2.0 provider, which has no ID token) does not.
 */
import type { UpstreamIdentity } from './upstream-client.ts';
import type { UpstreamProvider } from './upstream-provider.ts';

export function upstreamMfa(provider: Pick<UpstreamProvider, 'mfaPolicy' | 'mfaAcceptedAmr' | 'mfaAcceptedAcr'>, identity: Pick<UpstreamIdentity, 'amr' | 'acr'>): boolean {
  if (provider.mfaPolicy === 'always_local') return false;
  if (identity.amr.some((method) => provider.mfaAcceptedAmr.includes(method))) return true;
  return identity.acr !== undefined && provider.mfaAcceptedAcr.includes(identity.acr);
}
