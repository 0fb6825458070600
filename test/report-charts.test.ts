/**
 * The report's charts as a designer must be able to read them:
 * every case drawn, every line told apart, integer axes on integers, a sweep's answer drawn.
 * Every bundled report, drawn and opened in a browser: test/e2e/reports.test.ts.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { createRequire } from 'node:module';
import type * as VegaModule from 'vega';
import type * as VegaLiteModule from 'vega-lite';
import { crossing, crossings, curveChart, DIRECTION_COLOURS, directionOf, HEAT_ACROSS, heatmapChart, integerTicks, seriesLayout, sideThroughout, sweepChart, variantBarsChart, wrapColumns, type SweepLine } from '../src/systems/chart-kit.js';
import { systemById } from '../src/systems/registry.js';
import type { ScenarioResult } from '../src/systems/types.js';
import { nodes, ROOT, runFile } from './helpers.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runScenario, validateText } from '../src/api.js';


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

  it('a line on one side of the target throughout gets one verdict, whichever way its noise runs (fresh-eyes helper: 0.80, 0.68, 0.68 read "not reached", 0.70, 0.72, 0.74 "reached")', () => {
    // above everywhere, with no clear direction (first and last intervals overlap): one verdict, falling or rising
    for (const vals of [[[1, 0.67, 0.89], [2, 0.54, 0.79], [3, 0.55, 0.8]], [[1, 0.6, 0.8], [2, 0.62, 0.82], [3, 0.64, 0.84]]] as [number, number, number][][]) {
      const k = crossing(line(vals), 0.5);
      expect([k.everywhere, k.direction, k.answer?.x, k.neighbour]).toEqual(['above', 'rises', 1, undefined]);
    }
    // below everywhere, with no clear direction: not reached, rising or falling
    for (const vals of [[[1, 0, 0.1], [2, 0, 0.1], [3, 0, 0.05]], [[1, 0, 0.08], [2, 0.01, 0.1], [3, 0.02, 0.12]]] as [number, number, number][][]) {
      const k = crossing(line(vals), 0.5);
      expect([k.everywhere, k.direction, k.answer]).toEqual(['below', 'rises', undefined]);
    }
    // a line on one side that clearly runs one way keeps its direction's verdict
    const falling = crossing(line([[1, 0.9, 0.95], [2, 0.7, 0.8], [3, 0.55, 0.65]]), 0.5);
    expect([falling.everywhere, falling.direction, falling.answer]).toEqual([undefined, 'falls', undefined]);
    // ... and is said as a line on one side is: above the target throughout, as a near-identical flat line reads "at or above"
    expect(sideThroughout(falling)).toBe('above');
    expect(sideThroughout(crossing(line([[1, 0.67, 0.89], [2, 0.54, 0.79], [3, 0.55, 0.8]]), 0.5))).toBe('at or above');
    expect(sideThroughout(crossing(line([[1, 0.05, 0.1], [2, 0.3, 0.4]]), 0.5))).toBe('below');
    expect(sideThroughout(crossing(line([[1, 0.05, 0.1], [2, 0.6, 0.7]]), 0.5))).toBeUndefined();
    const rising = crossing(line([[1, 0.55, 0.65], [2, 0.9, 0.95]]), 0.5);
    expect([rising.everywhere, rising.direction, rising.answer?.x]).toEqual([undefined, 'rises', 1]);
    // a line that crosses keeps its direction
    const crosses = crossing(line([[1, 0.8, 0.9], [2, 0.3, 0.4]]), 0.5);
    expect([crosses.direction, crosses.everywhere, crosses.answer?.x]).toEqual(['falls', undefined, 2]);
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

  it("draws its series and variants in colours that are never a direction's blue or orange (the workbench's tuned line was drawn orange, as a change down)", async () => {
    const engineers = await runFile('scenarios/surrender/engineers-reading.yaml', 2000); // variants, one panel
    const siege = await runFile('scenarios/fantasy/stone-wall-siege.yaml', 500); // units by type, variants
    const volley = await runFile('scenarios/fantasy/open-field-volley.yaml', 500); // volley damage by series
    const specs = [
      ...systemById('surrender')!.charts(engineers),
      ...systemById('surrender')!.charts(blockade),
      ...systemById('surrender')!.charts(grid),
      ...systemById('fantasy')!.charts(siege),
      ...systemById('fantasy')!.charts(volley),
      ...systemById('crusader-rex')!.charts(await runFile('scenarios/crusader-rex/case-a-new-siege.yaml', 500)),
    ].map((c) => c.spec);
    let scales = 0;
    for (const spec of specs)
      for (const n of nodes(spec)) {
        const colour = n.color as { field?: string; scale?: { range?: unknown; scheme?: unknown } } | undefined;
        if (!colour?.scale || !['series', 'variant', 'unit'].includes(colour.field ?? '') || colour.scale.scheme) continue;
        scales++;
        expect(colour.scale.range, JSON.stringify(colour)).toBeDefined();
        for (const c of colour.scale.range as string[]) expect([DIRECTION_COLOURS.up, DIRECTION_COLOURS.down, '#1f77b4', '#ff7f0e']).not.toContain(c);
      }
    expect(scales).toBeGreaterThan(2);
  });

  it("says a fantasy siege's curves hold an ended battle at its last round (a flat wall-HP tail read as a wall standing at 1 HP)", async () => {
    const siege = await runFile('scenarios/fantasy/stone-wall-siege.yaml', 500);
    const charts = systemById('fantasy')!.charts(siege);
    for (const name of ['wall_hp', 'attrition']) {
      const c = charts.find((x) => x.name === name);
      expect(c?.caption, name).toMatch(/over every trial, a (siege|battle) that has ended held at its last round/);
    }
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
    // the contour is clipped to the plot: a square-capped segment meeting the frame stuck out past it
    expect((heat.spec as { layer: { mark: { type: string; clip?: boolean } }[] }).layer.find((l) => l.mark.type === 'rule')!.mark.clip).toBe(true);
    expect(at(0, 0)).toBe(0);
    // the labels never round a meaning away: an exact 0 is 0, a near 1 is >0.99, not 1.00
    const labels = cells.map((c) => c.label);
    expect(labels).not.toContain('1.00');
    expect(labels).not.toContain('0.00');
  });

  it('a heatmap with more values of its first parameter than fit across a page runs that parameter up the side, and says so', () => {
    const m = (value: number) => ({ value, ci_low: Math.max(0, value - 0.05), ci_high: Math.min(1, value + 0.05), kind: 'probability' as const, n: 100 });
    const sweep = (nx: number, ny: number) => {
      const cases = [];
      for (let x = 0; x < nx; x++) for (let y = 0; y < ny; y++) cases.push({ case: cases.length + 1, variant: 'base', params: { 'wall.hp': 10 + x, 'wall.dc': 5 + y }, trials: 100, metrics: { p_surrender: m(x / nx) }, differences: {} });
      return { ...grid, params: ['wall.hp', 'wall.dc'], variants: ['base'], headline: undefined, cases } as unknown as ScenarioResult;
    };
    const tall = heatmapChart(sweep(HEAT_ACROSS + 5, 3), 'p_surrender', 'h')!;
    const inner = tall.spec as { width: number; height: number; title: { text: string }; layer: { encoding: { x: { title?: string }; y: { title?: string } } }[] };
    expect(inner.layer[0].encoding.y.title).toBe('wall.hp');
    expect(inner.layer[0].encoding.x.title).toBe('wall.dc');
    expect(inner.width).toBeLessThan(400);
    expect(inner.height).toBeGreaterThan(inner.width);
    expect(inner.title.text).toBe('p_surrender over dc x hp');
    expect(tall.caption).toContain(`wall.hp runs up the side (its ${HEAT_ACROSS + 5} values would not fit across; wall.dc has 3)`);
    // the cells keep their values: the top of the first column is the largest wall.hp
    const cells = (tall.spec.data as { values: Record<string, number | string>[] }).values.filter((v) => v.kind === 'cell');
    expect(cells.find((c) => c.x === 0 && c.y === HEAT_ACROSS + 4)!.value).toBeCloseTo((HEAT_ACROSS + 4) / (HEAT_ACROSS + 5));
    // at the limit, or with fewer values up than across, the first parameter stays across
    for (const [nx, ny] of [[HEAT_ACROSS, 3], [HEAT_ACROSS + 5, HEAT_ACROSS + 5]]) {
      const flat = heatmapChart(sweep(nx, ny), 'p_surrender', 'h')!;
      expect((flat.spec as typeof inner).layer[0].encoding.x.title).toBe('wall.hp');
      expect(flat.caption).not.toContain('up the side');
    }
  });

  it("the fantasy wall-hp-dc-grid holds its fair fight inside the grid: the 50% contour crosses it, not along its first column", async () => {
    const wall = await runFile('scenarios/fantasy/wall-hp-dc-grid.yaml', 2000);
    const hps = [...new Set(wall.cases.map((c) => c.params['wall.hp'] as number))];
    // along wall.hp, at every DC: the first HP that holds half the time is past the grid's first two columns' gap, and the grid reaches it
    const alongHp = crossings(wall, 'p_attacker_wins', 0.5).filter((k) => k.line.along === 'wall.hp');
    expect(alongHp).toHaveLength(5);
    for (const k of alongHp) {
      expect(k.answer, JSON.stringify(k.line.fixed)).toBeDefined();
      expect(k.neighbour, JSON.stringify(k.line.fixed)).toBeDefined();
    }
    const at = alongHp.map((k) => hps.indexOf(k.answer!.x as number));
    expect(Math.min(...at)).toBeGreaterThanOrEqual(2); // was 1 (HP 20) at every DC: the crossing between the first two columns
    expect(new Set(at).size).toBeGreaterThanOrEqual(3); // the contour runs across the grid, not down one column
    // along wall.dc too: at some HPs the DC decides it inside the grid
    const alongDc = crossings(wall, 'p_attacker_wins', 0.5).filter((k) => k.line.along === 'wall.dc' && k.answer && k.neighbour);
    expect(alongDc.length).toBeGreaterThanOrEqual(2);
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

type Box = { x1: number; x2: number; y1: number; y2: number };
type SceneItem = { x?: number; y?: number; width?: number; height?: number; bounds: Box; items?: SceneMark[] };
type SceneMark = { marktype: string; role: string; name?: string; items: SceneItem[] };

/** A drawn chart's panels (facet cells) and labelled horizontal axes, in the chart's coordinates (vega's scenegraph, headless). */
async function panelsAndXAxes(spec: Record<string, unknown>): Promise<{ cells: Box[]; axes: Box[] }> {
  const require = createRequire(import.meta.url);
  const vega = require('vega') as typeof VegaModule;
  const { compile } = require('vega-lite') as typeof VegaLiteModule;
  const view = new vega.View(vega.parse(compile(spec as never).spec), { renderer: 'none', logLevel: vega.Error });
  await view.runAsync();
  const cells: Box[] = [];
  const axes: Box[] = [];
  const walk = (mark: SceneMark, ox: number, oy: number) => {
    for (const it of mark.items) {
      const x = ox + (it.x ?? 0);
      const y = oy + (it.y ?? 0);
      if (mark.role === 'scope' && mark.name === 'cell') cells.push({ x1: x, x2: x + it.width!, y1: y, y2: y + it.height! });
      const b = { x1: ox + it.bounds.x1, x2: ox + it.bounds.x2, y1: oy + it.bounds.y1, y2: oy + it.bounds.y2 };
      if (mark.role === 'axis' && it.items?.some((m) => m.role === 'axis-label') && b.x2 - b.x1 > b.y2 - b.y1) axes.push(b);
      if (mark.marktype === 'group') for (const m of it.items ?? []) walk(m, x, y);
    }
  };
  walk((view.scenegraph() as unknown as { root: SceneMark }).root, 0, 0);
  view.finalize();
  return { cells, axes };
}

describe('wrapped small multiples', () => {
  // vega-lite draws a wrapped facet's shared x-axes under the last row, one per column: with 5
  // panels in 3 columns the third column's axis sat under the empty sixth cell, and the panel
  // above it had none (cry-havoc battering-engine-mix, P(wall hex demolished by day)).
  it('draw an x-axis right under every panel that has no panel below it, and none under an empty cell', async () => {
    const files = ['scenarios/cry-havoc/battering-engine-mix.yaml', 'scenarios/surrender/heavy-guns-grid.yaml', 'scenarios/cry-havoc/melee-two-on-one.yaml'];
    let short = 0;
    for (const f of files) {
      const r = await runFile(f, 400);
      for (const chart of systemById(r.system)!.charts(r).filter((c) => 'columns' in c.spec)) {
        const { cells, axes } = await panelsAndXAxes(chart.spec);
        const overlap = (a: Box, b: Box) => Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) > 0.5 * (a.x2 - a.x1);
        const under = (a: Box, cell: Box) => overlap(cell, a) && a.y1 >= cell.y2 - 2 && a.y1 <= cell.y2 + 10;
        const where = `${f} ${chart.name}`;
        if (cells.length % (chart.spec.columns as number) !== 0 && cells.length > (chart.spec.columns as number)) short++;
        for (const a of axes) expect(cells.some((c) => under(a, c)), `${where}: an x-axis under no panel ${JSON.stringify(a)}`).toBe(true);
        for (const c of cells) {
          const below = cells.some((o) => o !== c && overlap(c, o) && o.y1 > c.y2);
          if (!below) expect(axes.some((a) => under(a, c)), `${where}: no x-axis under the panel at ${JSON.stringify(c)}`).toBe(true);
        }
      }
    }
    expect(short).toBeGreaterThan(0); // a grid with a short last row was looked at
  });
});

describe('the Cry Havoc melee results chart', () => {
  it('names every result in words in its legend (the table, the letter and what it does, rule 1.6), in the tables\' order', async () => {
    const r = await runFile('scenarios/cry-havoc/melee-unhorse-the-knight.yaml', 4000); // a mounted knight: both tables
    const chart = systemById('cry-havoc')!.charts(r).find((c) => c.name === 'results_by_turn')!;
    const color = [...nodes(chart.spec)].find((n) => (n.color as { field?: string } | undefined)?.field === 'result')!.color as { sort: string[]; title: string };
    expect(color.title).toContain("defender's table");
    for (const label of color.sort) expect(label, label).toMatch(/^(foot|mounted) [–A-H]: [a-z]/);
    expect(color.sort).toContain('foot F: defender killed');
    expect(color.sort).toContain('mounted D: horse killed, rider stunned, dismounted');
    expect(color.sort.some((l) => l.startsWith('foot'))).toBe(true);
    expect(color.sort.some((l) => l.startsWith('mounted'))).toBe(true);
    // foot first, then mounted; each from no effect down the table
    const rank = (l: string) => (l.startsWith('mounted') ? 100 : 0) + ' –ABCDEFGH'.indexOf(l.split(' ')[1][0]);
    expect(color.sort.map(rank)).toEqual(color.sort.map(rank).sort((a, b) => a - b));
    expect(chart.caption).toContain('rule 1.6');
  });

  it('past 36 cases draws an evenly spaced sample of the panels (the first and the last among them) and says so; every case stays in the CSV', async () => {
    const text = readFileSync(path.join(ROOT, 'scenarios/cry-havoc/melee-two-on-one.yaml'), 'utf8').replace(/\nsweep:[\s\S]*?(?=\n[a-z])|$/, '') + '\nsweep:\n  attackers.0.attack: { from: 1, to: 20, step: 1 }\n';
    const v = validateText('big.yaml', text.replace(/^trials: .*$/m, 'trials: 50'));
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const r = await runScenario(v.value);
    expect(r.cases.length).toBeGreaterThan(36);
    const chart = systemById('cry-havoc')!.charts(r).find((c) => c.name === 'results_by_turn')!;
    const spec = chart.spec as { data: { values: { series: string }[] }; facet: { sort: string[] } };
    expect(spec.facet.sort.length).toBe(36);
    expect(new Set(spec.data.values.map((x) => x.series)).size).toBeLessThanOrEqual(36);
    expect(spec.facet.sort[0]).toContain('attack=1');
    expect(spec.facet.sort[35]).toContain('attack=20');
    expect(chart.caption).toContain(`a sample: 36 of the ${r.cases.length} panels`);
    expect(r.cases.every((c) => (c.curves.results_by_turn?.length ?? 0) > 0)).toBe(true);
  });
});

/** A drawn chart's bars (vega's scenegraph, headless): each rect mark's fill and the row it draws (or each item of another mark type, e.g. 'symbol'). */
async function drawnBars(spec: Record<string, unknown>, marktype = 'rect'): Promise<{ fill: string; datum: Record<string, unknown> }[]> {
  const require = createRequire(import.meta.url);
  const vega = require('vega') as typeof VegaModule;
  const { compile } = require('vega-lite') as typeof VegaLiteModule;
  const view = new vega.View(vega.parse(compile(spec as never).spec), { renderer: 'none', logLevel: vega.Error });
  await view.runAsync();
  const bars: { fill: string; datum: Record<string, unknown> }[] = [];
  type Item = { fill?: string; datum?: Record<string, unknown>; items?: Mark[] };
  type Mark = { marktype: string; role: string; items: Item[] };
  const walk = (mark: Mark) => {
    for (const it of mark.items) {
      if (mark.marktype === marktype && mark.role === 'mark' && it.datum?.panel) bars.push({ fill: it.fill!, datum: it.datum });
      for (const m of it.items ?? []) walk(m);
    }
  };
  walk((view.scenegraph() as unknown as { root: Mark }).root);
  view.finalize();
  return bars;
}

describe('the by-variant bar chart', () => {
  // Orange and blue mean down and up everywhere in a report (the tables, the tornado); the
  // variants' bars were drawn blue and orange (cry-havoc melee-two-on-one: p_defender_killed by variant).
  it('draws the variants grey and each difference in its direction\'s colour (blue up, orange down, grey holding 0)', async () => {
    const directions = new Set<string>();
    for (const [file, metric] of [
      ['scenarios/cry-havoc/melee-two-on-one.yaml', 'p_defender_killed'],
      ['scenarios/cry-havoc/melee-two-on-one.yaml', 'p_attacker_killed'],
      ['scenarios/fantasy/climbers-dc.yaml', 'p_undecided'], // a sweep, the variants grouped per point: down and no clear change
    ] as const) {
      const r = await runFile(file, 4000);
      const chart = variantBarsChart(r, metric, 'bars')!;
      const bars = await drawnBars(chart.spec);
      const where = `${file} ${metric}`;
      const values = bars.filter((b) => b.datum.panel === 'value');
      const diffs = bars.filter((b) => b.datum.panel === 'difference');
      expect(values.length, where).toBe(r.cases.length);
      expect(diffs.length, where).toBe(r.cases.length - r.cases.length / r.variants.length);
      for (const b of values) {
        expect(b.fill, `${where}: a variant's bar`).toMatch(/^#([0-9a-f]{2})\1\1$/); // a grey
        expect(Object.values(DIRECTION_COLOURS).slice(0, 2), where).not.toContain(b.fill);
      }
      for (const b of diffs) {
        const c = r.cases.find((x) => x.variant === b.datum.variant && x.differences[metric]?.value === b.datum.value)!;
        const direction = directionOf(c.differences[metric]);
        directions.add(direction);
        expect(b.fill, `${where}: ${c.variant} ${JSON.stringify(c.params)} is ${direction}`).toBe(DIRECTION_COLOURS[direction]);
      }
    }
    expect([...directions].sort(), 'every direction was drawn').toEqual(['down', 'no clear change', 'up']);
  });

  it("labels each panel's rows with its sweep point, and marks every difference (a 0 too) with a diamond (fresh-eyes trial: the difference panel had no labels, so its one bar was tied to no point)", async () => {
    // (the file's 40 000 trials: at 4 000, four trials differ at 1 gun, all one way, which is no
    // clear change (a sign test's p 0.125), and its interval holds 0)
    const r = await runFile('test/fixtures/heavy-is-artillery.yaml', 40000);
    const chart = variantBarsChart(r, 'p_surrender', 'bars')!;
    const require = createRequire(import.meta.url);
    const vega = require('vega') as typeof VegaModule;
    const { compile } = require('vega-lite') as typeof VegaLiteModule;
    const view = new vega.View(vega.parse(compile(chart.spec as never).spec), { renderer: 'none', logLevel: vega.Error });
    const svg = await view.toSVG();
    view.finalize();
    for (const guns of [0, 1, 2]) expect(svg.split(`>heavy_siege_artillery=${guns}</text>`).length - 1, `heavy_siege_artillery=${guns}`).toBe(2); // one per panel
    // one diamond per difference, coloured by its direction: the readings agree at 0 and 2 guns (0; at 0 guns the same case, 0 [0, 0]), part at 1
    const diamonds = await drawnBars(chart.spec, 'symbol');
    expect(diamonds.map((d) => [d.datum.where, d.datum.value === 0, d.fill])).toEqual([
      ['heavy_siege_artillery=0', true, DIRECTION_COLOURS['no clear change']],
      ['heavy_siege_artillery=1', false, DIRECTION_COLOURS.down],
      ['heavy_siege_artillery=2', true, DIRECTION_COLOURS['no clear change']],
    ]);
  });

  it("follows the scenario's headline: its first metric gets a by-variant chart of its own, first, when the system charts another (the readings of heavy-is-artillery part on p_test, the surrender system charts p_surrender)", async () => {
    const r = await runFile('test/fixtures/heavy-is-artillery.yaml', 4000);
    const surrender = systemById('surrender')!;
    const names = (x: ScenarioResult) => surrender.charts(x).map((c) => c.name).filter((n) => n.endsWith('_by_variant'));
    expect(names(r)).toEqual(['p_surrender_by_variant']);
    expect(names({ ...r, headline: ['p_test', 'p_surrender'] })).toEqual(['p_test_by_variant', 'p_surrender_by_variant']);
    // a headline led by a metric the system charts already adds nothing; every system takes it
    expect(names({ ...r, headline: ['p_surrender'] })).toEqual(['p_surrender_by_variant']);
    const volley = await runFile('scenarios/fantasy/open-field-volley.yaml', 500); // headline: [mean_volley_a_damage, p_attacker_wins]
    const fantasyNames = systemById('fantasy')!.charts(volley).map((c) => c.name).filter((n) => n.endsWith('_by_variant'));
    expect(fantasyNames).toEqual(['mean_volley_a_damage_by_variant', 'p_attacker_wins_by_variant']);
  });

  it('is left out for a metric that is 0 in every case with no change (p_castle_falls of a battle without a castle), kept when one variant moves it', async () => {
    const r = await runFile('scenarios/crusader-rex/reference-field-battle.yaml', 4000);
    expect(r.cases.every((c) => c.metrics.p_castle_falls.value === 0)).toBe(true);
    expect(variantBarsChart(r, 'p_castle_falls', 'bars')).toBeUndefined();
    expect(variantBarsChart(r, 'p_attacker_wins', 'bars')).toBeDefined();
    // a value of 0 beside a variant that moves it is drawn
    const moved: typeof r = { ...r, cases: r.cases.map((c, i) => (i === 1 ? { ...c, metrics: { ...c.metrics, p_castle_falls: { ...c.metrics.p_castle_falls, value: 0.01 } } } : c)) };
    expect(variantBarsChart(moved, 'p_castle_falls', 'bars')).toBeDefined();
  });
});

/**
 * The line paths of a drawn chart (vega's SVG), in drawing order: each path's panel and `d`,
 * colour, width and dashes. Two paths with the same `d` are lines drawn over each other.
 */
async function linePaths(spec: Record<string, unknown>): Promise<{ d: string; stroke: string; width: number; dash: string }[]> {
  const require = createRequire(import.meta.url);
  const vega = require('vega') as typeof VegaModule;
  const { compile } = require('vega-lite') as typeof VegaLiteModule;
  const view = new vega.View(vega.parse(compile(spec as never).spec), { renderer: 'none', logLevel: vega.Error });
  const svg = await view.toSVG();
  view.finalize();
  const out: { d: string; stroke: string; width: number; dash: string }[] = [];
  // a panel's lines are one path group (a line per series in it): the same `d` in two panels is not an overlap
  svg.split('_pathgroup"').slice(1).forEach((group, panel) => {
    for (const g of group.split('<g class="mark-line role-mark').slice(1)) {
      const body = g.slice(0, g.indexOf('</g>'));
      for (const p of body.match(/<path [^>]*>/g) ?? []) {
        const attr = (n: string) => new RegExp(` ${n}="([^"]*)"`).exec(p)?.[1] ?? '';
        out.push({ d: `${panel} ${attr('transform')} ${attr('d')}`, stroke: attr('stroke'), width: Number(attr('stroke-width') || 1), dash: attr('stroke-dasharray') });
      }
    }
  });
  return out;
}

describe('lines drawn over each other', () => {
  // Two variants that agree draw the same line: the one drawn first (the baseline) was hidden
  // under the other, both solid, and the legend named a line nobody could see (cr-storm-top-up:
  // top-up-retest plays the same trials as top-up-always). Each line drawn first must still show:
  // a line drawn over it has gaps (dashes), or is narrower.
  const shows = (lines: { d: string; width: number; dash: string }[]) => {
    const hidden: string[] = [];
    lines.forEach((a, i) => {
      const over = lines.slice(i + 1).filter((b) => b.d === a.d);
      if (over.some((b) => b.dash === '' && b.width >= a.width)) hidden.push(`${JSON.stringify(a).slice(0, 80)}… under ${over.length}`);
    });
    return hidden;
  };

  it('leave every variant in sight: the sweep chart, and Crusader Rex attrition and survivors, in one panel and in small multiples', async () => {
    const file = path.join(ROOT, 'scenarios/crusader-rex/storm-or-starve.yaml');
    // a third variant that is the first one again: the same trials, the same lines
    const text = readFileSync(file, 'utf8').replace('variants:\n', 'variants:\n  - name: storm-too\n    set: { policy.storm: always }\n');
    const run = async (t: string) => {
      const v = validateText(file, t);
      if (!v.ok) throw new Error(JSON.stringify(v.issues));
      return runScenario(v.value, { trials: 400 });
    };
    const swept = await run(text);
    expect(swept.variants).toEqual(['storm-too', 'storm', 'starve']);
    // no sweep: the cases are few, a line per case in one panel
    const one = await run(text.replace('sweep:\n  turns: [1, 2, 3, 4]\n', ''));
    expect(one.cases).toHaveLength(3);
    let overlaps = 0;
    for (const r of [swept, one]) {
      for (const chart of systemById('crusader-rex')!.charts(r)) {
        if (!['attrition', 'survivors'].includes(chart.name) && !chart.name.endsWith('_sweep')) continue;
        const lines = await linePaths(chart.spec);
        overlaps += lines.filter((a, i) => lines.slice(i + 1).some((b) => b.d === a.d)).length;
        expect(shows(lines), `${chart.name} (${r.cases.length} cases)`).toEqual([]);
      }
    }
    expect(overlaps).toBeGreaterThan(10); // the identical variants' lines were drawn over each other
  });
});

describe('a conditional mean in a lead chart', () => {
  it("says where it is drawn that it averages only the trials with its event (mean_breach_round: only the trials with a breach)", async () => {
    const r = await runFile('scenarios/fantasy/climbers-dc.yaml', 500);
    expect(r.conditionalOn).toEqual({ mean_breach_round: 'p_breach' });
    const sweep = systemById('fantasy')!.charts(r).find((c) => c.name.endsWith('_sweep'))!;
    const panels = (sweep.spec.hconcat as { title: unknown }[]).map((p) => p.title);
    expect(panels).toContainEqual({ text: 'mean_breach_round', subtitle: ['only the trials', 'counted by p_breach'] });
    expect(panels).toContain('p_attacker_wins');
    expect(sweep.caption).toContain('mean_breach_round is a mean over only the trials counted by p_breach: where p_breach differs, its points average different trials');
    // a headline led by it, over two settings: the heatmap's caption says it too
    const grid = await runFile('scenarios/fantasy/wall-hp-dc-grid.yaml', 200);
    const heat = heatmapChart({ ...grid, headline: ['mean_breach_round'] }, 'p_attacker_wins', 'h')!;
    expect(heat.caption).toContain('mean_breach_round is a mean over only the trials counted by p_breach');
    expect(heatmapChart(grid, 'p_attacker_wins', 'h')!.caption).not.toContain('counted by');
  });
});

describe("a sweep chart's axis over fractional values", () => {
  it('ticks at each swept value, labelled as written (0.5, 0.75, 1: not 0.50, 0.60, … with no tick at 0.75)', async () => {
    const r = await runFile('scenarios/surrender/port-blockade.yaml', 500); // structure.blockade_chance: [0.25, 0.5, 0.75, 1.0]
    const chart = sweepChart(r, ['p_surrender', 'p_test'], 'p_surrender', 's')!;
    const require = createRequire(import.meta.url);
    const vega = require('vega') as typeof VegaModule;
    const { compile } = require('vega-lite') as typeof VegaLiteModule;
    const view = new vega.View(vega.parse(compile(chart.spec as never).spec), { renderer: 'none', logLevel: vega.Error });
    const svg = await view.toSVG();
    view.finalize();
    // every x-axis (a panel each) labelled with the swept values, nothing else
    const axes = svg.split('aria-label="X-axis').slice(1).map((a) => [...a.slice(0, a.indexOf('aria-label="Y-axis') >>> 0).matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).filter((t) => /^[\d.]+$/.test(t)));
    expect(axes.length).toBe(2);
    for (const labels of axes) expect(labels).toEqual(['0.25', '0.5', '0.75', '1']);
  });
});

describe('heatmap cell labels beside the target contour', () => {
  it('a value that two decimals would show as the target gets the digits that tell it apart (one label function: report and workbench)', async () => {
    const { cellLabel } = await import('../src/text/cell-label.js');
    expect(cellLabel(0.4978, true, 0.5)).toBe('0.498');
    expect(cellLabel(0.50004, true, 0.5)).toBe('0.50004');
    expect(cellLabel(0.5, true, 0.5)).toBe('0.50');
    expect(cellLabel(0.4878, true, 0.5)).toBe('0.49');
    expect(cellLabel(0.4978, true)).toBe('0.50');
    // a probability never rounds to a certainty it is not
    expect(cellLabel(0.9997, true)).toBe('>0.99');
    expect(cellLabel(0.0003, true)).toBe('<0.01');
    expect(cellLabel(1, true)).toBe('1');
    // a mean: its own decimals, and the digits that set it apart from a target on it
    expect(cellLabel(12.34, false)).toBe('12.3');
    expect(cellLabel(12.34, false, 12.3)).toBe('12.34');
    expect(cellLabel(11.97, false, 12)).toBe('11.97');
    expect(cellLabel(3.456, false)).toBe('3.46');
    expect(cellLabel(0.0042, false)).toBe('0.0042');
    const { sweepChart } = await import('../src/serve/sweep-chart.js');
    const cells = [0.4978, 0.6, 0.3, 0.5021].map((v, i) => ({ params: { a: i % 2, b: i >> 1 }, metric: { value: v, ci_low: v - 0.01, ci_high: v + 0.01 } }));
    const labels = (target: number | undefined) =>
      JSON.stringify(sweepChart(cells as never, { axes: [{ path: 'a', values: [0, 1] }, { path: 'b', values: [0, 1] }], probability: true, target, metric: 'p' } as never))
        .match(/"label":"[^"]*"/g)!
        .filter((l) => /\d/.test(l) && !l.includes('target'));
    expect(labels(0.5)).toEqual(['"label":"0.498"', '"label":"0.60"', '"label":"0.30"', '"label":"0.502"']);
    expect(labels(undefined)).toEqual(['"label":"0.50"', '"label":"0.60"', '"label":"0.30"', '"label":"0.50"']);
  });
});

describe("the workbench sweep chart's tooltip", () => {
  it('writes a value and its interval by the reports\' rule: 0.999996 is not 1.0000 (line, solve marks and heatmap)', async () => {
    const { sweepChart } = await import('../src/serve/sweep-chart.js');
    type Layer = { data?: { values: Record<string, unknown>[] }; encoding?: { tooltip?: { field: string; format?: string }[] } };
    const metric = (value: number, lo: number, hi: number) => ({ value, ci_low: lo, ci_high: hi });
    const near = metric(0.999996, 0.99998, 1);
    const line = sweepChart([{ params: { a: 1 }, metric: near }, { params: { a: 2 }, metric: metric(0.5, 0.49, 0.51) }] as never, {
      axes: [{ path: 'a', values: [1, 2] }],
      metric: 'p',
      probability: true,
      target: 0.9,
      solve: { value: 1, at: near } as never,
    }) as { data: { values: Record<string, unknown>[] }; layer: Layer[] };
    const heat = sweepChart([0, 1, 2, 3].map((i) => ({ params: { a: i % 2, b: i >> 1 }, metric: i === 0 ? near : metric(0.3, 0.29, 0.31) })) as never, {
      axes: [{ path: 'a', values: [0, 1] }, { path: 'b', values: [0, 1] }],
      metric: 'p',
      probability: true,
    }) as { data: { values: Record<string, unknown>[] }; layer: Layer[] };
    for (const chart of [line, heat]) {
      const tips = chart.layer.filter((l) => l.encoding?.tooltip);
      expect(tips.length).toBeGreaterThan(0);
      for (const l of tips) {
        // no field is given a fixed number of decimals: the shown text carries the value and its interval
        expect(l.encoding!.tooltip!.filter((t) => t.format !== undefined)).toEqual([]);
        expect(l.encoding!.tooltip!.at(-1)).toMatchObject({ field: 'shown', title: 'p [95% interval]' });
        for (const d of (l.data ?? chart.data).values) if (d.value === 0.999996) expect(d.shown).toBe('0.999996 [0.99998, 1]');
      }
    }
    expect(line.data.values.map((d) => d.shown)).toEqual(['0.999996 [0.99998, 1]', '0.5000 [0.4900, 0.5100]']);
    expect(heat.data.values[0].shown).toBe('0.999996 [0.99998, 1]');
  });
});
