import { describe, expect, it } from 'vitest';
import { clientSecretMatches, STORED_DIGESTS_LIMIT, storedDigestCount } from '../../src/clients/client-secret.ts';

describe('clientSecretMatches', () => {
  it('accepts the current secret, and the previous one when there is one', () => {
    expect(clientSecretMatches('current-secret', { current: 'current-secret', previous: undefined })).toBe(true);
    expect(clientSecretMatches('previous-secret', { current: 'current-secret', previous: 'previous-secret' })).toBe(true);
    expect(clientSecretMatches('current-secret', { current: 'current-secret', previous: 'previous-secret' })).toBe(true);
  });

  it('refuses anything else, the empty string included when a secret is absent', () => {
    expect(clientSecretMatches('previous-secret', { current: 'current-secret', previous: undefined })).toBe(false);
    expect(clientSecretMatches('current-secret ', { current: 'current-secret', previous: 'previous-secret' })).toBe(false);
    expect(clientSecretMatches('', { current: 'current-secret', previous: undefined })).toBe(false);
    expect(clientSecretMatches('', { current: undefined, previous: undefined })).toBe(false);
  });

  it('keeps the digests of stored secrets only, at most STORED_DIGESTS_LIMIT of them, and still answers past the limit', () => {
    clientSecretMatches('warm-up', { current: 'stored-a', previous: undefined });
    const before = storedDigestCount();
    // Presented secrets, wrong or right, are never kept.
    for (let i = 0; i < 50; i++) expect(clientSecretMatches(`guess-${i}`, { current: 'stored-a', previous: undefined })).toBe(false);
    expect(clientSecretMatches('stored-a', { current: 'stored-a', previous: undefined })).toBe(true);
    expect(storedDigestCount()).toBe(before);
    for (let i = 0; i < STORED_DIGESTS_LIMIT + 10; i++) {
      expect(clientSecretMatches(`secret-${i}`, { current: `secret-${i}`, previous: `old-${i}` })).toBe(true);
      expect(clientSecretMatches(`old-${i}`, { current: `secret-${i}`, previous: `old-${i}` })).toBe(true);
      expect(clientSecretMatches(`secret-${i + 1}`, { current: `secret-${i}`, previous: `old-${i}` })).toBe(false);
      expect(storedDigestCount()).toBeLessThanOrEqual(STORED_DIGESTS_LIMIT);
    }
  });
});
