import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzzSettings, runFuzz } from '@gatehouse/fuzz';
import { startAuthFuzzServer, type AuthFuzzServer } from './auth-fuzz-server.ts';
import { interactionRequests } from './auth-requests.ts';
import { authFuzzTarget, replayCommand } from './auth-fuzz-target.ts';

const RUNS = 800;

// The lockout (a growing delay after five failures, then the lock, and the IP budget) would refuse
// every sign-in step from the one loopback IP under the frozen clock and
// hide the deeper paths; its own refusals are fuzzed by any-route.test.ts with the defaults.
const NO_LOCKOUT = { AUTH_REGULATION_MAX_RETRIES: '1000000', AUTH_REGULATION_DELAY_AFTER: '1000000', AUTH_REGULATION_IP_MAX_RETRIES: '1000000' };

describe('fuzz: the sign-in steps (/login, /mfa/verify, push poll, interaction pages) with real, stale and tampered interaction cookies', () => {
  let fuzz: AuthFuzzServer;
  beforeAll(async () => {
    fuzz = await startAuthFuzzServer(NO_LOCKOUT);
  });
  afterAll(() => fuzz?.close());

  it('keeps the invariants', () => runFuzz('auth sign-in steps', authFuzzTarget(fuzz), interactionRequests(fuzz.fixtures), { runs: RUNS, command: replayCommand('interactions.test.ts') }), fuzzSettings(RUNS).timeoutMs);
});
