/**
 * The sensitivity report: `sensitivity.csv` (one row per turned case), `sensitivity.json`, the
 * tornado chart (`charts/sensitivity.vl.json` and `.svg`) and `index.html`, written atomically.
 */
import { stringify } from 'csv-stringify/sync';
import type { SensitivityResult } from '../api/sensitivity.js';
import type { ChartSpec } from '../systems/types.js';
import { tornadoChart } from './tornado-chart.js';
import { analysisPage, jsonHead, provenanceLine, showCi, startingPoint, table, writeAnalysis } from './analysis-page.js';
import { indexHref } from './write.js';
import { fmt, num, overDifferentTrialsText, showCount, showHtml as show } from './format.js';
import { DIRECTION_KEY, directionClass, escapeHtml, settingsMoved } from './html.js';

export { dominantCount, tornadoChart, TORNADO_MAX, TORNADO_SPLIT } from './tornado-chart.js';

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
    ...(r.conditional_on ? { conditional_on: r.conditional_on } : {}),
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
      ...(x.over_different_trials ? { over_different_trials: { event: x.over_different_trials.event, baseline: num(x.over_different_trials.from), turned: num(x.over_different_trials.to) } } : {}),
      from_zero: x.from_zero,
      ...(x.from_zero ? { step_note: fromZeroNote(r) } : {}),
    })),
    skipped: r.skipped,
    provenance: r.provenance,
  };
}


/** What a `from_zero` row's step was: said beside it on the page, on stdout and in the JSON. */
export function fromZeroNote(r: Pick<SensitivityResult, 'step'>): string {
  const p = r.step && 'percent' in r.step ? r.step.percent : 10;
  return `from 0: the step is ${p}% of the allowed range, not of the value`;
}


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
    }. Intervals are paired differences on the same dice, Welch's (marked) for a mean over the trials in which an event happened, whose two sides average different trials. ${DIRECTION_KEY}</p>`,
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
    lead: `${escapeHtml(r.metric)} ${escapeHtml(startingPoint(r))}: ${showCi(r.baseline)}${r.conditional_on && r.baseline ? ` (a mean over the ${showCount(r.baseline.n)} of the ${showCount(r.trials)} trials with ${escapeHtml(r.conditional_on)})` : ''}. ${effects}`,
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
