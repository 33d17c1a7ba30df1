/**
 * The test settings the three apps' suites share (apps/{auth,api,client}/vitest.config.ts):
 * - two files at a time: most of a file's time is spent waiting on PostgreSQL, SQLite and HTTP,
 *   and vitest's default on two cores is one worker;
 * - the files share one module graph per worker instead of importing the server's again each:
 *   no file mocks a module or patches a global, and fake timers are restored after each test.
 * A plain object (what vitest's defineConfig returns), so the root needs no vitest of its own.
 */
export function appSuiteConfig(timeouts: { hookTimeout: number }) {
  return {
    test: {
      include: ['test/**/*.test.ts'],
      maxWorkers: 2,
      isolate: false,
      testTimeout: 20_000,
      hookTimeout: timeouts.hookTimeout,
    },
  };
}
