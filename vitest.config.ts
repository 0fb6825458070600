import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One Chromium for the run's browser test files, started when the first asks (test/browser.ts).
    globalSetup: ['test/chromium-server.ts'],
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
    // Two files at a time on two cores, both workers kept to the end (minWorkers). With fewer kept
    // than started (vitest's default here keeps one: the cores less one), tinypool ends a worker
    // the moment it is idle, which can race the worker's teardown and fail a run whose every test
    // passed with an unhandled "Terminating worker thread" (three workers with one kept fail so
    // on most runs of a few dozen small files; three kept, or two with one kept, did not). Three
    // workers, all kept, would fill a core the tests leave idle waiting on children and the
    // browser, but where the machine is loaded far past its cores serve.test's sweeps and rankings
    // then exceed their own 60-120 s timeouts: not used until a quiet CI run shows them safe.
    maxWorkers: 2,
    minWorkers: 2,
  },
});
