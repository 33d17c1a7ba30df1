import { defineConfig } from 'vitest/config';

// Whole-stack browser tests: each file starts its own stack (processes, ports, databases),
// so files run one after the other and timeouts leave room for start-up and a real browser.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
