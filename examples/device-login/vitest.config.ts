import { defineConfig } from 'vitest/config';

// The test runs the authorization server's sign-in (argon2, TOTP), slower than vitest's 5 s default on a busy machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
