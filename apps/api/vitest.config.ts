import { defineConfig } from 'vitest/config';

// Real-token suites run the authorization server's login flow (argon2, TOTP); on a busy
// machine that takes longer than vitest's 5 s default.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
