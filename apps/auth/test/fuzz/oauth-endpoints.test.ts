import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzzSettings, runFuzz } from '@gatehouse/fuzz';
import { startAuthFuzzServer, type AuthFuzzServer } from './auth-fuzz-server.ts';
import { oauthRequests } from './auth-requests.ts';
import { authFuzzTarget, replayCommand } from './auth-fuzz-target.ts';

const RUNS = 1_000;

describe('fuzz: the OAuth endpoints (authorize, token, introspect, revoke, userinfo, logout, revocation feed, discovery, keys)', () => {
  let fuzz: AuthFuzzServer;
  beforeAll(async () => {
    fuzz = await startAuthFuzzServer();
  });
  afterAll(() => fuzz?.close());

  it('keeps the invariants', () => runFuzz('auth oauth endpoints', authFuzzTarget(fuzz), oauthRequests(fuzz.fixtures), { runs: RUNS, command: replayCommand('oauth-endpoints.test.ts') }), fuzzSettings(RUNS).timeoutMs);
});
