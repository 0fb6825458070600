/** Benchmark baselines that travel between machines (bench/baseline.mjs): figures relative to a calibration loop. */
import { describe, expect, it } from 'vitest';
import { baselineDoc, compareBaseline, comparisonTable, median, mergeBaselines, ratesOf, type RunDoc } from '../bench/baseline.mjs';

/** A run on a machine `speed` times as fast as the reference, with one kernel `slow` times slower. */
function run(speed: number, slow = 1, threads = 2): RunDoc {
  return {
    cpu: `cpu x${speed}`,
    cores: threads,
    calibration: { ops_per_second: 10e6 * speed, wall_ops_per_second: 10e6 * speed, spread: 1.01 },
    results: {
      dice: { u32_per_second: 500e6 * speed, ns_per_u32: 2 / speed },
      surrender: {
        'town-basic': { trials_per_second_per_thread: 20e6 * speed, heap_bytes_per_trial: 0.001 },
        'port-blockade': { trials_per_second_per_thread: (15e6 * speed) / slow },
        pool_town_basic: { threads, trials: 4e7, trials_per_second: 36e6 * speed, trials_per_second_per_thread: 18e6 * speed },
      },
      process: { reference: { kernel_battles_per_second: 7e6 * speed, threads_1: { battles_per_second: 5e6 * speed }, threads_2: { battles_per_second: 9e6 * speed } } },
    },
  };
}

describe('bench baselines', () => {
  it('finds the rates: per-thread ones, and totals that have no per-thread sibling', () => {
    expect(Object.keys(ratesOf(run(1).results))).toEqual([
      'dice.u32_per_second',
      'surrender.town-basic.trials_per_second_per_thread',
      'surrender.port-blockade.trials_per_second_per_thread',
      'surrender.pool_town_basic.trials_per_second_per_thread',
      'process.reference.kernel_battles_per_second',
      'process.reference.threads_1.battles_per_second',
      'process.reference.threads_2.battles_per_second',
    ]);
    const rates = ratesOf(run(1).results);
    expect(rates['surrender.pool_town_basic.trials_per_second_per_thread'].threads).toBe(2);
    expect(rates['process.reference.threads_2.battles_per_second'].threads).toBe(2);
    expect(rates['process.reference.threads_1.battles_per_second'].threads).toBe(1);
    expect(rates['process.reference.kernel_battles_per_second'].threads).toBeUndefined();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('a baseline saved on one machine holds on a machine twice as fast, and catches a kernel 25% slower', () => {
    const base = baselineDoc(run(1));
    expect(base.benchmarks['dice.u32_per_second'].relative).toBe(50);
    const same = compareBaseline(base, run(2), 0.15);
    expect(same.pass).toBe(true);
    expect(same.rows.every((r) => r.status === 'ok' && r.ratio === 1)).toBe(true);
    const slower = compareBaseline(base, run(2, 1 / 0.75), 0.15);
    expect(slower.pass).toBe(false);
    expect(slower.rows.find((r) => r.status === 'SLOWER')).toMatchObject({ name: 'surrender.port-blockade.trials_per_second_per_thread', ratio: 0.75 });
    expect(compareBaseline(base, run(2, 1 / 0.9), 0.15).pass).toBe(true); // within the tolerance
    expect(compareBaseline(base, run(2, 1 / 0.75), 0.3).pass).toBe(true);
    const table = comparisonTable(slower, base, run(2, 1 / 0.75));
    expect(table).toMatch(/surrender\.port-blockade\.trials_per_second_per_thread +1\.5 +1\.125 +0\.75 +SLOWER/);
    expect(table).toContain('SLOWER than the baseline: tolerance 0.15');
  });

  it('uses the paired calibration logged by rate() when there is one', () => {
    const doc = run(1);
    const log = [{ value: 20e6, relative: 1.7 }];
    expect(baselineDoc(doc, log).benchmarks['surrender.town-basic.trials_per_second_per_thread'].relative).toBe(1.7);
    expect(baselineDoc(doc, log).benchmarks['dice.u32_per_second'].relative).toBe(50);
  });

  it('pool benchmarks are compared only at the same thread count; benchmarks on one side only never fail', () => {
    const base = baselineDoc(run(1));
    const four = compareBaseline(base, run(1, 1, 4), 0.15);
    expect(four.rows.find((r) => r.name.includes('pool_'))).toMatchObject({ status: 'info', note: '4 threads on 4 cores here, 2 on 2 in the baseline' });
    expect(four.rows.find((r) => r.name.endsWith('threads_2.battles_per_second'))).toMatchObject({ status: 'info' });
    expect(four.rows.find((r) => r.name.endsWith('threads_1.battles_per_second'))).toMatchObject({ status: 'ok' });
    const partial = run(1);
    delete (partial.results as Record<string, unknown>).dice;
    (partial.results as Record<string, unknown>).fantasy = { siege: { trials_per_second_per_thread: 1e5 } };
    const cmp = compareBaseline(base, partial, 0.15);
    expect(cmp.pass).toBe(true);
    expect(cmp.rows.find((r) => r.name === 'dice.u32_per_second')!.status).toBe('missing');
    expect(cmp.rows.find((r) => r.name === 'fantasy.siege.trials_per_second_per_thread')!.status).toBe('new');
    expect(() => compareBaseline({ ...base, format: 0 }, run(1), 0.15)).toThrow(/save a new one/);
  });

  it('merging saved runs keeps each benchmark at its slowest figure (a gate must hold on every run of the same build)', () => {
    const fast = baselineDoc(run(1));
    const slow = baselineDoc(run(1, 2));
    const merged = mergeBaselines([fast, slow]);
    expect(merged.benchmarks['surrender.port-blockade.trials_per_second_per_thread'].relative).toBe(0.75);
    expect(merged.benchmarks['dice.u32_per_second'].relative).toBe(50);
    expect(compareBaseline(merged, run(3, 2), 0.15).pass).toBe(true);
    expect(() => mergeBaselines([])).toThrow();
  });
});

describe('bench arguments for baselines', () => {
  it('--save, --baseline and --tolerance are parsed and checked (exit 2 on a bad one)', async () => {
    const { parseBenchArgs, BenchUsageError } = await import('../bench/harness.mjs');
    const names = ['dice', 'surrender'];
    expect(parseBenchArgs(['dice', '--save', 'b.json'], names)).toEqual({ only: ['dice'], seconds: 2, check: false, save: 'b.json' });
    expect(parseBenchArgs(['--baseline', 'b.json', '--tolerance', '0.25'], names)).toEqual({ only: [], seconds: 2, check: false, baseline: 'b.json', tolerance: 0.25 });
    expect(() => parseBenchArgs(['--baseline'], names)).toThrow(BenchUsageError);
    expect(() => parseBenchArgs(['--baseline', 'b.json', '--tolerance', '1.5'], names)).toThrow('--tolerance must be a fraction in [0, 1)');
    expect(() => parseBenchArgs(['--tolerance', '0.2'], names)).toThrow('--tolerance goes with --baseline FILE');
  });
});
