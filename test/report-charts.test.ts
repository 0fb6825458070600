/**
 * The report's charts as a designer must be able to read them (issue 16, 5; issue 11, 6):
 * every case drawn, every line told apart, integer axes on integers, a sweep's answer drawn.
 * Every bundled report, drawn and opened in a browser: test/e2e/reports.test.ts.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { crossing, crossings, curveChart, heatmapChart, integerTicks, seriesLayout, sweepChart, wrapColumns, type SweepLine } from '../src/systems/chart-kit.js';
import type { ScenarioResult } from '../src/systems/types.js';
import { nodes, runFile } from './helpers.js';


describe('integer axes', () => {
  it('tick on integers only (a 3-turn axis was ticked 1 2 2 3 3)', () => {
    expect(integerTicks([1, 2, 3], 480)).toEqual([1, 2, 3]);
    expect(integerTicks([1, 2, 3], 200)).toEqual([1, 2, 3]);
    for (const [xs, w] of [
      [[0, 20], 200],
      [[1, 12], 150],
      [[0, 400], 480],
      [[3, 4], 60],
    ] as [number[], number][]) {
      const t = integerTicks(xs, w);
      expect(t.length).toBeGreaterThan(1);
      expect(t.every((v) => Number.isInteger(v) && v >= xs[0] && v <= xs[1])).toBe(true);
      expect(new Set(t).size).toBe(t.length);
      expect(t.length).toBeLessThanOrEqual(Math.max(2, Math.floor(w / 30)) + 1);
    }
  });

  it('small multiples fill their rows', () => {
    expect(wrapColumns(6)).toBe(3);
    expect(wrapColumns(8)).toBe(4);
    expect(wrapColumns(3)).toBe(3);
    expect(wrapColumns(30)).toBeLessThanOrEqual(4);
  });
});

describe('a sweep is read as solve reads it', () => {
  const line = (vals: [number, number, number][]): SweepLine => ({
    along: 'x',
    fixed: {},
    variant: 'v',
    points: vals.map(([x, lo, hi]) => ({ x, m: { value: (lo + hi) / 2, ci_low: lo, ci_high: hi } })),
  });

  it('finds the first value that reaches the target and its neighbour, rising or falling', () => {
    const up = crossing(line([[1, 0.1, 0.2], [2, 0.3, 0.4], [3, 0.6, 0.7], [4, 0.8, 0.9]]), 0.5);
    expect(up.direction).toBe('rises');
    expect(up.answer?.x).toBe(3);
    expect(up.neighbour?.x).toBe(2);
    expect(up.resolved).toBe(true);
    const down = crossing(line([[1, 0.8, 0.9], [2, 0.6, 0.7], [3, 0.3, 0.4]]), 0.5);
    expect(down.direction).toBe('falls');
    expect(down.answer?.x).toBe(3);
    expect(down.neighbour?.x).toBe(2);
  });

  it('says unresolved when an interval straddles the target, and nothing when it is never reached', () => {
    const straddle = crossing(line([[1, 0.1, 0.2], [2, 0.45, 0.6], [3, 0.8, 0.9]]), 0.5);
    expect(straddle.answer?.x).toBe(2);
    expect(straddle.resolved).toBe(false);
    const short = crossing(line([[1, 0.44, 0.49], [2, 0.5, 0.55], [3, 0.8, 0.9]]), 0.5);
    expect(short.answer?.x).toBe(2);
    expect(short.resolved).toBe(true);
    const never = crossing(line([[1, 0.1, 0.2], [2, 0.2, 0.3]]), 0.5);
    expect(never.answer).toBeUndefined();
    expect(never.resolved).toBe(false);
  });
});

describe('charts of the bundled scenarios', () => {
  let grid: ScenarioResult;
  let blockade: ScenarioResult;
  beforeAll(async () => {
    grid = await runFile('scenarios/surrender/heavy-guns-grid.yaml', 4000);
    blockade = await runFile('scenarios/surrender/port-blockade.yaml', 4000);
  });

  it('the heavy-guns grid draws all 30 cases, each line named in full (not "first 12 of 30", not "surrender_level=1,…")', () => {
    const c = curveChart(grid, { name: 'c', title: 'P', curve: 'surrender_by_turn', x: 'turn', xTitle: 't', yTitle: 'p' });
    expect(c.title).not.toMatch(/first/);
    const values = (c.spec.data as { values: { panel: string; series: string }[] }).values;
    const lines = new Set(values.map((v) => `${v.panel}|${v.series}`));
    expect(lines.size).toBe(30);
    // no more lines in a panel than the eye can tell apart, and no legend cut short
    const layout = seriesLayout(grid);
    expect(layout.colors.length).toBeLessThanOrEqual(8);
    for (const n of nodes(c.spec)) if ('labelLimit' in n) expect(n.labelLimit).toBe(0);
    const turnAxis = [...nodes(c.spec)].find((n) => n.field === 'x' && n.axis)?.axis as { values: number[] };
    expect(turnAxis.values).toEqual([1, 2, 3]);
  });

  it('the grid leads with its heatmap and the target contour between the cells below and above 0.5', () => {
    const heat = heatmapChart(grid, 'p_surrender', 'h')!;
    expect(heat.lead).toBe(true);
    const values = (heat.spec.data as { values: Record<string, number | string>[] }).values;
    const cells = values.filter((v) => v.kind === 'cell');
    const edges = values.filter((v) => v.kind === 'edge');
    expect(cells).toHaveLength(30);
    const at = (x: number, y: number) => cells.find((c) => c.x === x && c.y === y)!.value as number;
    // every edge lies between two cells on opposite sides of the target, and every such pair has its edge
    let pairs = 0;
    for (const c of cells) {
      for (const [dx, dy] of [[1, 0], [0, 1]]) {
        const n = cells.find((o) => o.x === (c.x as number) + dx && o.y === (c.y as number) + dy);
        if (!n || (c.value as number) >= 0.5 === (n.value as number) >= 0.5) continue;
        pairs++;
        const e = dx === 1 ? { x: (c.x as number) + 0.5, y: (c.y as number) - 0.5 } : { x: (c.x as number) - 0.5, y: (c.y as number) + 0.5 };
        expect(edges.some((g) => g.x === e.x && g.y === e.y), `edge after ${c.x},${c.y}`).toBe(true);
      }
    }
    expect(edges).toHaveLength(pairs);
    expect(pairs).toBeGreaterThan(0);
    expect(at(0, 0)).toBe(0);
    // the labels never round a meaning away: an exact 0 is 0, a near 1 is >0.99, not 1.00
    const labels = cells.map((c) => c.label);
    expect(labels).not.toContain('1.00');
    expect(labels).not.toContain('0.00');
  });

  it('a one-parameter sweep gets its metric against the parameter, with the target and the answer marked', () => {
    const s = sweepChart(blockade, ['p_surrender', 'p_test'], 'p_surrender', 's')!;
    expect(s).toBeDefined();
    expect(s.lead).toBe(true);
    const values = (s.spec.data as { values: Record<string, unknown>[] }).values;
    expect(values.filter((v) => v.metric === 'p_surrender')).toHaveLength(4);
    expect(values.some((v) => v.answer !== undefined)).toBe(true);
    expect(crossings(blockade, 'p_surrender', 0.5).every((k) => k.answer)).toBe(true);
  });
});
