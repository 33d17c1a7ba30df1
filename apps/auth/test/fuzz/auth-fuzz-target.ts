/**
 * The harness target of the authorization server: the fuzz server's URL, the contract's error
 * shapes, the write-counter snapshot, and the auth checks (known codes, no open redirect, the
 * state-change rules of auth-fuzz-server.ts).
 */
import type { FuzzTarget } from '@gatehouse/fuzz';
import { authErrorShape, contractCheck } from './auth-contract.ts';
import type { AuthFuzzServer } from './auth-fuzz-server.ts';

/** The command that replays a failure of one of these files (for the harness's replay line). */
export const replayCommand = (file: string): string => `pnpm --filter @gatehouse/auth exec vitest run test/fuzz/${file}`;

export function authFuzzTarget(fuzz: AuthFuzzServer): FuzzTarget {
  const contract = contractCheck({
    issuer: fuzz.url,
    registered: [fuzz.fixtures.testClient.redirectUri, 'http://127.0.0.1:7/callback', 'http://127.0.0.1:7/signed-out'],
  });
  return {
    url: fuzz.url,
    errorShape: authErrorShape,
    snapshot: () => fuzz.snapshot(),
    check: async (request, response) => [...contract(request, response), ...(await fuzz.stateCheck(request, response))],
  };
}
