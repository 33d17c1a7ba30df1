/**
 * `authenticateCached` (auth/authenticator.ts): what the item-read fast path may decide without a
 * network call. It admits only a verified, cached token the deny-list does not name and that needs
 * no recheck; everything else is left to `authenticate`.
 */
import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import type { Principal, TokenVerifier, VerifiedToken } from '../../src/auth/principal.ts';
import { createRevocationList } from '../../src/auth/revocation-list.ts';
import { createVerifiedTokenCache } from '../../src/auth/verified-token-cache.ts';

const NOW = 1_800_000_000_000;
const principal: Principal = { subject: 'alice', clientId: 'app', scopes: new Set(['movies:read']), groups: [] };
const verified: VerifiedToken = { principal, validFrom: 0, validUntil: NOW + 60_000, kid: 'k1', revocation: { jti: 'jti-1', grantId: 'grant-1', sub: 'alice', iat: NOW / 1000 - 10 } };

function setup(options: { fresh?: boolean; fallback?: boolean } = {}) {
  const state = { now: NOW, fresh: options.fresh ?? true, verifications: 0 };
  const verifier: TokenVerifier = {
    verify: async () => {
      state.verifications++;
      return verified;
    },
    ready: async () => true,
  };
  const list = createRevocationList(100);
  const authenticator = createAuthenticator({
    verifier,
    cache: createVerifiedTokenCache(10),
    clock: () => state.now,
    realm: 'api',
    revocation: { list, feed: { isFresh: () => state.fresh }, recheckMs: 30_000, ...(options.fallback ? { fallback: verifier } : {}) },
  });
  return { state, list, authenticator };
}

describe('authenticateCached', () => {
  it('knows nothing of a token that was never verified, and does not verify it', () => {
    const { state, authenticator } = setup();
    expect(authenticator.authenticateCached('token-a')).toBeUndefined();
    expect(state.verifications).toBe(0);
  });

  it('admits a token verified before, without verifying it again', async () => {
    const { state, authenticator } = setup();
    expect(await authenticator.authenticate('token-a')).toBe(principal);
    expect(authenticator.authenticateCached('token-a')).toBe(principal);
    expect(state.verifications).toBe(1);
  });

  it('refuses to decide once the token expired (the cache window)', async () => {
    const { state, authenticator } = setup();
    await authenticator.authenticate('token-a');
    state.now = NOW + 60_000;
    expect(authenticator.authenticateCached('token-a')).toBeUndefined();
  });

  it.each([
    ['token-revoked', { id: 1, type: 'token-revoked', jti: 'jti-1', exp: NOW / 1000 + 60 }],
    ['session-revoked', { id: 1, type: 'session-revoked', grant_id: 'grant-1', exp: NOW / 1000 + 60 }],
    ['account-disabled', { id: 1, type: 'account-disabled', sub: 'alice', issued_before: NOW / 1000, exp: NOW / 1000 + 60 }],
  ] as const)('leaves a token the deny-list names (%s) to authenticate, which refuses it', async (_name, event) => {
    const { list, authenticator } = setup();
    await authenticator.authenticate('token-a');
    list.apply(event);
    expect(authenticator.authenticateCached('token-a')).toBeUndefined();
    await expect(Promise.resolve().then(() => authenticator.authenticate('token-a'))).rejects.toMatchObject({ status: 401 });
  });

  it('leaves a token to authenticate while the feed is stale and its introspection recheck is due', async () => {
    const { state, authenticator } = setup({ fresh: true, fallback: true });
    await authenticator.authenticate('token-a');
    expect(authenticator.authenticateCached('token-a')).toBe(principal);
    state.fresh = false;
    expect(authenticator.authenticateCached('token-a')).toBeUndefined();
    // authenticate rechecks (the fallback answers active); within recheckMs the cached answer holds again.
    expect(await authenticator.authenticate('token-a')).toBe(principal);
    expect(authenticator.authenticateCached('token-a')).toBe(principal);
    state.now += 30_000;
    expect(authenticator.authenticateCached('token-a')).toBeUndefined();
  });
});
