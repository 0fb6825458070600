import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A timeout catches a hang, not a slow machine: the heaviest test takes ~15 s of CPU alone,
    // and the suite must pass while other processes keep both cores busy (several times slower).
    // What must never happen is a test worker blocked for tens of seconds (vitest's RPC to it
    // times out after 60 s, whatever these say): children are spawned asynchronously and
    // in-process runs yield between batches (src/engine/executor.ts).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Test files share a worker's loaded modules: each file re-importing src/ through vite's
    // transform cost more CPU than most files' tests (a third of the suite's time).
    isolate: false,
    fileParallelism: true,
    // Two files at a time on two cores. Three made the suite ~12% faster on a quiet machine but
    // one CI run of three ended with vitest's pool terminating a worker under two files
    // (renderer, site-summary): not yet understood, so not used.
    maxWorkers: 2,
  },
});
