/**
 * The history api: records from result documents, a rerun replacing its commit, the
 * store's text checked line by line, and moves found by diff's test with Holm's correction over
 * the metrics of a commit (a bench rate by its ratio).
 */
import { describe, expect, it } from 'vitest';
import { addRecord, analyzeHistory, HistoryError, parseStore, readResult, storeText, type HistoryRecord } from '../src/api.js';
import type { HistoryPoint } from '../src/api/history.js';
import { wilson, Z95, zForConfidence } from '../src/stats/intervals.js';
import type { Command } from 'commander';
import { buildProgram } from '../src/cli/program.js';

const Z999 = zForConfidence(0.999);
const N = 16384;

/** A probability point as test --json would give it (Wilson at 99.9%). */
function prob(p: number, n = N): HistoryPoint {
  const w = wilson(Math.round(p * n), n, Z999);
  return { v: p, lo: w.ci_low, hi: w.ci_high, n, k: 'p' };
}

function rec(i: number, metrics: Record<string, HistoryPoint>): HistoryRecord {
  return { sha: (i + 1).toString(16).padStart(40, '0'), date: new Date(Date.UTC(2026, 0, 1, i)).toISOString(), subject: `c${i}`, branch: 'main', recorded: '', sources: {}, metrics };
}

describe('history records', () => {
  it('reads test --json (interval kept at 99.9%, bound and exact answer), bench JSON (relative) and summary.json (Wilson at 99.9%)', () => {
    const t = readResult(
      {
        passed: true,
        assertions: [
          { scenario: 's', metric: 'p_x', where: 'wall.dc=12', value: 0.5, ci_low: 0.48, ci_high: 0.52, confidence: 0.999, trials: 1000, bound: { kind: 'between', low: 0.4, high: 0.6 } },
          { scenario: 's', metric: 'p_x', where: 'wall.dc=12', value: 0.5, ci_low: 0.48, ci_high: 0.52, confidence: 0.999, trials: 1000, bound: { kind: 'exact' }, exact: { value: 0.49, z: 1 } },
        ],
      },
      't.json',
    );
    expect(t).toEqual({ source: 'test', metrics: { 's · p_x [wall.dc=12]': { v: 0.5, k: 'p', n: 1000, lo: 0.48, hi: 0.52, b: [0.4, 0.6], x: 0.49 } } });
    expect(readResult({ calibration: {}, results: {}, relative: { 'dice.d6_per_second': 9.7, bad: null } }, 'b.json')).toEqual({ source: 'bench', metrics: { 'dice.d6_per_second': { v: 9.7, k: 'r' } } });
    const s = readResult({ name: 'g', system: 'fantasy', params: [], variants: ['base'], cases: [{ case: 0, variant: 'base', params: {}, trials: N, metrics: { p_breach: { value: 0.25, ci_low: 0.24, ci_high: 0.26, n: N, kind: 'probability' } } }] }, 'summary.json');
    const w = wilson(N / 4, N, Z999);
    expect(s.metrics['g · p_breach']).toMatchObject({ v: 0.25, n: N, k: 'p' });
    expect(s.metrics['g · p_breach'].lo).toBeCloseTo(w.ci_low, 7);
    expect(() => readResult({ a: 1 }, 'x.json')).toThrow(HistoryError);
    // a damaged summary.json is said, never a TypeError (cases: [null] was one)
    expect(() => readResult({ name: 'g', system: 'fantasy', cases: [null] }, 'd.json')).toThrow('d.json: a damaged summary.json (cases[0] is not an object)');
    expect(() => readResult({ name: 'g', system: 'fantasy', cases: [{ case: 0, variant: 'b', params: {}, trials: 1, metrics: null }] }, 'd.json')).toThrow('(cases[0].metrics is not an object)');
    // a mean over the trials of an event keeps its event (summary.json's conditional_on, test --json's), and so does its series
    const mean = { value: 1.3, ci_low: 1.2, ci_high: 1.4, n: 900, kind: 'mean' as const, conditional_on: 'p_breach' };
    const cond = readResult({ name: 'g', system: 'fantasy', params: [], variants: ['a', 'b'], cases: [
      { case: 1, variant: 'a', params: {}, trials: N, metrics: { mean_breach_round: mean } },
      { case: 1, variant: 'b', params: {}, trials: N, metrics: { mean_breach_round: mean }, differences: { mean_breach_round: { value: 0.1, ci_low: 0, ci_high: 0.2, se: 0.05 } } },
    ] }, 'summary.json');
    expect(cond.metrics['g · mean_breach_round [variant a]'].c).toBe('p_breach');
    expect(cond.metrics['g · diff_mean_breach_round [variant b]'].c).toBe('p_breach');
    // a paired difference no trial showed (se 0), whose 95% interval has the width of its two trials at ±R:
    // recorded with that width widened to 99.9%, not as [0, 0]
    const rare = readResult({ name: 'g', system: 'surrender', params: [], variants: ['a', 'b'], cases: [
      { case: 1, variant: 'a', params: {}, trials: 1000, metrics: {} },
      { case: 1, variant: 'b', params: {}, trials: 1000, metrics: {}, differences: { p_surrender: { value: 0, ci_low: -0.0028, ci_high: 0.0028, se: 0, paired: true } } },
    ] }, 'summary.json');
    expect(rare.metrics['g · diff_p_surrender [variant b]'].lo).toBeCloseTo(-0.0028 * (Z999 / Z95), 7);
    expect(rare.metrics['g · diff_p_surrender [variant b]'].hi).toBeCloseTo(0.0028 * (Z999 / Z95), 7);
    const tc = readResult({ passed: true, assertions: [{ scenario: 's', metric: 'mean_turns', where: '', value: 1.4, ci_low: 1.3, ci_high: 1.5, confidence: 0.999, trials: 1000, conditional_on: 'p_surrender' }] }, 't.json');
    expect(tc.metrics['s · mean_turns'].c).toBe('p_surrender');
    expect(analyzeHistory([rec(0, { 'test:s · mean_turns': tc.metrics['s · mean_turns'] })]).series[0].conditionalOn).toBe('p_surrender');
  });

  it('a second add for a commit replaces the kinds it brings and keeps the others; a new commit goes in date order', () => {
    const c0 = { sha: 'a'.repeat(40), date: '2026-01-02T00:00:00Z', subject: 'b', branch: 'main' };
    let { records } = addRecord([], c0, [{ source: 'test', file: 't.json', metrics: { m: prob(0.5) } }, { source: 'bench', file: 'b.json', metrics: { r: { v: 1, k: 'r' } } }]);
    const again = addRecord(records, c0, [{ source: 'test', file: 't.json', metrics: { m2: prob(0.4) } }]);
    expect(again.replaced).toBe(true);
    expect(again.records).toHaveLength(1);
    expect(Object.keys(again.records[0].metrics).sort()).toEqual(['bench:r', 'test:m2']);
    expect(again.records[0].sources).toEqual({ bench: ['b.json'], test: ['t.json'] });
    records = addRecord(again.records, { ...c0, sha: 'b'.repeat(40), date: '2026-01-01T00:00:00Z' }, []).records;
    expect(records.map((r) => r.sha[0])).toEqual(['b', 'a']);
    // the text round-trips; a damaged line or a commit twice is refused with its line
    expect(parseStore(storeText(records), 'c.jsonl')).toEqual(records);
    expect(() => parseStore(storeText(records) + '{"sha":\n', 'c.jsonl')).toThrow('c.jsonl:3: damaged (not a JSON line)');
    expect(() => parseStore(storeText([records[0], records[0]]), 'c.jsonl')).toThrow(`c.jsonl:2: commit ${'b'.repeat(40)} a second time`);
    expect(() => parseStore('{"sha":"zz"}\n', 'c.jsonl')).toThrow('c.jsonl:1: damaged (no commit sha)');
  });
  it('commits of the same date: a new one goes after those there, before those it is an ancestor of (a backfill recording a child before its parent)', () => {
    const at = '2026-01-01T00:00:00Z';
    const c = (x: string, date = at) => ({ sha: x.repeat(40), date, subject: x, branch: 'main' });
    // c is b's child, b is a's child; d unrelated, of the same second; e a second later
    const parents: Record<string, string> = { c: 'b', b: 'a' };
    const ancestorOf = (x: string) => (sha: string) => {
      for (let y: string | undefined = sha[0]; y !== undefined; y = parents[y]) if (y !== sha[0] && y === x) return true;
      return false;
    };
    let records = addRecord([], c('e', '2026-01-01T00:00:01Z'), []).records;
    for (const x of ['c', 'd', 'a', 'b']) records = addRecord(records, c(x), [], undefined, ancestorOf(x)).records;
    expect(records.map((r) => r.sha[0]).join('')).toBe('abcde');
    // without ancestry: in the order recorded
    let plain = addRecord([], c('c'), []).records;
    plain = addRecord(plain, c('b'), []).records;
    expect(plain.map((r) => r.sha[0]).join('')).toBe('cb');
  });
});

describe('history moves', () => {
  it('marks the commit where a metric changed, never one where it stayed (same dice: identical values)', () => {
    const recs = [0.97, 0.97, 0.938, 0.938, 0.938].map((p, i) => rec(i, { 'test:s · p_breach': prob(p), 'test:s · p_other': prob(0.5) }));
    const a = analyzeHistory(recs);
    expect(a.series.map((s) => [s.key, s.firstMoved, s.moved])).toEqual([
      ['test:s · p_breach', 2, [2]],
      ['test:s · p_other', null, []],
    ]);
    expect(a.moves[0]).toMatchObject({ at: 2, from: 1, before: 0.97, after: 0.938 });
    expect(a.moves[0].z!).toBeLessThan(-10);
  });

  it('Holm-corrects over every metric compared at a commit, as diff does: a change significant alone is not with 19 others', () => {
    // p = 0.5 -> 0.5 + d with z ≈ 3.6 (two-sided p ≈ 3e-4 < 0.001, but 20 × 3e-4 > 0.001)
    const d = 3.6 * Math.sqrt((2 * 0.25) / N);
    const alone = analyzeHistory([rec(0, { 'test:x': prob(0.5) }), rec(1, { 'test:x': prob(0.5 + d) })]);
    expect(alone.series[0].firstMoved).toBe(1);
    const others = (p: number) => Object.fromEntries(Array.from({ length: 19 }, (_, j) => [`test:o${j}`, prob(0.3)]).concat([['test:x', prob(p)]]));
    const family = analyzeHistory([rec(0, others(0.5)), rec(1, others(0.5 + d))]);
    expect(family.series.find((s) => s.key === 'test:x')!.firstMoved).toBeNull();
    // a metric missing at a commit is compared with its previous recorded commit
    const gap = analyzeHistory([rec(0, { 'test:x': prob(0.5) }), rec(1, {}), rec(2, { 'test:x': prob(0.45) })]);
    expect(gap.moves).toMatchObject([{ key: 'test:x', at: 2, from: 0 }]);
  });

  it('a bench rate moved when its ratio passes the tolerance (0.15 by default)', () => {
    const recs = [10, 9.5, 10.2, 8.2, 8.3].map((v, i) => rec(i, { 'bench:r': { v, k: 'r' } }));
    expect(analyzeHistory(recs).moves.map((m) => [m.at, +m.ratio!.toFixed(3)])).toEqual([[3, 0.804]]);
    expect(analyzeHistory(recs, { tolerance: 0.25 }).moves).toEqual([]);
  });
});

describe('the command line help', () => {
  it('says each default once: `history show --help` (and every command: an option with a default commander prints does not say it again)', () => {
    const program = buildProgram();
    const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
    const twice = all(program).flatMap((c) =>
      c.options.filter((o) => o.defaultValue !== undefined && /\(default\b/.test(o.description)).map((o) => `${c.name()} ${o.flags}: ${o.description}`),
    );
    expect(twice).toEqual([]);
    const show = program.commands.find((c) => c.name() === 'history')!.commands.find((c) => c.name() === 'show')!;
    const help = show.helpInformation().replace(/\s+/g, ' ');
    expect(help.match(/siegesim-history/g)).toHaveLength(1);
    expect(help.match(/reports\/history/g)).toHaveLength(1);
    // an option repeated into a list has no default to print (commander would print "[]")
    expect(all(program).map((c) => c.helpInformation()).join('\n')).not.toContain('(default: [])');
  });
});
