import { describe, expect, it } from 'vitest';
import { runScenario, validateText } from '../src/api.js';
import { PoolExecutor } from '../src/engine/pool.js';
import { summaryCsv } from '../src/report/tables.js';
import { halfWidth } from '../src/stats/intervals.js';

const SCENARIO = `name: e
system: surrender
seed: engine
trials: 600000
structure: { surrender_level: 3, port: true, blockade_chance: 0.7 }
cards: { besieger: { chance: 0.4 } }
turns: 9
sweep:
  structure.surrender_level: [2, 3]
variants:
  - name: lt
  - name: le
    set: { rules.comparison: le }
`;

function valid(text = SCENARIO) {
  const v = validateText('e.yaml', text);
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return v.value;
}

describe('paired variants keep trials independent', () => {
  it('a variant that draws dice when the baseline draws none still gets fresh dice every trial', async () => {
    // Baseline: odds below 1-1, no attack, so not one die is drawn; the variant fights on the
    // 1-1 column. Replaying from the baseline's place in a shared stream would give the variant
    // the same roll in every trial; its first-roll frequencies must match the table instead.
    const text = `name: p\nsystem: cry-havoc\nseed: 5\ntrials: 40000\nkind: melee\nattackers: [{ attack: 2 }]\ndefender: { defence: 3 }\nturns: 3\nvariants:\n  - name: no-attack\n  - name: column-one\n    set: { rules.odds_below_one: column_one }\n`;
    const v = valid(text);
    const r = await runScenario(v);
    const { checkScenario, exactScenario } = await import('../src/api.js');
    const rows = checkScenario(r, exactScenario(v)).filter((x) => x.variant === 'column-one');
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(Math.abs(row.z), row.metric).toBeLessThan(4.5);
    expect(r.cases[1].metrics.p_first_none.value).toBeGreaterThan(0.45);
  });
});

describe('engine determinism', () => {
  it('in-process and 1- and 2-thread pools give byte-identical summary.csv', async () => {
    const inline = summaryCsv(await runScenario(valid()));
    for (const threads of [1, 2]) {
      const exec = new PoolExecutor(threads);
      try {
        expect(summaryCsv(await runScenario(valid(), { executor: exec }))).toBe(inline);
      } finally {
        await exec.close();
      }
    }
  });

  it('adding a variant leaves the baseline and the other variants unchanged', async () => {
    const alone = await runScenario(valid(SCENARIO.replace(/variants:[\s\S]*$/, '')));
    const two = await runScenario(valid());
    expect(two.cases.filter((c) => c.variant === 'lt').map((c) => c.metrics)).toEqual(alone.cases.map((c) => c.metrics));
    const three = await runScenario(valid(SCENARIO + '  - name: d10\n    set: { rules.die: 10 }\n'));
    for (const variant of ['lt', 'le']) {
      const a = two.cases.filter((c) => c.variant === variant).map((c) => c.metrics);
      const b = three.cases.filter((c) => c.variant === variant).map((c) => c.metrics);
      expect(b).toEqual(a);
    }
  });

  it('a longer run extends a shorter one: its first chunks are the same dice', async () => {
    // One full chunk (262144) vs the same chunk plus more: chunk 0 is identical, so the
    // p_surrender count of the long run minus its later chunks equals the short run's count.
    const short = await runScenario(valid(), { trials: 262_144 });
    const long = await runScenario(valid(), { trials: 262_144 * 2 });
    const rest = await runScenario(valid(), { trials: 262_144 * 2 }); // same again: deterministic
    expect(summaryCsv(rest)).toBe(summaryCsv(long));
    expect(long.cases[0].metrics.p_surrender.k!).toBeGreaterThan(short.cases[0].metrics.p_surrender.k!);
    expect(short.cases[0].trials).toBe(262_144);
  });

  it('--precision narrows every headline interval to the target, deterministically', async () => {
    const opts = { trials: 20_000, precision: 0.0015 };
    const a = await runScenario(valid(), opts);
    const b = await runScenario(valid(), opts);
    expect(summaryCsv(a)).toBe(summaryCsv(b));
    for (const c of a.cases) {
      expect(c.trials).toBeGreaterThan(20_000);
      for (const m of ['p_test', 'p_surrender']) expect(halfWidth(c.metrics[m])).toBeLessThanOrEqual(0.0015);
    }
  });

  it('--max-trials caps a precision run', async () => {
    const r = await runScenario(valid(), { trials: 1000, precision: 1e-5, maxTrials: 262_144 * 2 });
    for (const c of r.cases) expect(c.trials).toBeLessThanOrEqual(262_144 * 2);
  });
});

describe('the kernel contract: each trial draws its own stream from the chunk stream', () => {
  // Every bundled scenario's first case of each kind: one call of n trials must equal n calls
  // of one trial (what the engine makes when it replays a trial for each variant), and leave
  // the chunk stream exactly 4 draws per trial further on.
  const files = [
    'scenarios/surrender/port-blockade.yaml',
    'scenarios/crusader-rex/reference-field-battle.yaml', // the table path
    'scenarios/crusader-rex/storm-or-starve.yaml', // the general path
    'scenarios/fantasy/stone-wall-siege.yaml',
    'scenarios/fantasy/open-field-volley.yaml',
    'scenarios/cry-havoc/melee-two-on-one.yaml',
    'scenarios/cry-havoc/missile-range-tables.yaml',
    'scenarios/cry-havoc/battering-engine-mix.yaml',
    'scenarios/cry-havoc/fire-siege-tower.yaml',
    'scenarios/cry-havoc/healing-tables.yaml',
  ];
  it.each(files)('%s', async (file) => {
    const { readFileSync } = await import('node:fs');
    const { deriveState, nextI32 } = await import('../src/engine/rng.js');
    const v = valid(readFileSync(file, 'utf8'));
    const sys = v.system;
    const c = sys.compile(v.points[0].variants[0].scenario);
    const n = 300;
    const one = deriveState('contract', file, 0);
    const accOne = new Float64Array(sys.kernel.accLength(c));
    sys.kernel.run(c, one, n, accOne);
    const many = deriveState('contract', file, 0);
    const accMany = new Float64Array(sys.kernel.accLength(c));
    for (let i = 0; i < n; i++) sys.kernel.run(c, many, 1, accMany);
    expect(Array.from(accOne)).toEqual(Array.from(accMany));
    expect(accOne[0]).toBe(n);
    const ref = deriveState('contract', file, 0);
    for (let i = 0; i < 4 * n; i++) nextI32(ref);
    expect(Array.from(one)).toEqual(Array.from(ref));
  });
});

describe('the worker returns its buffers by copy', () => {
  it('never transfers (a detached ArrayBuffer slows every typed-array access in the thread ~25%)', async () => {
    const { default: runTask } = await import('../workers/worker.js');
    const { KERNELS } = await import('../src/systems/kernels.js');
    const { runBatch } = await import('../src/engine/chunk.js');
    const { systemById } = await import('../src/systems/registry.js');
    const v = valid();
    const sc = v.points[0].variants[0].scenario as { system: string };
    const c = systemById(sc.system)!.compile(sc as never);
    const L = KERNELS[sc.system].accLength(c);
    const task = { system: sc.system, compiled: [c], accLengths: [L], pairedSlots: [[]], seed: 1, stream: 's', first: 0, sizes: [500, 500] };
    const out = runTask(task);
    // Piscina.move would hand piscina a wrapper that transfers (detaches) the buffer
    expect(out).toBeInstanceOf(Float64Array);
    expect(Array.from(out as Float64Array)).toEqual(Array.from(runBatch(KERNELS[sc.system], task)));
  });
});

describe('paired differences match metrics by name', () => {
  it("a variant's paired slots follow the baseline's metric names, -1 where it pairs none", async () => {
    const { alignPairedSlots } = await import('../src/api/run.js');
    const lists: Record<string, { metric: string; slot: number }[]> = {
      base: [{ metric: 'a', slot: 1 }, { metric: 'b', slot: 2 }],
      reordered: [{ metric: 'b', slot: 5 }, { metric: 'a', slot: 7 }],
      fewer: [{ metric: 'b', slot: 3 }],
    };
    const sys = { pairedSlots: (c: unknown) => lists[c as string] };
    expect(alignPairedSlots(sys, ['base', 'reordered', 'fewer'])).toEqual([[1, 2], [7, 5], [-1, 3]]);
  });

  it('a chunk leaves the paired sums of a metric the variant does not pair at 0 (not NaN), and pairs the rest', async () => {
    const { runBatch } = await import('../src/engine/chunk.js');
    // a toy kernel: slot 0 counts trials; slot 1 gets the trial's first die (1-6); slot 2 twice
    // that; it keeps the trace contract (systems/types.ts), which the engine pairs with
    const { nextU32 } = await import('../src/engine/rng.js');
    const { writeTrace } = await import('../src/systems/trace.js');
    const kernel = {
      accLength: () => 3,
      run: (_c: unknown, s: Parameters<typeof nextU32>[0], n: number, acc: Float64Array, trace?: import('../src/systems/types.js').Trace) => {
        for (let t = 0; t < n; t++) {
          const d = 1 + (nextU32(s) % 6);
          acc[0] += 1;
          acc[1] += d;
          acc[2] += 2 * d;
          if (trace !== undefined) writeTrace(trace, t, acc);
        }
      },
    };
    // baseline pairs [slot 1, slot 2]; the variant pairs only the second metric, at its slot 1
    const task = { system: 'toy', compiled: [0, 0], accLengths: [3, 3], pairedSlots: [[1, 2], [-1, 1]], seed: 1, stream: 's', first: 0, sizes: [1000] };
    const out = runBatch(kernel as never, task);
    const pairs = out.subarray(6);
    expect(Array.from(pairs.subarray(0, 2))).toEqual([0, 0]);
    // variant's slot 1 (d) minus the baseline's slot 2 (2d), trial by trial on the same dice: -d
    expect(pairs[2]).toBe(-out[1]);
    expect(Number.isNaN(pairs[3])).toBe(false);
  });
});
