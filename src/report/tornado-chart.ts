/**
 * The sensitivity tornado as a Vega-Lite spec: drawn by the sensitivity report (sensitivity.ts)
 * and by the workbench's "what matters" panel, in `serve` and in the static site's browser worker,
 * so it imports nothing of Node.
 */
import type { SensitivityResult } from '../api/sensitivity.js';
import type { ChartSpec } from '../systems/types.js';
import { directionOf, DIRECTION_SCALE } from '../systems/chart-kit.js';
import { showInterval } from './format.js';

/** Settings drawn in the tornado (the CSV and the page have them all). */
export const TORNADO_MAX = 20;

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** How a turned case's bar is drawn: a solid bar one step up, a pale one a step down, an outline for another option. */
const STEPS = { 'one step up': { fill: 0.85, dash: [1, 0] }, 'one step down': { fill: 0.3, dash: [1, 0] }, 'other option': { fill: 0, dash: [4, 2] } } as const;

/** A setting whose effects reach this many times as far from 0 as the next one's gets a panel of its own: the rest are drawn zoomed below it. */
export const TORNADO_SPLIT = 5;

/**
 * How many of the settings (their extents, largest first) dwarf the rest: the fewest, at most
 * three, reaching `TORNADO_SPLIT` times as far from 0 as the next, with two or more left after
 * them; 0 when none does (one panel).
 */
export function dominantCount(extents: readonly number[]): number {
  for (let k = 1; k <= 3 && k <= extents.length - 2; k++) if (extents[k - 1] >= TORNADO_SPLIT * extents[k] && extents[k] > 0) return k;
  return 0;
}

/**
 * The tornado: each setting's effects as bars from zero (one bar per turned case, labelled with
 * the value it was turned to), with their 95% intervals, the largest `max` at the top. Coloured
 * by the change's direction as the tables are (blue up, orange down, grey when the interval
 * holds 0); the kind of step by the bar's fill (solid up, pale down, a dashed outline for another
 * option). When one to three settings dwarf the rest (`dominantCount`), they get a panel of their
 * own and the others are drawn below on their own, finer, linear scale, so their bars are read
 * and not slivers. A probability's change is never beyond ±1: the axis stops there.
 * Undefined when no turned setting moved the metric (nothing to draw but the 0 axis).
 */
export function tornadoChart(r: SensitivityResult, max = TORNADO_MAX): ChartSpec | undefined {
  // Settings that changed nothing on these dice (every effect exactly 0) are left to the table
  // (with the interval of what the trials cannot rule out, unless the case is the baseline's own program).
  const moved = r.ranking.filter((x) => r.rows.some((y) => y.param === x.param && y.effect !== 0));
  if (moved.length === 0) return undefined;
  const shown = moved.slice(0, max).map((x) => x.param);
  const slot = new Map<string, number>();
  const values = r.rows
    .filter((x) => shown.includes(x.param))
    .map((x) => {
      const s = slot.get(x.param) ?? 0;
      slot.set(x.param, s + 1);
      const step = x.direction === 'option' ? 'other option' : x.direction === 'down' ? 'one step down' : 'one step up';
      return { param: x.param, rank: x.rank, slot: s, step, change: directionOf(x), to: `→ ${String(x.to)}`, effect: x.effect, lo: x.ci_low, hi: x.ci_high, shown: showInterval(x.effect, x.ci_low, x.ci_high) };
    });
  const still = r.ranking.length - moved.length;
  const notes = [moved.length > shown.length ? `top ${shown.length} of ${moved.length}` : '', still > 0 ? `${still} with no effect not drawn` : ''].filter(Boolean);
  const more = notes.length > 0 ? ` (${notes.join('; ')})` : '';
  const title = `Change in ${r.metric} from one step of each setting${more}`;
  // how far from 0 each setting's bars and intervals reach, largest first
  const reach = (v: (typeof values)[number]) => Math.max(...[v.effect, v.lo, v.hi].filter(Number.isFinite).map(Math.abs), 0);
  const extent = new Map<string, number>();
  for (const v of values) extent.set(v.param, Math.max(extent.get(v.param) ?? 0, reach(v)));
  const byReach = [...extent.entries()].sort((a, b) => b[1] - a[1]);
  const k = dominantCount(byReach.map((e) => e[1]));
  const big = new Set(byReach.slice(0, k).map((e) => e[0]));
  const W = 560;
  const bound = r.metricKind === 'probability' ? 1 : Infinity; // a change in a probability is within ±1
  // The axis and the legends at the top, where the largest bars are (a tall tornado is read from
  // there); the domain widened by the longest "→ value" label each side, so a label at the end
  // of the longest bar stays inside the plot, clear of the settings' names, and never past ±1
  // for a probability.
  const panel = (vs: typeof values, axisTitle: string, panelTitle?: string) => {
    const labelPx = Math.min(160, 8 + 6 * Math.max(0, ...vs.map((v) => v.to.length)));
    const ends = vs.flatMap((v) => [v.effect, v.lo, v.hi]).filter(Number.isFinite);
    const lo = Math.min(0, ...ends);
    const hi = Math.max(0, ...ends);
    const pad = ((hi - lo || 1) * labelPx) / (W - 2 * labelPx);
    const x = {
      field: 'effect',
      type: 'quantitative',
      title: axisTitle,
      scale: { domain: [Math.max(-bound, lo - pad), Math.min(bound, hi + pad)], nice: false, zero: true },
      axis: { orient: 'top', grid: true },
    };
    // a row per setting, a bar per turned case within it
    const rows = {
      y: { field: 'param', type: 'nominal', title: null, sort: { field: 'rank', op: 'min', order: 'ascending' }, axis: { labelLimit: 320 } },
      yOffset: { field: 'slot', type: 'nominal' },
    };
    const label = (positive: boolean) => ({
      transform: [{ filter: positive ? 'datum.effect >= 0' : 'datum.effect < 0' }],
      mark: { type: 'text', align: positive ? 'left' : 'right', dx: positive ? 4 : -4, fontSize: 10, color: '#444' },
      encoding: { ...rows, x: { field: positive ? 'hi' : 'lo', type: 'quantitative' }, text: { field: 'to' } },
    });
    return {
      ...(panelTitle ? { title: { text: panelTitle, fontSize: 12, fontWeight: 'normal', anchor: 'start' } } : {}),
      width: W,
      height: { step: 14 }, // each turned case's bar (the offset band): 12 px thick whatever the count
      data: { values: vs },
      layer: [
        {
          mark: { type: 'bar', height: { band: 0.85 }, strokeWidth: 1.2 },
          encoding: {
            ...rows,
            x,
            color: { ...change, title: 'change', legend: { ...top, symbolType: 'square' } },
            stroke: change, // the outline in the same colour (one legend with the fill's)
            fillOpacity: { field: 'step', type: 'ordinal', title: 'step', scale: stepScale('fill'), legend: stepLegend },
            strokeDash: { field: 'step', type: 'ordinal', title: 'step', scale: stepScale('dash'), legend: stepLegend }, // one legend with fillOpacity's
            tooltip: [{ field: 'param' }, { field: 'to' }, { field: 'step' }, { field: 'change' }, { field: 'shown', title: 'effect' }], // with its 95% interval, in the reports' digits: a tiny effect is not 0.0000
          },
        },
        { mark: { type: 'rule', color: '#222' }, encoding: { ...rows, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
        label(true),
        label(false),
        // the 0 line, the whole height of the plot (without the rows' encoding: one rule, not one per row)
        { data: { values: [{}] }, mark: { type: 'rule', color: '#888' }, encoding: { x: { datum: 0 } } },
      ],
    };
  };
  const top = { orient: 'top', direction: 'horizontal' };
  const change = { field: 'change', type: 'nominal', scale: DIRECTION_SCALE };
  const stepLegend = { ...top, symbolType: 'square', symbolSize: 120, symbolStrokeColor: '#444', symbolFillColor: '#444', symbolStrokeWidth: 1.2,
    // each key's fill as its bars' (the merged legend would draw every key solid)
    encode: { symbols: { update: { fillOpacity: { scale: 'fillOpacity', field: 'value' } } } },
  };
  const stepScale = (k: 'fill' | 'dash') => ({ type: 'ordinal', domain: Object.keys(STEPS), range: Object.values(STEPS).map((s) => s[k]) });
  const axisTitle = `change in ${r.metric} (95% interval)`;
  const caption = `Each bar is one turned case: the change in ${r.metric} when the setting is turned to the value at the bar's end, with its 95% paired interval; the largest at the top. Colour: the change's direction as in the tables (blue up, orange down, grey when the interval contains 0); fill: the step (solid one step up, pale one step down, dashed outline another option).`;
  if (k === 0) return { name: 'sensitivity', title, caption, spec: { $schema: SCHEMA, title, ...panel(values, axisTitle) } };
  const rest = values.filter((v) => !big.has(v.param));
  const zoom = byReach[0][1] / byReach[k][1];
  const dominant = k === 1 ? byReach[0][0] : `${k} settings`;
  return {
    name: 'sensitivity',
    title,
    caption: `${caption} ${k === 1 ? `${byReach[0][0]} moves it` : `The top ${k} move it`} ${zoom >= 10 ? Math.round(zoom) : zoom.toFixed(1)} times as far as any other setting, so the others are drawn below on their own scale (both linear; compare the axes).`,
    spec: {
      $schema: SCHEMA,
      title,
      spacing: 24,
      resolve: { scale: { x: 'independent', y: 'independent', yOffset: 'independent' } },
      vconcat: [
        panel(values.filter((v) => big.has(v.param)), axisTitle),
        panel(rest, `${axisTitle}: a finer scale`, `The other ${extent.size - k} settings on a scale ${zoom >= 10 ? Math.round(zoom) : zoom.toFixed(1)} times finer (${dominant} ${k === 1 ? 'is' : 'are'} drawn above)`),
      ],
    },
  };
}
