import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // e2e tests spawn the built CLI with its own worker pool: keep files from oversubscribing 2 cores.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
