import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzzSettings, runFuzz } from '@gatehouse/fuzz';
import { startAuthFuzzServer, type AuthFuzzServer } from './auth-fuzz-server.ts';
import { anyRouteRequests } from './auth-requests.ts';
import { authFuzzTarget, replayCommand } from './auth-fuzz-target.ts';

const RUNS = 800;

describe('fuzz: every route with any method, path mutations, hostile headers, bodies and cookies (default lockout)', () => {
  let fuzz: AuthFuzzServer;
  beforeAll(async () => {
    fuzz = await startAuthFuzzServer();
  });
  afterAll(() => fuzz?.close());

  it('keeps the invariants', () => runFuzz('auth any route', authFuzzTarget(fuzz), anyRouteRequests(fuzz.fixtures), { runs: RUNS, command: replayCommand('any-route.test.ts') }), fuzzSettings(RUNS).timeoutMs);
});
