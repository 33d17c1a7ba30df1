import { describe, expect, it } from 'vitest';
import { clientSecretMatches } from '../../src/clients/client-secret.ts';

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
});
