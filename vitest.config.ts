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
    // Three files at a time on two cores: tests waiting on children, the browser and the disk
    // leave a core idle under two (three made the suite ~12% faster on a quiet machine). The pool
    // keeps all three workers to the end: with fewer kept (vitest's default here is one, the cores
    // less one), tinypool ends a worker the moment it is idle, and that can race the worker's
    // teardown and fail the run with an unhandled "Terminating worker thread" after every test
    // passed (seen in CI, and at once on a run of 29 small files with three workers and one kept;
    // never with three kept).
    maxWorkers: 3,
    minWorkers: 3,
  },
});
