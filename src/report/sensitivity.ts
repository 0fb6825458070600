/**
 * The sensitivity report: `sensitivity.csv` (one row per turned case), `sensitivity.json`, the
 * tornado chart (`charts/sensitivity.vl.json` and `.svg`) and `index.html`, written atomically.
 */
import { stringify } from 'csv-stringify/sync';
import type { SensitivityResult } from '../api/sensitivity.js';
import type { ChartSpec } from '../systems/types.js';
import { directionOf, DIRECTION_SCALE } from '../systems/chart-kit.js';
import { analysisPage, jsonHead, provenanceLine, showCi, startingPoint, table, writeAnalysis } from './analysis-page.js';
import { indexHref } from './write.js';
import { fmt, num, overDifferentTrialsText, showHtml as show } from './format.js';
import { DIRECTION_KEY, directionClass, escapeHtml, settingsMoved } from './html.js';

/** Settings drawn in the tornado (the CSV and the page have them all). */
export const TORNADO_MAX = 20;

/** `param,from,to,metric,effect,ci_low,ci_high,rank`, then kind, direction, the metric at `to`, paired, trials, from_zero. */
export function sensitivityCsv(r: SensitivityResult): string {
  const rows: string[][] = [
    ['param', 'from', 'to', 'metric', 'effect', 'ci_low', 'ci_high', 'rank', 'kind', 'direction', 'value_from', 'value_to', 'value_to_ci_low', 'value_to_ci_high', 'paired', 'trials', 'from_zero'],
  ];
  for (const x of r.rows) {
    rows.push([
      x.param,
      String(x.from),
      String(x.to),
      x.metric,
      fmt(x.effect),
      fmt(x.ci_low),
      fmt(x.ci_high),
      String(x.rank),
      x.kind,
      x.direction,
      fmt(r.baseline?.value),
      fmt(x.at.value),
      fmt(x.at.ci_low),
      fmt(x.at.ci_high),
      String(x.paired),
      String(r.trials),
      String(x.from_zero),
    ]);
  }
  return stringify(rows);
}

/** sensitivity.json: the result with numbers made JSON-safe. */
export function sensitivityJson(r: SensitivityResult): Record<string, unknown> {
  const est = (e: { value: number; ci_low: number; ci_high: number }) => ({ value: num(e.value), ci_low: num(e.ci_low), ci_high: num(e.ci_high) });
  const effect = (e: { effect: number; ci_low: number; ci_high: number }) => ({ effect: num(e.effect), ci_low: num(e.ci_low), ci_high: num(e.ci_high) });
  return {
    ...jsonHead(r),
    metric: r.metric,
    where: r.where,
    ...(r.note ? { note: r.note } : {}),
    ...(r.step ? { step: r.step } : {}),
    baseline: r.baseline ? est(r.baseline) : null,
    ranking: r.ranking.map((x) => ({ ...x, ...effect(x) })),
    rows: r.rows.map((x) => ({
      param: x.param,
      kind: x.kind,
      direction: x.direction,
      from: x.from,
      to: x.to,
      rank: x.rank,
      paired: x.paired,
      ...effect(x),
      at: est(x.at),
      from_zero: x.from_zero,
      ...(x.from_zero ? { step_note: fromZeroNote(r) } : {}),
    })),
    skipped: r.skipped,
    provenance: r.provenance,
  };
}

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
  // Settings that changed nothing on these dice (every effect exactly 0) are left to the table.
  const moved = r.ranking.filter((x) => r.rows.some((y) => y.param === x.param && !(y.effect === 0 && y.ci_low === 0 && y.ci_high === 0)));
  if (moved.length === 0) return undefined;
  const shown = moved.slice(0, max).map((x) => x.param);
  const slot = new Map<string, number>();
  const values = r.rows
    .filter((x) => shown.includes(x.param))
    .map((x) => {
      const s = slot.get(x.param) ?? 0;
      slot.set(x.param, s + 1);
      const step = x.direction === 'option' ? 'other option' : x.direction === 'down' ? 'one step down' : 'one step up';
      return { param: x.param, rank: x.rank, slot: s, step, change: directionOf(x), to: `→ ${String(x.to)}`, effect: x.effect, lo: x.ci_low, hi: x.ci_high };
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
            tooltip: [{ field: 'param' }, { field: 'to' }, { field: 'step' }, { field: 'change' }, { field: 'effect', format: '.4f' }, { field: 'lo', format: '.4f' }, { field: 'hi', format: '.4f' }],
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

/** What a `from_zero` row's step was: said beside it on the page, on stdout and in the JSON. */
export function fromZeroNote(r: Pick<SensitivityResult, 'step'>): string {
  const p = r.step && 'percent' in r.step ? r.step.percent : 10;
  return `from 0: the step is ${p}% of the allowed range, not of the value`;
}


/** A change's direction as the report's style classes name it (report/html.ts). */

/** index.html of a sensitivity report. */
export function sensitivityPage(r: SensitivityResult, charts: readonly ChartSpec[], files: readonly string[], opts: { indexHref?: string } = {}): string {
  const maxAbs = Math.max(1e-300, ...r.rows.map((x) => (Number.isFinite(x.effect) ? Math.abs(x.effect) : 0)));
  // a diverging bar: negative effects grow left of the centre, positive ones right
  // coloured by the change's direction, as in the tornado and every table of differences
  const half = (x: { effect: number; ci_low: number; ci_high: number }) =>
    `<span class="bar ${directionClass(x)}" style="width:${((Math.abs(x.effect) / maxAbs) * 80).toFixed(1)}px"></span>`;
  const bar = (x: { effect: number; ci_low: number; ci_high: number }) =>
    Number.isFinite(x.effect) ? `<span class="diverging"><span class="half l">${x.effect < 0 ? half(x) : ''}</span><span class="half r">${x.effect > 0 ? half(x) : ''}</span></span>` : '';
  const rows = r.rows.map((x) => [
    String(x.rank),
    `<code>${escapeHtml(x.param)}</code>`,
    escapeHtml(`${String(x.from)} → ${String(x.to)}`) + (x.from_zero ? ` <span class="muted from-zero">(${escapeHtml(fromZeroNote(r))})</span>` : ''),
    `<span class="${directionClass(x)}">${showCi({ value: x.effect, ci_low: x.ci_low, ci_high: x.ci_high }, true)}</span>` +
      (x.paired ? '' : ' <span class="muted">(Welch)</span>') +
      (x.over_different_trials ? `<br><span class="over">${escapeHtml(overDifferentTrialsText(x.over_different_trials))}</span>` : ''),
    bar(x),
    showCi(x.at),
  ]);
  const fromZero = r.ranking.filter((x) => x.from_zero).length;
  // no tornado when nothing moved (it would be its 0 axis alone): say so where it would be
  const none = charts.length === 0 ? [`<p class="muted">No tornado: every turned case gave the same ${escapeHtml(r.metric)} as the loaded settings on the same dice, so there is no bar to draw; the ranking below lists each turned case.</p>`] : [];
  const sections = [
    ...none,
    `<h2>Ranking</h2>\n<p class="muted">One row per turned case; settings ranked by their largest absolute effect (rank 1 = largest)${
      fromZero > 0 ? `, except the ${fromZero} setting(s) at 0 marked "from 0", whose step is a share of their allowed range (a jump, not a small change): they are ranked after all the others` : ''
    }. Intervals are paired differences on the same dice, Welch where the metric is not per trial. ${DIRECTION_KEY}</p>`,
    table(['rank', 'setting', 'turned', `change in ${r.metric}`, '', `${r.metric} at the turned value`], rows, [1, 2, 4]),
  ];
  if (r.skipped.length > 0) {
    sections.push(
      `<details><summary>${r.skipped.length} not turned</summary>${table(
        ['setting', 'value', 'why'],
        r.skipped.map((s) => [`<code>${escapeHtml(s.param)}</code>`, s.to === undefined ? '' : escapeHtml(String(s.to)), escapeHtml(s.reason)]),
        [0, 1, 2],
      )}</details>`,
    );
  }
  const top = r.ranking.slice(0, 3).map((x) => `<code>${escapeHtml(x.param)}</code> (${show(x.effect)}${x.from_zero ? ', from 0' : ''})`);
  // every turned case equal to the loaded one (a 0 effect is no "largest effect")
  const moved = settingsMoved(r.ranking);
  const effects = moved ? `Largest effects: ${top.join(', ')}.` : `No setting turned here moved it (every effect 0 on the same dice).`;
  const step = r.step ? ('abs' in r.step ? `±${r.step.abs}` : `±${r.step.percent}%`) : 'integers ±1, decimals ±10%';
  return analysisPage({
    title: `${r.name}: what moves ${r.metric}`,
    lead: `${escapeHtml(r.metric)} ${escapeHtml(startingPoint(r))}: ${showCi(r.baseline)}. ${effects}`,
    meta: provenanceLine(r, `${r.trials} trials per case · steps ${escapeHtml(step)}`),
    sections,
    charts,
    files,
    indexHref: opts.indexHref,
  });
}

/**
 * Write `outDir` (sensitivity.csv, sensitivity.json, charts, index.html) atomically.
 * `index`: a reports index is written in the parent folder (the page links back to it).
 */
export async function writeSensitivityReport(r: SensitivityResult, outDir: string, opts: { index?: boolean } = {}): Promise<string[]> {
  const tornado = tornadoChart(r);
  const charts = tornado ? [tornado] : [];
  return writeAnalysis(outDir, { name: 'sensitivity', csv: sensitivityCsv(r), json: sensitivityJson(r), charts }, (files) =>
    sensitivityPage(r, charts, files, { indexHref: indexHref(opts.index) }),
  );
}
