/**
 * Vega-Lite spec builders shared by the rules systems' charts.ts. Pure functions: a spec is
 * plain data with its values inline, so each chart file stands alone and renders offline.
 */
import type { CaseResult, ChartSpec, ScenarioResult } from './types.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

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
 * A curve per (case, variant) with its 95% band: e.g. P(surrendered by turn t).
 * Too many series to read (a big sweep) are cut to the first `maxSeries`, said in the title.
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
    maxSeries?: number;
    probability?: boolean;
    /** x is a count (turns, rounds): integer ticks only. */
    integerX?: boolean;
  },
): ChartSpec {
  const max = opts.maxSeries ?? 12;
  const shown = result.cases.slice(0, max);
  const values: Record<string, unknown>[] = [];
  for (const c of shown) {
    const label = seriesLabel(result, c);
    for (const pt of c.curves[opts.curve] ?? []) {
      values.push({ series: label, x: pt.x[opts.x], value: pt.m.value, lo: pt.m.ci_low, hi: pt.m.ci_high });
    }
  }
  const title = shown.length < result.cases.length ? `${opts.title} (first ${max} of ${result.cases.length} cases)` : opts.title;
  const yScale = opts.probability === false ? {} : { scale: { domain: [0, 1] } };
  return {
    name: opts.name,
    title,
    spec: {
      $schema: SCHEMA,
      title,
      width: 480,
      height: 280,
      data: { values },
      encoding: {
        x: {
          field: 'x',
          type: 'quantitative',
          title: opts.xTitle,
          ...(opts.integerX !== false ? { axis: { tickMinStep: 1, format: 'd' } } : {}),
        },
        // one legend for both layers, drawn at full strength (not at the band's opacity)
        color: { field: 'series', type: 'nominal', title: null, sort: null, legend: { symbolOpacity: 1, symbolType: 'stroke' } },
      },
      layer: [
        {
          // the 95% band
          mark: { type: 'area', opacity: 0.18 },
          encoding: {
            y: { field: 'lo', type: 'quantitative', ...yScale },
            y2: { field: 'hi' },
          },
        },
        {
          mark: { type: 'line', point: values.length <= 400 },
          encoding: {
            y: { field: 'value', type: 'quantitative', title: opts.yTitle, ...yScale },
          },
        },
      ],
    },
  };
}

/** A heatmap of one metric over a 2-D sweep, the value written in each cell; one panel per variant. */
export function heatmapChart(result: ScenarioResult, metric: string, name: string): ChartSpec | undefined {
  if (result.params.length !== 2) return undefined;
  const [px, py] = result.params;
  const values = result.cases.map((c) => ({
    x: c.params[px],
    y: c.params[py],
    variant: c.variant,
    value: c.metrics[metric]?.value ?? null,
    label: formatCell(c.metrics[metric]?.value),
  }));
  const title = `${metric} over ${shortName(px)} x ${shortName(py)}`;
  const inner = {
    width: 360,
    height: 280,
    encoding: {
      x: { field: 'x', type: 'ordinal', title: px },
      y: { field: 'y', type: 'ordinal', title: py, sort: 'descending' },
    },
    layer: [
      {
        mark: 'rect',
        encoding: {
          color: { field: 'value', type: 'quantitative', title: metric, scale: { scheme: 'viridis', domain: [0, 1] } },
        },
      },
      {
        mark: { type: 'text', fontSize: 11 },
        encoding: {
          text: { field: 'label' },
          color: { condition: { test: 'datum.value > 0.55', value: 'black' }, value: 'white' },
        },
      },
    ],
  };
  const spec =
    result.variants.length > 1
      ? { $schema: SCHEMA, title, data: { values }, facet: { column: { field: 'variant', title: null, sort: null } }, spec: inner }
      : { $schema: SCHEMA, title, data: { values }, ...inner };
  return { name, title, spec };
}

/** Bars of a metric per variant with 95% intervals, and the difference from the baseline beside them. */
export function variantBarsChart(result: ScenarioResult, metric: string, name: string): ChartSpec | undefined {
  if (result.variants.length < 2) return undefined;
  const values: Record<string, unknown>[] = [];
  for (const c of result.cases) {
    const m = c.metrics[metric];
    const d = c.differences[metric];
    const where = result.params.map((p) => `${shortName(p)}=${String(c.params[p])}`).join(', ') || 'all';
    if (m) values.push({ panel: metric, where, variant: c.variant, value: m.value, lo: m.ci_low, hi: m.ci_high });
    if (d) values.push({ panel: `difference from ${result.variants[0]}`, where, variant: c.variant, value: d.value, lo: d.ci_low, hi: d.ci_high });
  }
  const title = `${metric} by variant`;
  const panels = [metric, `difference from ${result.variants[0]}`];
  const multi = result.cases.length > result.variants.length;
  return {
    name,
    title,
    spec: {
      $schema: SCHEMA,
      title,
      data: { values },
      facet: multi
        ? { column: { field: 'panel', title: null, sort: panels }, row: { field: 'where', title: null, sort: null } }
        : { column: { field: 'panel', title: null, sort: panels } },
      resolve: { scale: { x: 'independent' } },
      spec: {
        width: 260,
        height: { step: 22 },
        encoding: { y: { field: 'variant', type: 'nominal', title: null, sort: null } },
        layer: [
          { mark: { type: 'bar', opacity: 0.7 }, encoding: { x: { field: 'value', type: 'quantitative', title: null } } },
          { mark: { type: 'rule' }, encoding: { x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
        ],
      },
    },
  };
}

function formatCell(v: number | undefined): string {
  return v === undefined || !Number.isFinite(v) ? '' : v.toFixed(2);
}
