/**
 * The authorization server's test clock (AUTH_TEST_CLOCK=true, apps/auth/src/dev/test-clock.ts):
 * a test moves the server's time on instead of waiting for it. The test keeps the same time for
 * what stands for the world outside the server (the users' authenticator apps: E2eUser.clock).
 */
import type { Stack } from './stack.ts';

/** The environment that gives the authorization server its test clock. */
export const TEST_CLOCK_ENV = { AUTH_TEST_CLOCK: 'true' } as const;

export interface AuthClock {
  /** The server's time (epoch ms): the system clock's plus every step taken. */
  now(): number;
  /** Moves the server's time `seconds` on. */
  advance(seconds: number): Promise<void>;
}

/** The test clock of the stack's authorization server, which must run with {@link TEST_CLOCK_ENV}. */
export function authClock(stack: Pick<Stack, 'authUrl'>): AuthClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    async advance(seconds) {
      const response = await fetch(`${stack.authUrl}/test-clock/advance?seconds=${seconds}`, { method: 'POST' });
      if (response.status !== 200) throw new Error(`the test clock answered ${response.status}: ${await response.text()}`);
      offset += seconds * 1000;
    },
  };
}
