/**
 * The tune report: `tune.csv` (every candidate evaluated), `tune.json`, a chart of the feasible
 * region (`charts/tune_region.*`: two parameters, or one parameter against each target) and
 * `index.html`, written atomically.
 */
import { stringify } from 'csv-stringify/sync';
import { gapText, type TuneEvaluation, type TuneResult } from '../api/tune.js';
import { edgeText } from './tune-text.js';
import { unsureText } from './tune-verdict.js';
import { plateauText } from '../api/plateau.js';
import type { ChartSpec } from '../systems/types.js';
import { analysisPage, jsonHead, provenanceLine, showCi, startingPoint, table, writeAnalysis } from './analysis-page.js';
import { fmt, num, showCount, showHtml as show } from './format.js';
import { escapeHtml } from './html.js';
import { indexHref } from './write.js';
import { regionChart, targetMetrics } from './region-chart.js';

export { regionChart } from './region-chart.js';

/** `eval,stage,<params...>,trials,<metric>,<metric>_ci_low,<metric>_ci_high,...,targets_met,distance,score,note`. */
export function tuneCsv(r: TuneResult): string {
  const metrics = targetMetrics(r);
  const rows: string[][] = [
    ['eval', 'stage', ...r.params.map((p) => p.path), 'trials', ...metrics.flatMap((m) => [m, `${m}_ci_low`, `${m}_ci_high`]), 'targets_met', 'distance', 'score', 'note'],
  ];
  for (const e of r.evaluations) {
    const at = (m: string) => e.checks?.find((c) => c.metric === m);
    rows.push([
      String(e.index),
      e.stage,
      ...r.params.map((p) => String(e.values[p.path])),
      String(e.trials),
      ...metrics.flatMap((m) => [fmt(at(m)?.value), fmt(at(m)?.ci_low), fmt(at(m)?.ci_high)]),
      String(e.met),
      fmt(e.distance),
      fmt(e.score),
      e.invalid ? `not a valid case: ${e.invalid}` : e === r.best ? 'best' : '',
    ]);
  }
  return stringify(rows);
}

/** tune.json: the result with numbers made JSON-safe. */
export function tuneJson(r: TuneResult): Record<string, unknown> {
  const ev = (e: TuneEvaluation) => ({
    index: e.index,
    stage: e.stage,
    values: e.values,
    trials: e.trials,
    met: e.met,
    distance: num(e.distance),
    score: num(e.score),
    ...(e.invalid ? { invalid: e.invalid } : {}),
    ...(e.checks ? { checks: e.checks.map((c) => ({ ...c, value: num(c.value), ci_low: num(c.ci_low), ci_high: num(c.ci_high), distance: num(c.distance) })) } : {}),
  });
  return {
    ...jsonHead(r),
    budget: r.budget,
    trials_used: r.trialsUsed,
    exhausted: r.exhausted,
    params: r.params,
    targets: r.targets,
    where: r.where,
    ...(r.note ? { note: r.note } : {}),
    ...(r.conditional_on ? { conditional_on: r.conditional_on } : {}),
    found: r.found,
    best: ev(r.best),
    evaluations: r.evaluations.map(ev),
    plateaus: r.plateaus,
    edges: r.edges,
    provenance: r.provenance,
  };
}

/** index.html of a tune report. */
export function tunePage(r: TuneResult, charts: readonly ChartSpec[], files: readonly string[], opts: { indexHref?: string } = {}): string {
  const b = r.best;
  const settings = r.params.map((p) => `<code>${escapeHtml(p.path)}</code> = <b>${b.values[p.path]}</b>`).join(', ');
  const verdict = r.found
    ? `<p class="verdict">Found: ${settings} meets every target (${b.trials} trials)${escapeHtml(unsureText(b.checks))}.</p>`
    : `<p class="verdict miss">No candidate meets every target. Closest: ${settings}, ${b.met} of ${r.targets.length} met, ${show(b.distance)} target widths away (${b.trials} trials).</p>`;
  const checks = table(
    ['target', 'interval', `at the ${r.found ? 'answer' : 'closest'} (95% interval)`, 'met', 'outside by (target widths)', 'outside by'],
    (b.checks ?? []).map((c) => [
      `<code>${escapeHtml(c.metric)}</code>`,
      `[${c.lo}, ${c.hi}]`,
      // a mean over the trials with an event says over how many of the candidate's
      showCi(c) + (r.conditional_on?.[c.metric] !== undefined ? ` <span class="muted">(a mean over the ${showCount(c.n)} of the ${showCount(b.trials)} trials with ${escapeHtml(r.conditional_on[c.metric])})</span>` : ''),
      c.met ? (c.sure ? 'yes (whole interval inside)' : 'yes (interval reaches an edge)') : 'no',
      show(c.distance),
      gapText(c, show),
    ]),
    [0, 3, 5],
  );
  // the confirmations (most trials) first, then the search's best
  const ranked = [...r.evaluations].filter((e) => !e.invalid).sort((a, c) => c.trials - a.trials || a.score - c.score).slice(0, 15);
  const candidates = table(
    ['eval', 'stage', ...r.params.map((p) => p.path), 'trials', ...r.targets.map((t) => t.metric), 'met', 'distance'],
    ranked.map((e) => [String(e.index), e.stage, ...r.params.map((p) => String(e.values[p.path])), String(e.trials), ...(e.checks ?? []).map((c) => showCi(c)), `${e.met}/${r.targets.length}`, show(e.distance)]),
    [1],
    (i) => (ranked[i] === b ? 'best' : undefined),
  );
  const ranges = r.params.map((p) => `<code>${escapeHtml(p.path)}</code> ${p.lo}..${p.hi}${p.loaded !== undefined ? ` (started from ${p.loaded})` : ''}`).join(', ');
  return analysisPage({
    title: `${r.name}: tuning ${r.params.map((x) => x.path).join(', ')}`,
    lead: `Targets: ${r.targets.map((t) => `<code>${escapeHtml(t.metric)}</code> in [${t.lo}, ${t.hi}]`).join(' and ')}. Searched ${ranges}.${r.note ? ` <span class="muted">Working ${escapeHtml(startingPoint(r))}.</span>` : ''}`,
    meta: provenanceLine(r, `${r.trials} trials per candidate · ${r.evaluations.length} evaluations, ${showCount(r.trialsUsed)} of a budget of ${showCount(r.budget)} trials${r.exhausted ? ' (budget exhausted)' : ''}`),
    sections: [
      verdict,
      ...r.plateaus.map((p) => `<p class="plateau">${escapeHtml(plateauText(p))}</p>`),
      ...r.edges.map((e) => `<p class="edge">${escapeHtml(edgeText(e, r.params.find((p) => p.path === e.param)!))}</p>`),
      checks, `<h2>Best candidates</h2>\n<p class="muted">Every candidate rolls the same dice (common random numbers); the confirmations extend the same dice with more trials. tune.csv lists every evaluation.</p>`, candidates],
    charts,
    files,
    indexHref: opts.indexHref,
  });
}

/**
 * Write `outDir` (tune.csv, tune.json, charts, index.html) atomically.
 * `index`: a reports index is written in the parent folder (the page links back to it).
 */
export async function writeTuneReport(r: TuneResult, outDir: string, opts: { index?: boolean } = {}): Promise<string[]> {
  const charts = [regionChart(r)];
  return writeAnalysis(outDir, { name: 'tune', csv: tuneCsv(r), json: tuneJson(r), charts }, (files) => tunePage(r, charts, files, { indexHref: indexHref(opts.index) }));
}
