/**
 * Vega-Lite spec builders shared by the rules systems' charts.ts. Pure functions: a spec is
 * plain data with its values inline, so each chart file stands alone and renders offline (the
 * static report draws it to SVG with vega; a page can draw the same spec live).
 *
 * What a designer must be able to trust in every chart: every case is drawn (small multiples
 * when there are too many lines for one panel, never "the first 12"), every line can be told
 * from the others (full legend labels, one colour per line within a panel), integer axes tick
 * on integers, and bars that are compared share one scale.
 */
import type { Estimate } from '../stats/intervals.js';
import { cellLabel } from '../text/cell-label.js';
import { showCount } from '../text/count.js';
import type { CaseResult, ChartSpec, ScenarioResult } from './types.js';

export const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** The target a sweep's answer is read against (a fair fight: 50%). */
export const DEFAULT_TARGET = 0.5;

/** At most this many lines share one panel; beyond it a chart becomes small multiples. */
const MAX_LINES = 8;

/**
 * At most this many small multiples in one chart (nine rows of four). Thousands of panels overflow vega's
 * expression parser on the facet and take gigabytes to draw. Beyond it a chart draws an evenly spaced sample of its panels and
 * says so in its caption; every case is still in the CSV files.
 */
export const MAX_PANELS = 36;

/** At most this many variants, and rows (variants x sweep points), in a by-variant bar chart; beyond them a sample (said in its caption). */
const MAX_BAR_VARIANTS = 48;
const MAX_BAR_ROWS = 240;

/**
 * An evenly spaced sample of `n` items, at most `most`, first and last included (indices in order).
 * @example sampleIndices(10, 4) // [0, 3, 6, 9]
 */
export function sampleIndices(n: number, most: number): number[] {
  if (n <= most) return Array.from({ length: n }, (_, i) => i);
  if (most <= 1) return [0];
  return Array.from({ length: most }, (_, i) => Math.round((i * (n - 1)) / (most - 1)));
}

/**
 * A layout's panels cut to an evenly spaced sample of at most `most` (the first and the last
 * kept) when it has more: `kept` the panels kept (undefined: every one), `all` how many it had,
 * `cases` the result's cases in them (the chart draws those alone, and says so in its caption:
 * sampleCaption). The layout's `panels` become the kept ones.
 */
export function samplePanels(result: ScenarioResult, layout: SeriesLayout, most = MAX_PANELS): { kept: Set<string> | undefined; all: number; cases: CaseResult[] } {
  const all = layout.panels.length;
  if (!layout.panel || all <= most) return { kept: undefined, all, cases: result.cases };
  const kept = new Set(sampleIndices(all, most).map((i) => layout.panels[i]));
  layout.panels = layout.panels.filter((p) => kept.has(p));
  const panel = layout.panel;
  return { kept, all, cases: result.cases.filter((c) => kept.has(panel(c))) };
}

/** The start of a sampled chart's caption: how many of its panels (or rows of panels) it draws, and where every case is. */
export function sampleCaption(shown: number, all: number, per: string, csv: string, unit: 'panel' | 'row' = 'panel'): string {
  return `a sample: ${shown} of the ${showCount(all)} ${unit}s, evenly spaced (the first and the last among them), one ${unit} per ${per}; every case is in ${csv}; `;
}

/** How a (case, variant) is labelled in a legend: the variant, then the swept values. */
export function seriesLabel(result: ScenarioResult, c: CaseResult): string {
  const parts: string[] = [];
  if (result.variants.length > 1) parts.push(c.variant);
  for (const p of result.params) parts.push(`${shortName(p)}=${String(c.params[p])}`);
  return parts.length > 0 ? parts.join(', ') : c.variant;
}

/** The last segment of a dotted path: `structure.surrender_level` -> `surrender_level`. */
export function shortName(path: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? path : path.slice(i + 1);
}

/**
 * Axis ticks for a count (turns, rounds, steps): integers only, about one per `pxPerTick`
 * pixels, at a step of 1, 2 or 5 x 10^k. vega's own `tickMinStep` is not honoured by the
 * headless renderer (a 3-turn axis ticked `1 2 2 3 3`), so the ticks are listed.
 * @example integerTicks([1, 2, 3], 480) // [1, 2, 3]
 */
export function integerTicks(xs: number[], width: number, pxPerTick = 30): number[] {
  // a loop, not Math.min(...xs): a spread passes every value as an argument on the stack, and a
  // big sweep's curves (10,000 cases x their turns) overflows it
  let min = Infinity;
  let max = -Infinity;
  for (const x of xs) {
    if (!Number.isFinite(x)) continue;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (min > max) return [];
  const lo = Math.ceil(min);
  const hi = Math.floor(max);
  const most = Math.max(2, Math.floor(width / pxPerTick));
  let step = 1;
  for (let k = 1; (hi - lo) / step > most; k *= 10) {
    step = [1, 2, 5].map((m) => m * k).find((s) => (hi - lo) / s <= most) ?? 10 * k;
  }
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
  return out;
}

/**
 * The axis of a sweep over fractional values: a tick at each swept value, labelled as written
 * (0.5, 0.75, 1: vega's own format gives every label its tick step's digits, and its own ticks
 * fall between the points), while each label has room (about 40 pixels); else vega's own ticks.
 */
export function sweptAxis(xs: number[], width: number): { axis?: Record<string, unknown> } {
  const values = [...new Set(xs.filter(Number.isFinite))].sort((a, b) => a - b);
  if (values.length === 0 || values.length > Math.max(2, Math.floor(width / 40))) return {};
  return { axis: { values, labelExpr: "'' + datum.value" } };
}

/** A Vega-Lite axis for an integer field over `xs`. */
export function integerAxis(xs: number[], width: number): Record<string, unknown> {
  return { values: integerTicks(xs, width), format: 'd' };
}

/** One dimension cases differ in: the variant, or one swept parameter. */
interface Dim {
  title: string;
  of: (c: CaseResult) => string;
  values: string[];
  numeric: boolean;
}

function dimsOf(result: ScenarioResult): Dim[] {
  const dims: Dim[] = [];
  const distinct = (f: (c: CaseResult) => string) => [...new Set(result.cases.map(f))];
  if (result.variants.length > 1) dims.push({ title: 'variant', of: (c) => c.variant, values: result.variants.slice(), numeric: false });
  for (const p of result.params) {
    const of = (c: CaseResult) => String(c.params[p]);
    dims.push({ title: shortName(p), of, values: distinct(of), numeric: result.cases.every((c) => typeof c.params[p] === 'number') });
  }
  return dims;
}

/**
 * How the cases of a run are laid out in a curve chart: a `panel` per facet (null: one panel)
 * and a `color` per line within it. All cases in one panel when they are few; otherwise the
 * colour is the variant (readings compared line by line) or the last swept parameter with few
 * enough values, and the other dimensions make the panels; a panel per case when nothing fits.
 */
export interface SeriesLayout {
  panel: ((c: CaseResult) => string) | null;
  panels: string[];
  color: (c: CaseResult) => string;
  colors: string[];
  colorTitle: string | null;
  /** The colour is an ordered number (a sequential scheme reads better than a categorical one). */
  ordered: boolean;
}

export function seriesLayout(result: ScenarioResult, maxLines = MAX_LINES): SeriesLayout {
  const labels = result.cases.map((c) => seriesLabel(result, c));
  const all: SeriesLayout = {
    panel: null,
    panels: [],
    color: (c) => seriesLabel(result, c),
    colors: labels,
    colorTitle: null,
    ordered: false,
  };
  if (result.cases.length <= maxLines) return all;
  const dims = dimsOf(result);
  const pick = dims.find((d) => d.title === 'variant' && d.values.length <= maxLines) ?? [...dims].reverse().find((d) => d.values.length <= maxLines);
  const label = (ds: Dim[], c: CaseResult) => ds.map((d) => (d.title === 'variant' ? d.of(c) : `${d.title}=${d.of(c)}`)).join(', ');
  if (!pick) {
    return { panel: (c) => seriesLabel(result, c), panels: labels, color: () => 'all', colors: ['all'], colorTitle: null, ordered: false };
  }
  const rest = dims.filter((d) => d !== pick);
  const panel = (c: CaseResult) => label(rest, c);
  return {
    panel,
    panels: [...new Set(result.cases.map(panel))],
    color: pick.of,
    colors: pick.values,
    colorTitle: pick.title === 'variant' ? null : pick.title,
    ordered: pick.numeric && pick.values.length > 2,
  };
}

/**
 * The colours of a chart's series (cases, variants: at most MAX_LINES): dark grey first (the
 * baseline), then hues that are neither a direction's blue nor its orange (DIRECTION_COLOURS),
 * so a tuned line drawn orange is never read as a change down (Vega's default scheme began blue,
 * orange). After ColorBrewer's Dark2, without its orange.
 */
export const SERIES_COLOURS = ['#333333', '#1b9e77', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#8c564b', '#b07aa1'] as const;

/**
 * The colour scale over `domain` (at most MAX_LINES names: series, variants, unit types):
 * SERIES_COLOURS, or viridis's ordered hues when the names are an ordered number.
 */
export const seriesScale = (domain: readonly string[], ordered = false) =>
  ordered ? { domain, scheme: { name: 'viridis', extent: [0, 0.85] } } : { domain, range: domain.map((_, i) => SERIES_COLOURS[i % SERIES_COLOURS.length]) };

/** The colour encoding of a layout: full legend labels (never cut), ordered hues for numbers. */
function colorEncoding(layout: SeriesLayout, field = 'series'): Record<string, unknown> {
  const scale = seriesScale(layout.colors, layout.ordered);
  return {
    field,
    type: layout.ordered ? 'ordinal' : 'nominal',
    title: layout.colorTitle,
    sort: layout.colors,
    scale,
    legend: layout.colors.length > 1 ? { symbolOpacity: 1, symbolType: 'stroke', labelLimit: 0, titleLimit: 0 } : null,
  };
}

/**
 * A row or column facet (of a row x column grid) in a fixed order. vega-lite 5 places a grid's
 * cells wrongly when a row lacks one of the columns and the facet has a custom sort (the empty
 * cell's sort index is undefined and sorts first, pushing the row's panels one column over), so
 * the order goes into the value itself (`000 field`), sorted as text, and the header hides it.
 */
export function facetKey(order: string[], v: string): string {
  const i = order.indexOf(v);
  return `${String(i < 0 ? order.length : i).padStart(3, '0')} ${v}`;
}

export function keyedFacet(field: string): Record<string, unknown> {
  return { field, type: 'nominal', title: null, sort: 'ascending', header: { labelExpr: 'substring(datum.value, 4)' } };
}

/** Dash patterns, one per line of a panel, so that lines drawn over each other (two readings that agree) both show. */
const DASHES = [[1, 0], [7, 3], [2, 2], [9, 3, 2, 3], [4, 4], [1, 3], [12, 4], [4, 2, 1, 2]];

/** A strokeDash encoding on the colour's field: merged into the colour legend (`type` as the colour's, so they merge). */
export function dashEncoding(domain: string[], field = 'series', title: string | null = null, type: 'nominal' | 'ordinal' = 'nominal'): Record<string, unknown> {
  return { field, type, title, sort: domain, scale: { domain, range: domain.map((_, i) => DASHES[i % DASHES.length]) } };
}

/** Point shapes, one per line, so that lines of neighbouring hues (viridis's dc 9, 12, 14) tell apart by their marks too. */
const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down', 'triangle-right', 'wedge'];

/** A shape encoding on the colour's field: merged into the colour legend. */
export function shapeEncoding(domain: string[], field = 'series', title: string | null = null, type: 'nominal' | 'ordinal' = 'nominal'): Record<string, unknown> {
  return { field, type, title, sort: domain, scale: { domain, range: domain.map((_, i) => SHAPES[i % SHAPES.length]) } };
}

/**
 * What a chart's bands show, said truly: where the widest 95% interval is too narrow to be seen
 * beside the line (under 3% of the axis: 4 pixels of a small panel), the caption says how narrow, not "bands are 95%
 * intervals" over bands nobody can see.
 */
export function bandsCaption(values: readonly Record<string, unknown>[], axisSpan: number): string {
  let widest = 0;
  for (const v of values) {
    const half = ((v.hi as number) - (v.lo as number)) / 2;
    if (Number.isFinite(half)) widest = Math.max(widest, half);
  }
  if (!(axisSpan > 0) || widest / axisSpan >= 0.03) return 'bands are 95% intervals';
  return `95% intervals at most ±${fmtTarget(Number(widest.toPrecision(2)))}, too narrow to see beside the lines`;
}

/** Wrap a one-panel spec into small multiples when the layout has panels. */
function facetted(
  layout: SeriesLayout,
  base: Record<string, unknown>,
  inner: Record<string, unknown>,
  size: { width: number; height: number },
): Record<string, unknown> {
  if (!layout.panel) return { ...base, ...size, ...inner };
  return {
    ...base,
    facet: { field: 'panel', type: 'nominal', title: null, sort: layout.panels },
    ...wrapped(layout.panels.length, wrapColumns(layout.panels.length)),
    spec: { width: 200, height: 140, ...inner },
  };
}

/**
 * The `columns` of `n` wrapped small multiples, with an x-axis under every panel when the last
 * row is short: vega-lite draws a wrapped facet's shared x-axes once per column, under the
 * last row, so a column whose last cell is empty got an axis under nothing and none under its
 * panels (5 panels in 3 columns: the third column's axis under the empty sixth cell).
 */
export function wrapped(n: number, columns: number): { columns: number; resolve?: Record<string, unknown> } {
  return n > columns && n % columns !== 0 ? { columns, resolve: { axis: { x: 'independent' } } } : { columns };
}

/**
 * Columns for `n` small multiples: at most 4 (a laptop's width), as few empty slots in the
 * last row as possible (6 panels: 3 + 3, not 4 + 2).
 */
export function wrapColumns(n: number, most = 4): number {
  if (n <= most) return Math.max(1, n);
  let best = most;
  for (let c = most; c >= 2; c--) if ((Math.ceil(n / c) * c - n) < (Math.ceil(n / best) * best - n)) best = c;
  return best;
}

/**
 * A curve per (case, variant) with its 95% band: e.g. P(surrendered by turn t). Every case is
 * drawn: a big sweep becomes small multiples (see `seriesLayout`).
 */
export function curveChart(
  result: ScenarioResult,
  opts: {
    name: string;
    title: string;
    curve: string;
    x: string;
    xTitle: string;
    yTitle: string;
    probability?: boolean;
    /** x is a count (turns, rounds): integer ticks only. */
    integerX?: boolean;
  },
): ChartSpec {
  const layout = seriesLayout(result);
  // too many panels to draw: an evenly spaced sample of them (said in the caption)
  const { kept, all: allPanels, cases } = samplePanels(result, layout);
  const values: Record<string, unknown>[] = [];
  const xs: number[] = [];
  for (const c of cases) {
    const series = layout.color(c);
    const panel = layout.panel?.(c);
    for (const pt of c.curves[opts.curve] ?? []) {
      xs.push(Number(pt.x[opts.x]));
      values.push({ ...(panel !== undefined ? { panel } : {}), series, x: pt.x[opts.x], value: pt.m.value, lo: pt.m.ci_low, hi: pt.m.ci_high });
    }
  }
  const width = layout.panel ? 200 : 480;
  // probabilities on [0, 1]; a count (wall HP) from 0, its band clipped there (a normal interval can dip below)
  const nonNegative = values.every((v) => !((v.value as number) < 0));
  const yScale = opts.probability === false ? (nonNegative ? { scale: { domainMin: 0 } } : {}) : { scale: { domain: [0, 1] } };
  const inner = {
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative',
        title: opts.xTitle,
        ...(opts.integerX !== false ? { axis: integerAxis(xs, width) } : {}),
      },
      // one legend for both layers, drawn at full strength (not at the band's opacity)
      color: colorEncoding(layout),
    },
    layer: [
      {
        // the 95% band
        mark: { type: 'area', opacity: 0.25, clip: true },
        encoding: { y: { field: 'lo', type: 'quantitative', ...yScale }, y2: { field: 'hi' } },
      },
      {
        mark: { type: 'line', point: values.length <= 400 },
        encoding: {
          y: { field: 'value', type: 'quantitative', title: opts.yTitle, ...yScale },
          // in panels too: neighbouring hues of an ordered sweep (dc 9, 12, 14) tell apart by dash and point shape
          ...(layout.colors.length > 1
            ? {
                strokeDash: dashEncoding(layout.colors, 'series', layout.colorTitle, layout.ordered ? 'ordinal' : 'nominal'),
                ...(values.length <= 400 ? { shape: shapeEncoding(layout.colors, 'series', layout.colorTitle) } : {}),
              }
            : {}),
        },
      },
    ],
  };
  const title = opts.title;
  const span = opts.probability === false ? Math.max(0, ...values.map((v) => (Number.isFinite(v.hi as number) ? (v.hi as number) : 0))) : 1;
  return {
    name: opts.name,
    title,
    caption: kept
      ? `${sampleCaption(layout.panels.length, allPanels, panelWord(layout), `${opts.curve}.csv`)}${bandsCaption(values, span)}`
      : `every case${layout.panel ? `, one panel per ${panelWord(layout)}` : ''}; ${bandsCaption(values, span)}`,
    spec: facetted(layout, { $schema: SCHEMA, title, data: { values } }, inner, { width, height: 280 }),
  };
}

/** What one panel of a layout stands for: a case, or the swept values it holds (`(turns, town.rating), variant as colour`). */
export function panelWord(layout: SeriesLayout): string {
  if (layout.colors.length === 1) return 'case';
  const names = layout.panels[0]?.split(', ').map((part) => part.replace(/=.*$/, '')) ?? ['group'];
  return `${names.length > 1 ? `(${names.join(', ')})` : names[0]}, ${layout.colorTitle ?? 'variant'} as colour`;
}

/** The cases of one line through a sweep: one parameter varies, everything else is fixed. */
export interface SweepLine {
  /** The parameter that varies along the line (a dotted path). */
  along: string;
  /** The other swept parameters' values, and the variant. */
  fixed: Record<string, unknown>;
  variant: string;
  points: { x: unknown; m: Estimate }[];
}

/** Every line through a sweep along `along`, one per variant and value of the other parameters. */
export function sweepLines(result: ScenarioResult, along: string, metric: string): SweepLine[] {
  const others = result.params.filter((p) => p !== along);
  const lines = new Map<string, SweepLine>();
  for (const c of result.cases) {
    const fixed = Object.fromEntries(others.map((p) => [p, c.params[p]]));
    const key = JSON.stringify([c.variant, others.map((p) => c.params[p])]);
    let line = lines.get(key);
    if (!line) lines.set(key, (line = { along, fixed, variant: c.variant, points: [] }));
    const m = c.metrics[metric];
    if (m) line.points.push({ x: c.params[along], m });
  }
  for (const l of lines.values()) {
    if (l.points.every((p) => typeof p.x === 'number')) l.points.sort((a, b) => (a.x as number) - (b.x as number));
  }
  return [...lines.values()];
}

/**
 * Where a line through a sweep reaches a target, read as `siegesim solve` reads it: the
 * smallest value of the parameter whose metric reaches the target (at or above it when the
 * metric rises along the line, at or below when it falls), and its neighbour just short of it.
 * `resolved` is false when either 95% interval contains the target: the data cannot yet tell
 * which side that value is on.
 */
export interface Crossing {
  line: SweepLine;
  direction: 'rises' | 'falls';
  answer?: { x: unknown; m: Estimate };
  neighbour?: { x: unknown; m: Estimate };
  resolved: boolean;
  /**
   * Every swept value's estimate on one side of the target, 'above' (at or above it) or
   * 'below', on a line with no clear direction (its first and last 95% intervals overlap). Said
   * as such ("at or above 0.5 at every value", with the closest): the direction read from the
   * first and last estimates is noise there (0.80, 0.68, 0.68 read as falling, "not reached",
   * beside 0.70, 0.72, 0.74 read as rising, "reached at the lowest value"). A line that clearly
   * rises or falls keeps its direction's verdict. Read as rising, an 'above' line's answer is
   * its lowest value (reachedAtLowest's sentence when every line is so).
   */
  everywhere?: 'above' | 'below';
}

export function crossing(line: SweepLine, target: number): Crossing {
  const pts = line.points.filter((p) => Number.isFinite(p.m.value));
  // on one side of the target throughout, with no clear way it runs (its first and last intervals
  // overlap): said as such, read as rising (above it, its answer is its lowest value)
  const flat = pts.length < 2 || !(pts[0].m.ci_high < pts[pts.length - 1].m.ci_low || pts[pts.length - 1].m.ci_high < pts[0].m.ci_low);
  const side = pts.length === 0 ? undefined : pts.every((p) => p.m.value >= target) ? 'above' : pts.every((p) => p.m.value < target) ? 'below' : undefined;
  const everywhere = flat ? side : undefined;
  const rises = everywhere !== undefined || pts.length < 2 || pts[pts.length - 1].m.value >= pts[0].m.value;
  const reaches = (v: number) => (rises ? v >= target : v <= target);
  const i = pts.findIndex((p) => reaches(p.m.value));
  const answer = i >= 0 ? pts[i] : undefined;
  const neighbour = i > 0 ? pts[i - 1] : undefined;
  // reached: the whole interval lies at or beyond the target; short: the whole interval short of it
  const clearOf = (m: Estimate, reached: boolean) =>
    rises ? (reached ? m.ci_low >= target : m.ci_high < target) : reached ? m.ci_high <= target : m.ci_low > target;
  const resolved = answer !== undefined && clearOf(answer.m, true) && (neighbour === undefined || clearOf(neighbour.m, false));
  return { line, direction: rises ? 'rises' : 'falls', answer, neighbour, resolved, ...(everywhere ? { everywhere } : {}) };
}

/**
 * Where a line that does not reach the target (or is on one side of it throughout: `everywhere`)
 * lies, said the same way whichever way it runs: 'at or above' or 'below' for an `everywhere`
 * line, and for one with no answer 'below' (rising: every estimate short of the target) or
 * 'above' (falling: every estimate past it). Two near-identical lines, one read as running no
 * clear way and one as clearly falling, both above the target, read "at or above 0.5 at every
 * value" and "not reached" before (fresh-eyes helper): the same fact in two ways. Undefined
 * for a line that reaches it, or has no estimate.
 */
export function sideThroughout(k: Crossing): 'at or above' | 'above' | 'below' | undefined {
  if (k.everywhere) return k.everywhere === 'above' ? 'at or above' : 'below';
  if (k.answer || !k.line.points.some((p) => Number.isFinite(p.m.value))) return undefined;
  return k.direction === 'rises' ? 'below' : 'above';
}

/** The point of a line whose estimate is nearest the target (what a line that never reaches it shows), or undefined when none has a value. */
export function closestPoint(line: SweepLine, target: number): SweepLine['points'][number] | undefined {
  const pts = line.points.filter((p) => Number.isFinite(p.m.value));
  return pts.reduce<(typeof pts)[number] | undefined>((a, b) => (!a || Math.abs(b.m.value - target) < Math.abs(a.m.value - target) ? b : a), undefined);
}

/**
 * `siegesim solve`'s command for the value a sweep only brackets: when some line's first value
 * that reaches the target and its neighbour short of it are whole numbers more than 1 apart
 * (solve searches whole values), the command that finds the value between them; else undefined
 * (adjacent values: the sweep's answer is solve's).
 */
export function solveCommand(result: ScenarioResult, ks: readonly Crossing[], param: string, metric: string, target: number): string | undefined {
  const gap = ks.some((k) => {
    const [a, b] = [k.answer?.x, k.neighbour?.x];
    return Number.isInteger(a) && Number.isInteger(b) && Math.abs((a as number) - (b as number)) > 1;
  });
  if (!gap) return undefined;
  const variant = result.variants.length > 1 ? ' [--variant NAME]' : '';
  return `siegesim solve ${result.file} --param ${param} --metric ${metric} --target ${target}${variant}`;
}

/** Every line's crossing, along each swept parameter in turn. */
export function crossings(result: ScenarioResult, metric: string, target = DEFAULT_TARGET): Crossing[] {
  return result.params.flatMap((p) => sweepLines(result, p, metric).map((l) => crossing(l, target)));
}

/** Whether a metric is a probability in every case that has it. */
function isProbabilityIn(result: ScenarioResult, m: string): boolean {
  return result.cases.every((c) => !c.metrics[m] || c.metrics[m].kind === 'probability');
}

/**
 * What a sweep's lead chart (sweepChart, heatmapChart) is about: the system's choice (`metrics`,
 * its main one `primary`, the chart's `name`, the target), unless the scenario has `headline:`;
 * then its metrics, its first the main one, the chart named `<first><suffix>`, and a target only
 * when the first is a probability (0.5 on a mean round count means nothing: no target line, no
 * contour and no "where it reaches" answer).
 */
function leadOf(result: ScenarioResult, metrics: string[], primary: string, name: string, target: number, suffix: string) {
  const own = result.headline;
  if (!own || own.length === 0) return { metrics, primary, name, target: target as number | undefined };
  return { metrics: [...own], primary: own[0], name: `${own[0]}${suffix}`, target: isProbabilityIn(result, own[0]) ? target : undefined };
}

/** At most this many columns of cells across a heatmap (44 px each at least): past it, the parameter with more values runs up the side. */
export const HEAT_ACROSS = 20;

/**
 * A heatmap of one metric over a 2-D sweep, the value written in each cell and the target's
 * contour drawn between the cells below it and those that reach it; one panel per variant.
 * The grid is drawn on index positions (the swept values label the axes), so the contour runs
 * along cell edges whatever the spacing of the values. A scenario's `headline:` chooses the
 * metric (leadOf): a mean is drawn on its own scale, without a contour.
 */
export function heatmapChart(result: ScenarioResult, systemMetric: string, systemName: string, systemTarget = DEFAULT_TARGET): ChartSpec | undefined {
  if (result.params.length !== 2) return undefined;
  const { primary: metric, name, target } = leadOf(result, [systemMetric], systemMetric, systemName, systemTarget, '_heatmap');
  // the first swept parameter across, the second up; past HEAT_ACROSS values across (a chart
  // wider than a page, which shrinks it past reading) the one with more values goes up instead
  const [p0, p1] = result.params;
  const v0 = distinctSorted(result, p0);
  const v1 = distinctSorted(result, p1);
  const swap = v0.length > HEAT_ACROSS && v1.length < v0.length;
  const [px, py] = swap ? [p1, p0] : [p0, p1];
  const [xsOf, ysOf] = swap ? [v1, v0] : [v0, v1];
  const ix = (c: CaseResult) => xsOf.findIndex((v) => v === c.params[px]);
  const iy = (c: CaseResult) => ysOf.findIndex((v) => v === c.params[py]);
  const probability = isProbabilityIn(result, metric);
  const values: Record<string, unknown>[] = [];
  const side = new Map<string, boolean>();
  for (const c of result.cases) {
    const m = c.metrics[metric];
    const v = m?.value;
    const x = ix(c);
    const y = iy(c);
    if (v !== undefined && Number.isFinite(v) && target !== undefined) side.set(`${c.variant}|${x}|${y}`, v >= target);
    values.push({
      kind: 'cell',
      variant: c.variant,
      x,
      y,
      value: Number.isFinite(v) ? v : null,
      label: cellLabel(v, probability, target),
      interval: m ? `[${cellLabel(m.ci_low, probability)}, ${cellLabel(m.ci_high, probability)}]` : '',
    });
  }
  // the contour: an edge between two neighbouring cells on opposite sides of the target
  for (const variant of result.variants) {
    for (let x = 0; x < xsOf.length; x++) {
      for (let y = 0; y < ysOf.length; y++) {
        const here = side.get(`${variant}|${x}|${y}`);
        if (here === undefined) continue;
        const right = side.get(`${variant}|${x + 1}|${y}`);
        if (right !== undefined && right !== here) values.push({ kind: 'edge', variant, x: x + 0.5, x2: x + 0.5, y: y - 0.5, y2: y + 0.5 });
        const up = side.get(`${variant}|${x}|${y + 1}`);
        if (up !== undefined && up !== here) values.push({ kind: 'edge', variant, x: x - 0.5, x2: x + 0.5, y: y + 0.5, y2: y + 0.5 });
      }
    }
  }
  const axis = (vals: unknown[]) => ({
    values: vals.map((_, i) => i),
    labelExpr: `${JSON.stringify(vals.map(String))}[datum.value]`,
    grid: false,
    labelAngle: 0,
  });
  const xEnc = { type: 'quantitative', scale: { domain: [-0.5, xsOf.length - 0.5], nice: false, zero: false } };
  const yEnc = { type: 'quantitative', scale: { domain: [-0.5, ysOf.length - 0.5], nice: false, zero: false } };
  // a probability on [0, 1]; a mean (a scenario's headline) from 0 to its largest value
  const top = probability ? 1 : Math.max(0, ...result.cases.map((c) => c.metrics[metric]?.value).filter((v): v is number => Number.isFinite(v))) || 1;
  const cellW = Math.max(44, Math.min(72, Math.floor(420 / xsOf.length)));
  const cellH = Math.max(28, Math.min(56, Math.floor(300 / ysOf.length)));
  const inner = {
    width: cellW * xsOf.length,
    height: cellH * ysOf.length,
    layer: [
      {
        transform: [{ filter: "datum.kind === 'cell'" }, { calculate: 'datum.x - 0.5', as: 'x0' }, { calculate: 'datum.x + 0.5', as: 'x1' }, { calculate: 'datum.y - 0.5', as: 'y0' }, { calculate: 'datum.y + 0.5', as: 'y1' }],
        mark: 'rect',
        encoding: {
          x: { field: 'x0', ...xEnc, title: px, axis: axis(xsOf) },
          x2: { field: 'x1' },
          y: { field: 'y0', ...yEnc, title: py, axis: axis(ysOf) },
          y2: { field: 'y1' },
          color: { field: 'value', type: 'quantitative', title: metric, scale: { scheme: 'viridis', domain: [0, top] } },
          tooltip: [
            { field: 'label', title: metric },
            { field: 'interval', title: '95% interval' },
          ],
        },
      },
      {
        transform: [{ filter: "datum.kind === 'cell'" }],
        mark: { type: 'text', fontSize: 11 },
        encoding: {
          x: { field: 'x', ...xEnc },
          y: { field: 'y', ...yEnc },
          text: { field: 'label' },
          color: { condition: { test: `datum.value > ${0.55 * top}`, value: 'black' }, value: 'white' },
        },
      },
      {
        transform: [{ filter: "datum.kind === 'edge'" }],
        // square caps join the segments at the contour's corners; clipped to the plot, so a segment
        // that meets the frame does not stick out past it
        mark: { type: 'rule', strokeWidth: 3.5, color: '#d62728', strokeCap: 'square', clip: true },
        encoding: { x: { field: 'x', ...xEnc }, x2: { field: 'x2' }, y: { field: 'y', ...yEnc }, y2: { field: 'y2' } },
      },
    ],
  };
  const title = { text: `${metric} over ${shortName(px)} x ${shortName(py)}`, ...(target !== undefined ? { subtitle: `red line: where ${metric} crosses ${fmtTarget(target)}` } : {}) };
  const spec =
    result.variants.length > 1
      ? { $schema: SCHEMA, title, data: { values }, facet: { column: { field: 'variant', title: null, sort: result.variants } }, spec: inner }
      : { $schema: SCHEMA, title, data: { values }, ...inner };
  const caption = `each cell's estimate (its 95% interval in the table below)${swap ? `; ${py} runs up the side (its ${ysOf.length} values would not fit across; ${px} has ${xsOf.length})` : ''}${target !== undefined ? `; the red line separates the cells below ${fmtTarget(target)} from those at or above it` : ''}${conditionalCaption(result, [metric])}`;
  return { name, title: title.text, caption, spec, lead: true, metric, ...(target !== undefined ? { target } : {}) };
}

/**
 * What a chart's caption says of the conditional means it draws (RulesSystem.conditionalOn): each
 * averages only the trials with its event, so where the event's probability differs between two
 * points, the two average different trials. Empty when it draws none.
 * @example conditionalCaption(r, ['mean_breach_round']) // '; mean_breach_round is a mean over only the trials counted by p_breach: ...'
 */
export function conditionalCaption(result: Pick<ScenarioResult, 'conditionalOn'>, metrics: readonly string[]): string {
  return metrics
    .filter((m) => result.conditionalOn?.[m] !== undefined)
    .map((m) => {
      const event = result.conditionalOn![m];
      return `; ${m} is a mean over only the trials counted by ${event}: where ${event} differs, its points average different trials`;
    })
    .join('');
}

/**
 * A one-parameter sweep: each headline metric against the swept value with its 95% interval,
 * one line per variant, the target drawn on the `primary` metric and the value that reaches it
 * ringed. A scenario's `headline:` chooses the metrics (leadOf): a mean first has no target.
 */
export function sweepChart(result: ScenarioResult, systemMetrics: string[], systemPrimary: string, systemName: string, systemTarget = DEFAULT_TARGET): ChartSpec | undefined {
  if (result.params.length !== 1) return undefined;
  const { metrics, primary, name, target } = leadOf(result, systemMetrics, systemPrimary, systemName, systemTarget, '_sweep');
  const [p] = result.params;
  const shown = metrics.filter((m) => result.cases.some((c) => c.metrics[m] && Number.isFinite(c.metrics[m].value)));
  if (shown.length === 0) return undefined;
  const numeric = result.cases.every((c) => typeof c.params[p] === 'number');
  const answers = new Set(
    (target === undefined ? [] : crossings(result, primary, target))
      .filter((k) => k.answer)
      .map((k) => `${k.line.variant}|${String(k.answer!.x)}`),
  );
  const values: Record<string, unknown>[] = [];
  for (const c of result.cases) {
    for (const m of shown) {
      const e = c.metrics[m];
      if (!e) continue;
      values.push({
        metric: m,
        variant: c.variant,
        x: c.params[p],
        value: Number.isFinite(e.value) ? e.value : null,
        lo: Number.isFinite(e.ci_low) ? e.ci_low : null,
        hi: Number.isFinite(e.ci_high) ? e.ci_high : null,
        ...(m === primary && target !== undefined ? { target } : {}),
        ...(m === primary && answers.has(`${c.variant}|${String(c.params[p])}`) ? { answer: e.value } : {}),
      });
    }
  }
  const isProbability = (m: string) => isProbabilityIn(result, m);
  const xs = result.cases.map((c) => Number(c.params[p]));
  const integer = numeric && xs.every((x) => Number.isInteger(x));
  const width = shown.length > 3 ? 190 : shown.length > 2 ? 220 : 300;
  const x = numeric
    ? { field: 'x', type: 'quantitative', title: p, scale: { zero: false }, ...(integer ? { axis: integerAxis(xs, width) } : sweptAxis(xs, width)) }
    : { field: 'x', type: 'ordinal', title: p, sort: null, axis: { labelAngle: 0 } };
  const variants = result.variants;
  const color = {
    field: 'variant',
    type: 'nominal',
    title: null,
    sort: variants,
    scale: seriesScale(variants),
    legend: variants.length > 1 ? { labelLimit: 0, symbolType: 'stroke', symbolOpacity: 1 } : null,
  };
  // a panel per metric, each on its own scale: probabilities on [0, 1], means from 0
  const panel = (m: string) => {
    const y = (field: string) => ({ field, type: 'quantitative', title: null, scale: isProbability(m) ? { domain: [0, 1] } : { zero: true } });
    const event = result.conditionalOn?.[m];
    return {
      // a conditional mean says so where it is drawn: its points average only the trials with its
      // event (in two lines: a subtitle wider than its panel pushes the panel away from the others)
      title: event !== undefined ? { text: m, subtitle: ['only the trials', `counted by ${event}`] } : m,
      width,
      height: 200,
      transform: [{ filter: `datum.metric === ${JSON.stringify(m)}` }],
      encoding: { x, color },
      layer: [
        { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y: y('lo'), y2: { field: 'hi' } } },
        // a dash and a hollow point shape per variant: two variants that agree (the same trials,
        // a rule that never fires) draw one line over the other, and both must still show
        { mark: { type: 'line', point: { filled: false, size: 45, strokeWidth: 1.5 } }, encoding: { y: y('value'), ...(variants.length > 1 ? { strokeDash: dashEncoding(variants, 'variant'), shape: shapeEncoding(variants, 'variant') } : {}) } },
        ...(m === primary
          ? [
              {
                transform: [{ filter: 'isValid(datum.target)' }],
                mark: { type: 'rule', strokeDash: [4, 3], color: '#d62728' },
                encoding: { y: { field: 'target', type: 'quantitative' }, x: null, color: null },
              },
              {
                transform: [{ filter: 'isValid(datum.answer)' }],
                mark: { type: 'point', size: 220, strokeWidth: 2, filled: false, color: '#d62728' },
                encoding: { y: { field: 'answer', type: 'quantitative' }, color: null },
              },
            ]
          : []),
      ],
    };
  };
  const title = {
    text: `${shown.length > 1 ? 'headline metrics' : shown[0]} against ${shortName(p)}`,
    ...(target !== undefined ? { subtitle: `dashed: target ${fmtTarget(target)} on ${primary}; ringed: the first value that reaches it` } : {}),
  };
  return {
    name,
    title: title.text,
    caption: `each case with its 95% interval${variants.length > 1 ? '; one line per variant' : ''}${conditionalCaption(result, shown)}`,
    lead: true,
    metric: primary,
    ...(target !== undefined ? { target } : {}),
    spec: { $schema: SCHEMA, title, data: { values }, hconcat: shown.map(panel) },
  };
}

/**
 * A change's colour by its direction, as every table of differences colours it (report/html.ts
 * DIRECTION_KEY): blue up, orange down, grey when its 95% interval holds 0. Orange and blue mean
 * nothing else in a report's tables and in its series' and variants' colours (SERIES_COLOURS,
 * VARIANT_GREYS; only the Cry Havoc melee results' 20 categories take a 20-hue scheme).
 */
export const DIRECTION_COLOURS = { up: '#1f5fa8', down: '#c86a12', 'no clear change': '#9a9a9a' } as const;

/** The direction of a change as the tables colour it: up or down when its 95% interval excludes 0. */
export function directionOf(x: { ci_low: number; ci_high: number }): keyof typeof DIRECTION_COLOURS {
  return x.ci_low > 0 ? 'up' : x.ci_high < 0 ? 'down' : 'no clear change';
}

/** A Vega-Lite colour scale of the directions (a field holding directionOf's names). */
export const DIRECTION_SCALE = { domain: Object.keys(DIRECTION_COLOURS), range: Object.values(DIRECTION_COLOURS) };

/** The variants' bars: greys (darkest the baseline), never a direction's blue or orange. */
export const VARIANT_GREYS = ['#4d4d4d', '#8c8c8c', '#b8b8b8', '#6e6e6e', '#a3a3a3', '#d0d0d0'] as const;

/**
 * A metric per variant with its 95% interval, and each variant's difference from the
 * baseline beside it. With a sweep the variants are grouped per sweep point (every group on
 * one shared scale, so bar lengths compare), and the difference panel has its zero line.
 * The variants' bars are grey (one grey, or a shade per variant with its legend when a sweep
 * groups them); the differences are coloured by direction as the tables are.
 */
/**
 * The by-variant charts (variantBarsChart, each named `<metric>_by_variant`) of the system's
 * metrics, led by one of the scenario's own first `headline:` metric when it is none of them:
 * the readings compared on the scenario's question (p_test where the surrender system charts
 * p_surrender, mean_turns in a melee), as a sweep's lead chart follows the headline (leadOf).
 */
export function variantBarsCharts(result: ScenarioResult, systemMetrics: readonly string[]): ChartSpec[] {
  const own = result.headline?.[0];
  const metrics = own !== undefined && !systemMetrics.includes(own) ? [own, ...systemMetrics] : systemMetrics;
  return metrics.flatMap((m) => variantBarsChart(result, m, `${m}_by_variant`) ?? []);
}

export function variantBarsChart(result: ScenarioResult, metric: string, name: string): ChartSpec | undefined {
  if (result.variants.length < 2) return undefined;
  const baseline = result.variants[0];
  const multi = result.cases.length > result.variants.length;
  const where = (c: CaseResult) => result.params.map((p) => `${shortName(p)}=${String(c.params[p])}`).join(', ') || 'all';
  const allGroups = [...new Set(result.cases.map(where))];
  // Too many rows to draw (thousands of variants overflow vega's stack): an
  // evenly spaced sample of the variants (the baseline first) and of the sweep points, said in the caption.
  const variants = sampleIndices(result.variants.length, MAX_BAR_VARIANTS).map((i) => result.variants[i]);
  const groups = sampleIndices(allGroups.length, Math.max(1, Math.floor(MAX_BAR_ROWS / variants.length))).map((i) => allGroups[i]);
  const keptVariants = new Set(variants);
  const keptGroups = new Set(groups);
  const sampled = variants.length < result.variants.length || groups.length < allGroups.length;
  const values: Record<string, unknown>[] = [];
  for (const c of result.cases) {
    if (sampled && (!keptVariants.has(c.variant) || !keptGroups.has(where(c)))) continue;
    const m = c.metrics[metric];
    const d = c.differences[metric];
    if (m && Number.isFinite(m.value)) values.push({ panel: 'value', where: where(c), variant: c.variant, value: m.value, lo: m.ci_low, hi: m.ci_high });
    if (d && Number.isFinite(d.value)) values.push({ panel: 'difference', where: where(c), variant: c.variant, change: directionOf(d), value: d.value, lo: d.ci_low, hi: d.ci_high });
  }
  if (values.length === 0) return undefined;
  // Nothing to draw: a metric that is 0 in every case (a castle's fall in a battle without a
  // castle), whose differences are then 0 in every trial, gives empty panels; the Answer says 0.
  if (values.every((x) => x.value === 0)) return undefined;
  // one grey when the rows are the variants; a shade each (with a legend) when a sweep groups them
  const greys = variants.map((_, i) => VARIANT_GREYS[i % VARIANT_GREYS.length]);
  const variantColour = multi
    ? { field: 'variant', type: 'nominal', title: null, sort: variants, scale: { domain: variants, range: greys }, legend: { labelLimit: 0 } }
    : { value: VARIANT_GREYS[1] };
  const changeColour = {
    field: 'change',
    type: 'nominal',
    title: 'difference',
    scale: DIRECTION_SCALE,
    legend: { orient: 'bottom', direction: 'horizontal', labelLimit: 0 },
  };
  // Both panels list the same rows, and each labels them: a difference panel without labels left
  // its bars (a single one, where the other points' differences were 0) tied to no sweep point.
  const yAxis = { labelLimit: 0 };
  const yField = () =>
    multi
      ? { y: { field: 'where', type: 'nominal', title: null, sort: groups, scale: { domain: groups }, axis: yAxis }, yOffset: { field: 'variant', sort: variants, scale: { domain: variants } } }
      : { y: { field: 'variant', type: 'nominal', title: null, sort: variants, scale: { domain: variants }, axis: yAxis } };
  const rows = multi ? groups.length * variants.length : variants.length;
  const panel = (which: 'value' | 'difference', title: string, zero: boolean) => ({
    width: 260,
    height: Math.max(60, rows * (multi ? 14 : 22)),
    title,
    transform: [{ filter: `datum.panel === '${which}'` }],
    encoding: yField(),
    layer: [
      { mark: { type: 'bar', opacity: 0.75 }, encoding: { x: { field: 'value', type: 'quantitative', title: null }, color: which === 'value' ? variantColour : changeColour } },
      { mark: { type: 'rule', color: '#333' }, encoding: { x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
      // the estimate marked too: a difference of exactly 0 (a point where the readings agree) has no bar to see
      ...(which === 'difference' ? [{ mark: { type: 'point', shape: 'diamond', filled: true, size: 40, opacity: 1 }, encoding: { x: { field: 'value', type: 'quantitative' }, color: changeColour } }] : []),
      ...(zero ? [{ data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#333', strokeDash: [3, 2] }, encoding: { x: { field: 'zero', type: 'quantitative' }, y: null, yOffset: null } }] : []),
    ],
  });
  const title = `${metric} by variant`;
  return {
    name,
    title,
    caption: `${sampled ? `a sample, evenly spaced: ${variants.length} of the ${showCount(result.variants.length)} variants${groups.length < allGroups.length ? ` at ${groups.length} of the ${showCount(allGroups.length)} sweep points` : ''} (every case is in summary.csv); ` : ''}bars: estimate (a difference also a diamond, so one of 0 shows); black lines: 95% intervals; the difference is paired (common random numbers) where the metric is per trial, coloured by its direction as in the tables (blue up, orange down, grey when the interval contains 0)`,
    lead: !multi,
    metric,
    spec: {
      $schema: SCHEMA,
      title,
      data: { values },
      hconcat: [panel('value', metric, false), panel('difference', `difference from ${baseline}`, true)],
      resolve: { scale: { color: 'independent' }, legend: { color: 'independent' } },
      config: { axisY: { labelLimit: 0 } },
    },
  };
}

function distinctSorted(result: ScenarioResult, p: string): unknown[] {
  const vals = [...new Set(result.cases.map((c) => c.params[p]))];
  return vals.every((v) => typeof v === 'number') ? (vals as number[]).sort((a, b) => a - b) : vals;
}

function fmtTarget(t: number): string {
  return String(t);
}

