import { defineConfig } from 'vitest/config';

// Whole-stack browser tests: each file of tests/ starts its own stack (processes, ports, databases);
// the interop suite (interop/) shares one stack started by its global setup. Files run one after
// the other and timeouts leave room for start-up and a real browser.
export default defineConfig({
  test: {
    testTimeout: 90_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    sequence: { concurrent: false },
    projects: [
      { extends: true, test: { name: 'e2e', include: ['tests/**/*.test.ts'] } },
      { extends: true, test: { name: 'interop', include: ['interop/**/*.test.ts'], globalSetup: ['interop/support/global-setup.ts'] } },
    ],
  },
});
