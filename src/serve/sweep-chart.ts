/**
 * Vega-Lite specs of a workbench sweep: one parameter -> the metric as a line with its 95% band
 * (and the target and the solve answer marked); two -> a heatmap with the target contour drawn
 * between the cells on either side of it. Pure functions: data inline, as the reports' charts.
 */
import type { Metric, SolveResult } from '../api.js';
import { cellLabel } from '../text/cell-label.js';
import { showInterval } from '../report/format.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/**
 * The width the page gives a sweep chart is the whole chart's, axes and legend included, so the
 * chart fits its box beside the embed's actions button ("⋯") instead of running under it.
 */
const FIT_X = { type: 'fit-x', contains: 'padding' };

export interface SweepCell {
  params: Record<string, unknown>;
  metric: Metric | undefined;
}

export interface SweepChartOptions {
  /** Each swept path with all its values, ascending (a partial sweep's cells may have fewer). */
  axes: { path: string; values: number[] }[];
  metric: string;
  probability: boolean;
  target?: number;
  solve?: SolveResult;
}

/** The chart of a finished (or partial) sweep. */
export function sweepChart(cells: SweepCell[], o: SweepChartOptions): Record<string, unknown> {
  return o.axes.length === 1 ? lineChart(cells, o) : heatmap(cells, o);
}

function num(x: unknown): number {
  return typeof x === 'number' ? x : Number(x);
}

/**
 * An axis that ticks at the swept values (when there are few), each labelled as written: vega's
 * own format rounds every label to its tick step's digits, which labelled a sweep 0.5, 0.75, 1
 * "0.5, 0.8, 1.0". Integers as integers; other values as JavaScript writes them (0.75, 1).
 */
function axisAt(values: number[], title: string): Record<string, unknown> {
  const xs = [...new Set(values)].sort((a, b) => a - b);
  const listed = xs.length > 0 && xs.length <= 25;
  return {
    title,
    ...(listed ? { values: xs } : {}),
    ...(xs.every(Number.isInteger) ? { format: 'd' } : listed ? { labelExpr: "'' + datum.value" } : {}),
  };
}

function lineChart(cells: SweepCell[], o: SweepChartOptions): Record<string, unknown> {
  const p = o.axes[0].path;
  const values = cells
    .filter((c) => c.metric && Number.isFinite(c.metric.value))
    .map((c) => ({ x: num(c.params[p]), value: c.metric!.value, lo: c.metric!.ci_low, hi: c.metric!.ci_high, shown: shownText(c.metric!.value, c.metric!.ci_low, c.metric!.ci_high) }));
  const x = { field: 'x', type: 'quantitative', axis: axisAt(values.map((v) => v.x), p), scale: { zero: false, nice: false } };
  const y = { field: 'value', type: 'quantitative', title: o.metric, scale: { zero: false } };
  const layers: Record<string, unknown>[] = [
    { mark: { type: 'area', opacity: 0.2, color: '#4c78a8' }, encoding: { x, y: { field: 'lo', type: 'quantitative', title: o.metric, scale: { zero: false } }, y2: { field: 'hi' } } },
    { mark: { type: 'line', color: '#4c78a8', point: { filled: true, size: 40 } }, encoding: { x, y, tooltip: tooltip(o.metric, p) } },
  ];
  if (o.target !== undefined) {
    // across the whole plot: no x
    layers.push({
      data: { values: [{ target: o.target, label: `target ${o.target}` }] },
      mark: { type: 'rule', strokeDash: [6, 4], color: '#c0392b' },
      encoding: { y: { field: 'target', type: 'quantitative' } },
    });
  }
  const s = o.solve;
  if (s && s.value !== undefined && s.at) {
    const mark = (x: number, m: Metric, label: string) => ({ x, value: m.value, lo: m.ci_low, hi: m.ci_high, shown: shownText(m.value, m.ci_low, m.ci_high), label });
    const marks = [mark(s.value, s.at, `answer ${s.value}`)];
    if (s.neighbour) marks.push(mark(s.neighbour.value, s.neighbour.metric, `neighbour ${s.neighbour.value}`));
    layers.push(
      { data: { values: marks }, mark: { type: 'rule', color: '#c0392b', strokeWidth: 2 }, encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
      {
        data: { values: marks },
        mark: { type: 'point', shape: 'diamond', filled: true, size: 110, color: '#c0392b' },
        encoding: { x, y: { field: 'value', type: 'quantitative' }, tooltip: tooltip(o.metric, p) },
      },
      {
        data: { values: marks },
        mark: { type: 'text', dy: -14, fontWeight: 'bold', color: '#c0392b' },
        encoding: { x, y: { field: 'hi', type: 'quantitative' }, text: { field: 'label' } },
      },
    );
  }
  return { $schema: SCHEMA, width: 'container', height: 300, autosize: FIT_X, data: { values }, layer: layers };
}

/**
 * A value with its 95% interval as the tooltip says it, by the reports' rule (report/format.ts
 * `show`): 0.999996 is `0.999996`, never the `1.0000` a fixed 4 decimals would write.
 */
function shownText(value: number | null | undefined, lo: number | null | undefined, hi: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '';
  return showInterval(value, lo ?? NaN, hi ?? NaN);
}

/** What a point's tooltip says: the swept value(s), then the metric with its interval (`shown`). */
function tooltip(metric: string, ...axes: string[]): Record<string, unknown>[] {
  return [...axes.map((path, i) => ({ field: i === 0 ? 'x' : 'y', type: 'quantitative', title: path })), { field: 'shown', type: 'nominal', title: `${metric} [95% interval]` }];
}

/** The edges of a cell per swept value: halfway to each neighbour (an uneven list gets uneven cells), the ends as wide as their neighbour's half-gap. */
export function cellEdges(values: number[]): Map<number, [number, number]> {
  const xs = [...new Set(values)].sort((a, b) => a - b);
  const out = new Map<number, [number, number]>();
  xs.forEach((x, i) => {
    const before = i > 0 ? (x - xs[i - 1]) / 2 : undefined;
    const after = i + 1 < xs.length ? (xs[i + 1] - x) / 2 : undefined;
    const lo = before ?? after ?? 0.5;
    const hi = after ?? before ?? 0.5;
    out.set(x, [x - lo, x + hi]);
  });
  return out;
}

/**
 * The heatmap: each cell around its values (edges halfway to the neighbouring values); the target
 * contour is the set of cell edges between a cell below the target and its neighbour at or above it.
 */
function heatmap(cells: SweepCell[], o: SweepChartOptions): Record<string, unknown> {
  const [ax, ay] = o.axes;
  const ex = cellEdges(ax.values);
  const ey = cellEdges(ay.values);
  const values = cells.map((c) => {
    const x = num(c.params[ax.path]);
    const y = num(c.params[ay.path]);
    const [x0, x1] = ex.get(x) ?? [x - 0.5, x + 0.5];
    const [y0, y1] = ey.get(y) ?? [y - 0.5, y + 0.5];
    const m = c.metric;
    const v = m && Number.isFinite(m.value) ? m.value : null;
    return { x, y, x0, x1, y0, y1, value: v, lo: m?.ci_low ?? null, hi: m?.ci_high ?? null, label: v === null ? '' : cellLabel(v, o.probability, o.target), shown: shownText(v, m?.ci_low, m?.ci_high) };
  });
  const layers: Record<string, unknown>[] = [
    {
      mark: { type: 'rect', stroke: 'white', strokeWidth: 0.5 },
      encoding: {
        x: { field: 'x0', type: 'quantitative', axis: axisAt(ax.values, ax.path), scale: { zero: false, nice: false } },
        x2: { field: 'x1' },
        y: { field: 'y0', type: 'quantitative', axis: axisAt(ay.values, ay.path), scale: { zero: false, nice: false } },
        y2: { field: 'y1' },
        color: { field: 'value', type: 'quantitative', title: o.metric, scale: o.probability ? { scheme: 'viridis', domain: [0, 1] } : { scheme: 'viridis' } },
        tooltip: tooltip(o.metric, ax.path, ay.path),
      },
    },
  ];
  if (cells.length <= 200) {
    // a label in black on the light (yellow) end of viridis, white on the dark: a probability's
    // scale is [0, 1], a mean's its own cells' range
    const shown = values.map((c) => c.value).filter((x): x is number => x !== null);
    const light = o.probability || shown.length === 0 ? 0.55 : Math.min(...shown) + 0.55 * (Math.max(...shown) - Math.min(...shown));
    layers.push({
      mark: { type: 'text', fontSize: 10 },
      encoding: {
        x: { field: 'x', type: 'quantitative' },
        y: { field: 'y', type: 'quantitative' },
        text: { field: 'label' },
        color: { condition: { test: `datum.value > ${light}`, value: 'black' }, value: 'white' },
      },
    });
  }
  if (o.target !== undefined) {
    const segments = contour(values, o.target, ex, ey);
    if (segments.length > 0) {
      layers.push({
        data: { values: segments },
        mark: { type: 'rule', color: '#ff4136', strokeWidth: 3, strokeCap: 'round', clip: true }, // clipped to the plot: a round cap meeting the frame stuck out past it
        encoding: { x: { field: 'x', type: 'quantitative' }, x2: { field: 'x2' }, y: { field: 'y', type: 'quantitative' }, y2: { field: 'y2' } },
      });
    }
  }
  return { $schema: SCHEMA, width: 'container', height: 340, autosize: FIT_X, data: { values }, layer: layers };
}

/** Cell edges separating values below the target from values at or above it (each cell's edges from `cellEdges`). */
export function contour(
  cells: { x: number; y: number; value: number | null }[],
  target: number,
  ex: Map<number, [number, number]> = cellEdges(cells.map((c) => c.x)),
  ey: Map<number, [number, number]> = cellEdges(cells.map((c) => c.y)),
): { x: number; x2: number; y: number; y2: number }[] {
  const at = new Map<string, number | null>();
  const xs = [...new Set(cells.map((c) => c.x))].sort((a, b) => a - b);
  const ys = [...new Set(cells.map((c) => c.y))].sort((a, b) => a - b);
  for (const c of cells) at.set(`${c.x}|${c.y}`, c.value);
  const side = (x: number, y: number) => {
    const v = at.get(`${x}|${y}`);
    return v === null || v === undefined ? undefined : v >= target;
  };
  const edges = (e: Map<number, [number, number]>, v: number) => e.get(v) ?? [v - 0.5, v + 0.5];
  const out: { x: number; x2: number; y: number; y2: number }[] = [];
  for (let i = 0; i < xs.length; i++) {
    const [x0, x1] = edges(ex, xs[i]);
    for (let j = 0; j < ys.length; j++) {
      const [y0, y1] = edges(ey, ys[j]);
      const s = side(xs[i], ys[j]);
      if (s === undefined) continue;
      if (i + 1 < xs.length) {
        const r = side(xs[i + 1], ys[j]);
        if (r !== undefined && r !== s) out.push({ x: x1, x2: x1, y: y0, y2: y1 });
      }
      if (j + 1 < ys.length) {
        const u = side(xs[i], ys[j + 1]);
        if (u !== undefined && u !== s) out.push({ x: x0, x2: x1, y: y1, y2: y1 });
      }
    }
  }
  return out;
}
