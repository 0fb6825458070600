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
    // Three files at a time on two cores, every worker kept to the end (minWorkers). The tests
    // leave a core idle much of the time, waiting on their children and the browser: on a quiet
    // two-core machine, a fresh clone's CI took 9 min 21 s with three (vitest 503 s) against
    // 9 min 49 s with two (536 s). Kept to the end: with fewer kept than started, tinypool ends a
    // worker the moment it is idle, which can race the worker's teardown and fail a run whose
    // every test passed with an unhandled "Terminating worker thread" (three workers with one
    // kept failed so on most runs of a few dozen small files; three kept did not). Where the
    // machine is loaded far past its cores, the tests that sweep and rank on a server run close
    // to their own 60-120 s timeouts; CI's machine is not shared.
    maxWorkers: 3,
    minWorkers: 3,
    // expect.poll's own default gives up after 1 s: a page that loads a worker and draws in
    // 0.2 s alone took longer than that in CI with both cores busy (the site's stubbed answer
    // table: CI failed on it). A poll waits for what a person would wait for, not a time.
    expect: { poll: { timeout: 30_000 } },
  },
});
