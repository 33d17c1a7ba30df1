import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzzSettings, runFuzz } from '@gatehouse/fuzz';
import { startAuthFuzzServer, type AuthFuzzServer } from './auth-fuzz-server.ts';
import { authenticatorRequests } from './auth-requests.ts';
import { authFuzzTarget, replayCommand } from './auth-fuzz-target.ts';

const RUNS = 600;

describe('fuzz: the web authenticator API, the devices page and the static files', () => {
  let fuzz: AuthFuzzServer;
  beforeAll(async () => {
    fuzz = await startAuthFuzzServer();
  });
  afterAll(() => fuzz?.close());

  it('keeps the invariants', () => runFuzz('auth authenticator', authFuzzTarget(fuzz), authenticatorRequests(fuzz.fixtures), { runs: RUNS, command: replayCommand('authenticator.test.ts') }), fuzzSettings(RUNS).timeoutMs);
});
