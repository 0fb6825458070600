/**
 * The run loop (src/engine/run.ts): batching, bounded in-flight work, cancellation, failures,
 * open-ended runs (`--precision`) and progressive answers — and that none of them changes a
 * result: where a run stops and what it merges depend only on the scenario, seed and trials.
 */
import { describe, expect, it } from 'vitest';
import { runScenario, validateText } from '../src/api.js';
import { InlineExecutor, type Executor } from '../src/engine/executor.js';
import { KERNELS } from '../src/systems/kernels.js';
import { BOOT_MS, CancelledError, poolPays, RELEASE_WINDOW, runGroups, THREAD_EFFICIENCY } from '../src/engine/run.js';
import type { BatchTask } from '../src/engine/chunk.js';
import { summaryCsv } from '../src/report/tables.js';

// 3 chunks (2 of 262 144) trials per sweep point (surrender's chunk size), 2 points x 2 variants.
const SCENARIO = `name: r
system: surrender
seed: run-loop
trials: 600000
structure: { surrender_level: 3 }
besieger: { combat_units: 4, artillery: 1 }
turns: 6
sweep:
  structure.surrender_level: [2, 4]
variants:
  - name: lt
  - name: le
    set: { rules.comparison: le }
`;

function valid(text = SCENARIO) {
  const v = validateText('r.yaml', text);
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return v.value;
}

/**
 * A fake pool of `threads` lanes over the in-process executor: answers come back in a shuffled
 * order (deterministically), and it records every task it was given and how many were in flight.
 */
class ShuffledExecutor implements Executor {
  readonly inner = new InlineExecutor(KERNELS);
  readonly tasks: BatchTask[] = [];
  inflight = 0;
  maxInflight = 0;
  private readonly idle: (() => void)[] = [];
  private n = 0;
  constructor(
    readonly threads: number,
    private readonly failAt = -1,
  ) {}
  /**
   * Resolves once no task is in flight and a turn of the event loop has passed with none
   * started: whatever the run loop does when its last tasks come back has been done.
   */
  async settled(): Promise<void> {
    for (;;) {
      if (this.inflight > 0) await new Promise<void>((r) => this.idle.push(r));
      const n = this.n;
      await new Promise((r) => setImmediate(r));
      if (this.inflight === 0 && this.n === n) return;
    }
  }
  async run(task: BatchTask): Promise<Float64Array> {
    const k = this.n++;
    this.tasks.push(task);
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    try {
      // later tasks sometimes overtake earlier ones
      await new Promise((r) => setTimeout(r, (k * 7919) % 5));
      if (k === this.failAt) throw new Error('worker died (test)');
      return await this.inner.run(task);
    } finally {
      this.inflight--;
      if (this.inflight === 0) for (const f of this.idle.splice(0)) f();
    }
  }
  async close(): Promise<void> {}
}

describe('the run loop', () => {
  it('gives byte-identical results whatever the batch size, thread count and completion order', async () => {
    const base = summaryCsv(await runScenario(valid()));
    const v = valid();
    const { compilePoints, jobsOf } = await import('../src/api/run.js');
    const jobs = jobsOf(v, compilePoints(v));
    const plain = await runGroups(jobs, { seed: v.seed, trials: v.trials, chunkTrials: 262_144 }, new InlineExecutor(KERNELS));
    for (const [threads, taskMs] of [
      [3, 0.001], // one chunk per task
      [2, 40],
      [1, 1e6], // as many chunks per task as allowed, once the first tasks are timed
    ]) {
      const exec = new ShuffledExecutor(threads);
      const out = await runGroups(jobs, { seed: v.seed, trials: v.trials, chunkTrials: 262_144, taskMs }, exec);
      expect(out.map((o) => Array.from(o.merged)), `threads ${threads}`).toEqual(plain.map((o) => Array.from(o.merged)));
      // at most two tasks per thread were ever in flight
      expect(exec.maxInflight).toBeLessThanOrEqual(2 * threads);
      if (taskMs > 1000) expect(Math.max(...exec.tasks.map((t) => t.sizes.length))).toBeGreaterThan(1);
      if (taskMs < 1) expect(Math.max(...exec.tasks.map((t) => t.sizes.length))).toBe(1);
    }
    expect(summaryCsv(await runScenario(valid(), { executor: new ShuffledExecutor(2) }))).toBe(base);
  });

  it('batches consecutive chunks of one point and derives each chunk its own stream', async () => {
    const exec = new ShuffledExecutor(1);
    await runScenario(valid(), { executor: exec });
    const seen = new Map<string, number[]>();
    for (const t of exec.tasks) for (let j = 0; j < t.sizes.length; j++) (seen.get(t.stream) ?? seen.set(t.stream, []).get(t.stream)!).push(t.first + j);
    for (const list of seen.values()) expect(list.sort((a, b) => a - b)).toEqual([0, 1, 2]);
    expect(exec.tasks.reduce((n, t) => n + t.sizes.reduce((a, b) => a + b, 0), 0)).toBe(2 * 600_000);
  });

  it('a failed batch rejects the run and nothing more is started', async () => {
    const exec = new ShuffledExecutor(2, 2);
    await expect(runScenario(valid(), { executor: exec })).rejects.toThrow('worker died (test)');
    const started = exec.tasks.length;
    await exec.settled(); // the tasks already running finish; none may start after them
    expect(exec.tasks.length).toBe(started);
    expect(started).toBeLessThanOrEqual(2 * 2 + 3);
  });

  it('an in-process run lets the event loop turn between batches (timers run, an abort lands)', async () => {
    // A run that never yields would hold a test worker past its runner's RPC timeout on a
    // loaded machine, and a server's requests (or a cancel) would wait for the whole run.
    let ticks = 0;
    const iv = setInterval(() => ticks++, 0);
    try {
      await runScenario(valid(), { trials: 262_144 * 2 });
    } finally {
      clearInterval(iv);
    }
    expect(ticks).toBeGreaterThan(0);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 0);
    await expect(runScenario(valid(), { signal: ctl.signal })).rejects.toBeInstanceOf(CancelledError);
  });

  it('cancelling rejects at once with CancelledError and starts no new batch', async () => {
    const exec = new ShuffledExecutor(1);
    const ctl = new AbortController();
    let partials = 0;
    const p = runScenario(valid(), {
      executor: exec,
      signal: ctl.signal,
      onPartial: () => {
        if (++partials === 2) ctl.abort();
      },
    });
    await expect(p).rejects.toBeInstanceOf(CancelledError);
    const started = exec.tasks.length;
    await exec.settled(); // the tasks already running finish; none may start after them
    expect(exec.tasks.length).toBe(started);
    expect(exec.tasks.reduce((n, t) => n + t.sizes.length, 0)).toBeLessThan(2 * 3);
  });

  it('progressive answers: onPartial sees every point grow chunk by chunk to the final result', async () => {
    const v = valid();
    const seen: number[][] = [[], []];
    let last: string[] = [];
    const r = await runScenario(v, {
      onPartial: (point, trials, cases) => {
        seen[point].push(trials);
        if (point === 1 && trials === 600_000) last = cases().map((c) => JSON.stringify(c.metrics));
      },
    });
    for (const s of seen) expect(s).toEqual(Array.from({ length: 3 }, (_, i) => Math.min(600_000, (i + 1) * 262_144)));
    expect(last).toEqual(r.cases.filter((c) => c.case === 2).map((c) => JSON.stringify(c.metrics)));
  });
});

describe('--precision', () => {
  const small = SCENARIO.replace('trials: 600000', 'trials: 4000');

  it('stops where the interval is narrow enough, the same wherever chunks run', async () => {
    const { widestOf } = await import('../src/api/run.js');
    const widths: number[] = [];
    const v = valid(small);
    const a = await runScenario(v, { precision: 0.002, onPartial: (point, _n, cases) => point === 0 && widths.push(Math.max(...cases().map((c) => widestOf(v.system.headline, c.metrics)))) });
    const b = await runScenario(valid(small), { precision: 0.002, executor: new ShuffledExecutor(2) });
    expect(summaryCsv(b)).toBe(summaryCsv(a));
    for (const c of a.cases) {
      expect(c.precision).toEqual({ target: 0.002, half_width: expect.any(Number), reached: true });
      expect(c.precision!.half_width).toBeLessThanOrEqual(0.002);
    }
    expect(a.provenance.precision_missed).toBe(0);
    // it stopped at the first chunk boundary where the target was met, not later
    expect(widths.length).toBeGreaterThan(1);
    expect(widths.at(-1)).toBeLessThanOrEqual(0.002);
    for (const w of widths.slice(0, -1)) expect(w).toBeGreaterThan(0.002);
  });

  it('honours the cap, even below the scenario trials, and says which cases missed the target', async () => {
    const r = await runScenario(valid(small), { precision: 0.002, maxTrials: 3000 });
    for (const c of r.cases) {
      expect(c.trials).toBe(3000);
      expect(c.precision!.reached).toBe(false);
      expect(c.precision!.half_width).toBeGreaterThan(0.002);
    }
    expect(r.provenance.precision_missed).toBe(4);
    expect(r.provenance.max_trials).toBe(3000);
  });

  it('runGroups with a stop rule reports capped groups', async () => {
    const v = valid(small);
    const { compilePoints, jobsOf } = await import('../src/api/run.js');
    const jobs = jobsOf(v, compilePoints(v));
    const out = await runGroups(jobs, { seed: 1, trials: 1000, chunkTrials: 262_144, more: (g) => g === 0, maxTrials: 300_000 }, new InlineExecutor(KERNELS));
    expect(out.map((o) => [o.trials, o.capped])).toEqual([
      [300_000, true],
      [1000, false],
    ]);
  });
});

/**
 * A pool whose threads must start first, over the in-process executor: cold until warm() (or a
 * first task), then loading for `loadingLooks` looks at its readiness (the run loop looks once a
 * turn: so many turns of the run go by while it loads), then ready. It records the tasks its
 * "threads" ran.
 */
class ColdPool implements Executor {
  readonly tasks: BatchTask[] = [];
  private state: 'cold' | 'loading' | 'ready' = 'cold';
  private looks = 0;
  warmed = 0;
  loadingSeen = 0;
  constructor(
    readonly threads: number,
    private readonly loadingLooks: number,
    readonly inner = new InlineExecutor(KERNELS),
  ) {}
  readiness(): 'cold' | 'loading' | 'ready' {
    if (this.state === 'loading' && this.looks++ >= this.loadingLooks) this.state = 'ready';
    if (this.state === 'loading') this.loadingSeen++;
    return this.state;
  }
  warm(): void {
    if (this.state !== 'cold') return;
    this.warmed++;
    this.state = 'loading';
  }
  async run(task: BatchTask): Promise<Float64Array> {
    this.warm();
    this.tasks.push(task);
    return this.inner.run(task);
  }
  async close(): Promise<void> {}
}

describe('a cold pool (engine/run.ts BOOT_MS, poolPays)', () => {
  const chunks = (tasks: BatchTask[]) => tasks.reduce((n, t) => n + t.sizes.length, 0);
  // 3 chunks of 16 384 trials a point, 2 points (small chunks: what is tested is where they run)
  const C = 16_384;
  const T = 40_000;
  const setup = async (trials = T) => {
    const v = valid();
    const { compilePoints, jobsOf } = await import('../src/api/run.js');
    const jobs = jobsOf(v, compilePoints(v));
    const plain = await runGroups(jobs, { seed: v.seed, trials, chunkTrials: C }, new InlineExecutor(KERNELS));
    return { v, jobs, plain: plain.map((o) => Array.from(o.merged)) };
  };

  it('a run too small to gain from threads runs in this thread and never starts the pool', async () => {
    const { v, jobs, plain } = await setup();
    const pool = new ColdPool(2, 0);
    const inline = new InlineExecutor(KERNELS);
    const out = await runGroups(jobs, { seed: v.seed, trials: T, chunkTrials: C, inline, poolStartMs: 1e9 }, pool);
    expect(out.map((o) => Array.from(o.merged))).toEqual(plain);
    expect(pool.readiness()).toBe('cold');
    expect(pool.tasks).toEqual([]);
    // without an executor in this thread, the pool runs everything
    const other = new ColdPool(2, 0);
    await runGroups(jobs, { seed: v.seed, trials: T, chunkTrials: C, poolStartMs: 1e9 }, other);
    expect(chunks(other.tasks)).toBe(6);
  });

  it('a run that gains from threads starts the pool, runs on here while it loads, and hands its chunks over once loaded: the same bytes', async () => {
    // 8 chunks a point: the pool is judged from this thread's second task on
    const { v, jobs, plain } = await setup(8 * C);
    const pool = new ColdPool(2, 2);
    const out = await runGroups(jobs, { seed: v.seed, trials: 8 * C, chunkTrials: C, inline: new InlineExecutor(KERNELS), poolStartMs: 0, taskMs: 0.001 }, pool);
    expect(out.map((o) => Array.from(o.merged))).toEqual(plain);
    expect(pool.warmed).toBe(1);
    expect(pool.loadingSeen).toBeGreaterThan(0);
    // the first chunks ran here (the pool was cold, then loading), the rest on the pool
    expect(chunks(pool.tasks)).toBeGreaterThan(0);
    expect(chunks(pool.tasks)).toBeLessThan(16);
    // a later run on the now-ready pool runs on it from its first chunk
    const before = chunks(pool.tasks);
    await runGroups(jobs, { seed: v.seed, trials: T, chunkTrials: C, inline: new InlineExecutor(KERNELS), poolStartMs: 0 }, pool);
    expect(chunks(pool.tasks) - before).toBe(6);
  });

  it('the pool is started where the share of the work left that its threads save covers their start (poolPays)', () => {
    const two = 1 - 1 / (2 * THREAD_EFFICIENCY); // what a second thread saves of the work left
    // case-a-new-siege at its own 200 000 trials: ~0.1 s left, a first task of ~150 ms (three cases' walks)
    expect(poolPays(110, 2, BOOT_MS + 150)).toBe(false);
    // the same file at 5 M trials a case: ~3 s left
    expect(poolPays(3000, 2, BOOT_MS + 150)).toBe(true);
    // at the line, on two threads and on eight
    expect(poolPays(BOOT_MS / two, 2, BOOT_MS)).toBe(true);
    expect(poolPays(BOOT_MS / two - 1, 2, BOOT_MS)).toBe(false);
    expect(poolPays(BOOT_MS / two - 1, 8, BOOT_MS)).toBe(true);
    // one thread (a pool of one) never pays, and a start of 0 always does
    expect(poolPays(1e9, 1, BOOT_MS)).toBe(false);
    expect(poolPays(0, 2, 0)).toBe(true);
  });

  /** One case of a kernel that spins `firstMs` on its first call and `laterMs` on each later one. */
  const spinning = (firstMs: number, laterMs: number) => {
    let calls = 0;
    const spin = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const kernel = {
      run(_c: unknown, _rng: unknown, n: number, acc: Float64Array) {
        spin(calls++ === 0 ? firstMs : laterMs);
        acc[0] += n;
      },
      accLength: () => 1,
    };
    const kernels = { spin: kernel } as unknown as ConstructorParameters<typeof InlineExecutor>[0];
    const jobs = [{ stream: 'p0', system: 'spin', compiled: [{}], accLengths: [1], pairedSlots: [[]] }];
    return { kernels, jobs };
  };
  const coldPoolOf = (kernels: ConstructorParameters<typeof InlineExecutor>[0]) => new ColdPool(2, 0, new InlineExecutor(kernels));

  it('a slow first task (tables, kernels not yet compiled) does not start the pool for a run whose steady chunks are quick', async () => {
    const { kernels, jobs } = spinning(80, 0);
    const pool = coldPoolOf(kernels);
    // 20 chunks of a task each: judged on the first alone (as before), 19 chunks x 80 ms looked like 1.5 s, of which a second thread saves far more than 100 ms
    const out = await runGroups(jobs, { seed: 1, trials: 200, chunkTrials: 10, inline: new InlineExecutor(kernels), poolStartMs: 100, taskMs: 1e-9 }, pool);
    expect(out[0].trials).toBe(200);
    expect(pool.warmed).toBe(0);
    expect(pool.tasks).toEqual([]);
  });

  it('a run whose steady chunks add up past the line starts the pool, and its first task alone does not hold it back', async () => {
    const { kernels, jobs } = spinning(20, 8);
    const pool = coldPoolOf(kernels);
    // 60 chunks of 8 ms and more: ~0.5 s left after the second task, of which a second thread saves more than 30 ms
    const out = await runGroups(jobs, { seed: 1, trials: 600, chunkTrials: 10, inline: new InlineExecutor(kernels), poolStartMs: 30, taskMs: 1e-9 }, pool);
    expect(out[0].trials).toBe(600);
    expect(pool.warmed).toBe(1);
  });

  it('an open-ended run (one more chunk at a time) that runs long starts the pool: its time so far stands for what is to come', async () => {
    const { kernels, jobs } = spinning(5, 8);
    const pool = coldPoolOf(kernels);
    // a chunk at a time past the first 20 trials, up to 600: ~60 chunks of 8 ms and more, never more than one or two committed ahead
    const out = await runGroups(jobs, { seed: 1, trials: 20, chunkTrials: 10, more: () => true, maxTrials: 600, inline: new InlineExecutor(kernels), poolStartMs: 100, taskMs: 1e-9 }, pool);
    expect(out[0].trials).toBe(600);
    expect(pool.warmed).toBe(1);
  });

  it('a pool someone else started (an early pool, a server) runs the chunks from the first, loaded or not', async () => {
    const { v, jobs, plain } = await setup();
    const pool = new ColdPool(2, 1e9); // never ready while this test runs
    pool.warm();
    const out = await runGroups(jobs, { seed: v.seed, trials: T, chunkTrials: C, inline: new InlineExecutor(KERNELS), poolStartMs: 1e9 }, pool);
    expect(out.map((o) => Array.from(o.merged))).toEqual(plain);
    expect(chunks(pool.tasks)).toBe(6);
  });
});

describe("a run drops each sweep point's kernel state once the point is done (RunOptions.release)", () => {
  /** A kernel that counts its trials and records, in order, each case it runs and each it is told to release. */
  function recording() {
    const log: string[] = [];
    const kernel = {
      run(c: { id: string }, _rng: unknown, n: number, acc: Float64Array) {
        log.push(`run ${c.id}`);
        acc[0] += n;
      },
      accLength: () => 1,
      release(c: { id: string }) {
        log.push(`release ${c.id}`);
      },
    };
    return { log, kernels: { fake: kernel } as unknown as ConstructorParameters<typeof InlineExecutor>[0] };
  }
  const jobs = (ids: string[][]) => ids.map((compiled, g) => ({ stream: `p${g}`, system: 'fake', compiled: compiled.map((id) => ({ id })), accLengths: compiled.map(() => 1), pairedSlots: compiled.map(() => []) }));

  it('each case is released once, after its last run, and never run after; without the option nothing is released', async () => {
    const { log, kernels } = recording();
    const exec = new InlineExecutor(kernels, 1);
    const out = await runGroups(jobs([['a0', 'a1'], ['b0'], ['c0']]), { seed: 1, trials: 50, chunkTrials: 10, release: true, inline: exec }, exec);
    expect(out.map((o) => o.trials)).toEqual([50, 50, 50]);
    for (const id of ['a0', 'a1', 'b0', 'c0']) {
      expect(log.filter((l) => l === `release ${id}`), id).toHaveLength(1);
      expect(log.lastIndexOf(`run ${id}`), id).toBeLessThan(log.indexOf(`release ${id}`));
    }
    // the points run side by side (the one furthest behind first): released as each ends
    expect(log.indexOf('release a0')).toBeGreaterThan(log.lastIndexOf('run a0'));
    const other = recording();
    const e2 = new InlineExecutor(other.kernels, 1);
    await runGroups(jobs([['a0'], ['b0']]), { seed: 1, trials: 50, chunkTrials: 10, inline: e2 }, e2);
    expect(other.log.some((l) => l.startsWith('release'))).toBe(false);
  });

  it(`past RELEASE_WINDOW points, no more than that many are started and not yet released at once`, async () => {
    const { log, kernels } = recording();
    const exec = new InlineExecutor(kernels, 1);
    const ids = Array.from({ length: RELEASE_WINDOW + 3 }, (_, g) => [`p${g}`]);
    // one chunk a task (taskMs ~0): the run goes round the points furthest behind first, so
    // without the window every point would be started before any ended
    await runGroups(jobs(ids), { seed: 1, trials: 30, chunkTrials: 10, release: true, inline: exec, taskMs: 1e-9 }, exec);
    // at most RELEASE_WINDOW points run but not yet released, at any moment
    const live = new Set<string>();
    let most = 0;
    for (const l of log) {
      const [what, id] = l.split(' ');
      if (what === 'run') live.add(id);
      else live.delete(id);
      most = Math.max(most, live.size);
    }
    expect(most).toBe(RELEASE_WINDOW);
    expect(live.size).toBe(0);
  });

  it('the window changes no batch: a pool near the end still gets batches no larger than its share of what is left', async () => {
    const { kernels } = recording();
    const inner = new InlineExecutor(kernels);
    const sizes: number[] = [];
    // a pool of two threads (the guided share: a task takes at most ceil(left / 4) chunks)
    const pool: Executor = { threads: 2, run: (t, o) => (sizes.push(t.sizes.length), inner.run(t, o)), close: async () => {} };
    await runGroups(jobs([['a0']]), { seed: 1, trials: 400, chunkTrials: 10, release: true, taskMs: 1e9 }, pool);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
  });

  it("a run's threads are those that ran it: 1 when its pool ran none of its tasks (never started, or a run of one chunk), the pool's when it ran tasks", async () => {
    const v = valid('name: t\nsystem: surrender\nseed: 3\ntrials: 1000\nstructure: { surrender_level: 3 }\nturns: 4\n');
    const inner = new InlineExecutor(KERNELS);
    const pool = () => {
      let started = false;
      const e: Executor = {
        threads: 2,
        // no warm(): the run gives it its chunks at once (not this thread first until it runs long)
        readiness: () => (started ? 'ready' : 'cold'),
        run: (t, o) => ((started = true), inner.run(t, o)),
        close: async () => {},
      };
      return e;
    };
    // one chunk: this thread runs it, the pool is never started (the page said "2 threads")
    expect((await runScenario(v, { executor: pool() })).provenance.threads).toBe(1);
    // several chunks: the pool runs them
    const started = pool();
    expect((await runScenario(v, { executor: started, trials: 600_000 })).provenance.threads).toBe(2);
    // one chunk on the pool an earlier run started: still this thread alone (a run of several files said "2 threads")
    expect(started.readiness!()).toBe('ready');
    expect((await runScenario(v, { executor: started })).provenance.threads).toBe(1);
    // the api's own executor in this thread says its own count
    expect((await runScenario(v, { executor: new InlineExecutor(KERNELS, 1) })).provenance.threads).toBe(1);
  });

  it('a fantasy sweep run with its points released gives the same summary, bytes and all, as one that keeps them', async () => {
    const v = valid(`name: f
system: fantasy
seed: rel
trials: 3000
mode: open_field
attacker: { infantry: 4, archers: 3, mages: 2 }
defender: { infantry: 5, clerics: 2 }
sweep:
  attacker.mages: [0, 1, 2]
variants:
  - name: a
  - { name: b, set: { policy.shield_spending: optimal } }
`);
    const released = await runScenario(v); // api/run.ts asks for release
    const kept = assembleKept(v);
    expect(summaryCsv(released)).toBe(summaryCsv(await kept));
  });
});

/** The same run through runGroups without release (the api's run asks for it). */
async function assembleKept(v: ReturnType<typeof valid>) {
  const { compilePoints, jobsOf, assembleResult } = await import('../src/api/run.js');
  const points = compilePoints(v);
  const jobs = jobsOf(v, points);
  const exec = new InlineExecutor(KERNELS, 1);
  const outcomes = await runGroups(jobs, { seed: v.seed, trials: v.trials, chunkTrials: v.system.chunkTrials, inline: exec }, exec);
  return assembleResult(v, points, jobs, outcomes, { seed: v.seed, trials: v.trials, threads: 1, seconds: 0 });
}
