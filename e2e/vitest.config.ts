import { defineConfig } from 'vitest/config';

// Whole-stack tests in three projects:
// - `e2e` (browser tests): each file starts its own stack (processes on free ports, a fresh data
//   folder and databases), so two files run at a time;
// - `production`: the built servers behind nginx; the build runs once, in the project's global
//   setup, and its files run one after the other, after the browser tests;
// - `interop`: independent client libraries against one stack started by its global setup, one
//   file at a time, alongside `production`.
// Timeouts leave room for start-up and a real browser on two shared cores.
const PRODUCTION = ['tests/production.test.ts', 'tests/deploy-guide.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 90_000,
    hookTimeout: 120_000,
    sequence: { concurrent: false },
    projects: [
      { extends: true, test: { name: 'e2e', include: ['tests/**/*.test.ts'], exclude: PRODUCTION, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'production', include: PRODUCTION, globalSetup: ['support/build-once.ts'], maxWorkers: 1, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'interop', include: ['interop/**/*.test.ts'], globalSetup: ['interop/support/global-setup.ts'], maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
