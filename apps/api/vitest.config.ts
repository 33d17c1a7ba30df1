import { defineConfig } from 'vitest/config';

// Real-token suites run the authorization server's login flow (argon2, TOTP); on a busy
// machine that takes longer than vitest's 5 s default.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two files at a time: most of a file's time is spent waiting on PostgreSQL, SQLite and HTTP,
    // and vitest's default on two cores is one worker.
    maxWorkers: 2,
    // The files share one module graph per worker instead of importing the server's again each:
    // no file mocks a module or patches a global, and fake timers are restored after each test.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
