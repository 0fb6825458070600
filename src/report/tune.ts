/**
 * The tune report: `tune.csv` (every candidate evaluated), `tune.json`, a chart of the feasible
 * region (`charts/tune_region.*`: two parameters, or one parameter against each target) and
 * `index.html`, written atomically.
 */
import { stringify } from 'csv-stringify/sync';
import { gapText, type TuneEvaluation, type TuneResult } from '../api/tune.js';
import { edgeText } from './tune-text.js';
import { plateauText } from '../api/plateau.js';
import type { ChartSpec } from '../systems/types.js';
import { analysisPage, jsonHead, provenanceLine, showCi, startingPoint, table, writeAnalysis } from './analysis-page.js';
import { fmt, num, showCount, showHtml as show } from './format.js';
import { escapeHtml } from './html.js';
import { indexHref } from './write.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** The region chart: its spec with the schema and title in place. */
function regionSpec(title: string, caption: string, body: Record<string, unknown>): ChartSpec {
  return { name: 'tune_region', title, caption, spec: { $schema: SCHEMA, title, ...body } };
}

/** The target metrics, each once, in the order given. */
function targetMetrics(r: TuneResult): string[] {
  return [...new Set(r.targets.map((t) => t.metric))];
}

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
    found: r.found,
    best: ev(r.best),
    evaluations: r.evaluations.map(ev),
    plateaus: r.plateaus,
    edges: r.edges,
    provenance: r.provenance,
  };
}

/** The last (most trials) evaluation of each candidate. */
function latest(r: TuneResult): TuneEvaluation[] {
  const by = new Map<string, TuneEvaluation>();
  for (const e of r.evaluations) by.set(JSON.stringify(e.values), e);
  return [...by.values()];
}

/**
 * The feasible region: with two or more parameters, every candidate on the plane of the first
 * two (with three, those at the best value of the third), coloured by how many targets it meets,
 * the best ringed; with one, each target metric against the parameter with its target band.
 */
export function regionChart(r: TuneResult): ChartSpec {
  const n = r.targets.length;
  const [px, py, pz] = r.params.map((p) => p.path);
  if (!py) {
    const values = latest(r)
      .filter((e) => e.checks)
      .flatMap((e) => e.checks!.map((c) => ({ x: e.values[px], metric: c.metric, value: c.value, lo: c.ci_low, hi: c.ci_high, band_lo: c.lo, band_hi: c.hi, met: c.met ? 'in the target' : 'outside' })));
    return regionSpec(`Each target against ${px}`, `Each target metric at every value of ${px} evaluated (the last, most trials, of each), with its 95% interval; the green band is the target.`, {
      data: { values },
      facet: { row: { field: 'metric', type: 'nominal', title: null } },
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: 520,
        height: 180,
        layer: [
          { mark: { type: 'rect', color: '#54a24b', opacity: 0.12 }, encoding: { y: { aggregate: 'min', field: 'band_lo', type: 'quantitative' }, y2: { aggregate: 'max', field: 'band_hi' } } },
          { mark: { type: 'rule', color: '#666' }, encoding: { x: { field: 'x', type: 'quantitative', title: px }, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
          {
            mark: { type: 'point', filled: true, size: 40 },
            encoding: {
              x: { field: 'x', type: 'quantitative', title: px },
              y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } },
              color: { field: 'met', type: 'nominal', title: null, scale: { domain: ['in the target', 'outside'], range: ['#54a24b', '#e45756'] } },
            },
          },
        ],
      },
    });
  }
  const best = r.best.values;
  const slice = pz ? latest(r).filter((e) => e.values[pz] === best[pz]) : latest(r);
  const all = n === 1 ? 'target met' : `all ${n} targets met`;
  const status = (e: TuneEvaluation) => (e.invalid ? 'not a valid case' : e.met === n ? all : n === 1 ? 'target missed' : `${e.met} of ${n} met`);
  const domain = [all, ...(n === 1 ? ['target missed'] : Array.from({ length: n }, (_, i) => `${n - 1 - i} of ${n} met`)), 'not a valid case'];
  const range = ['#2ca02c', ...Array.from({ length: n }, (_, i) => (i === 0 && n > 1 ? '#f2b447' : i === n - 1 ? '#bbbbbb' : '#e8d08a')), '#ffffff'];
  // Each square as big as the gap to its nearest neighbour allows (coarse ones big, refined ones small).
  const W = 480;
  const H = 360;
  const sx = W / Math.max(1, r.params[0].hi - r.params[0].lo);
  const sy = H / Math.max(1, r.params[1].hi - r.params[1].lo);
  const side = (e: TuneEvaluation) => {
    let d = 24;
    for (const o of slice) {
      if (o === e) continue;
      d = Math.min(d, Math.max(Math.abs(o.values[px] - e.values[px]) * sx, Math.abs(o.values[py] - e.values[py]) * sy));
    }
    return Math.max(3, d * 0.9);
  };
  const values = slice.map((e) => ({
    x: e.values[px],
    y: e.values[py],
    size: Math.round(side(e) ** 2),
    status: status(e),
    distance: Number.isFinite(e.distance) ? Number(e.distance.toPrecision(4)) : null,
    trials: e.trials,
    best: e.values[px] === best[px] && e.values[py] === best[py] ? 'best' : '',
    ...Object.fromEntries((e.checks ?? []).map((c) => [c.metric, Number(c.value.toPrecision(4))])),
  }));
  return regionSpec(
    `Targets met over ${px} x ${py}${pz ? ` at ${pz} = ${best[pz]}` : ''}`,
    `Every candidate evaluated, coloured by how many targets its estimate meets (big squares: the coarse grid; small: the refinement near the best); the answer is ringed.`,
    {
      width: W,
      height: H,
      data: { values },
      encoding: {
        x: { field: 'x', type: 'quantitative', title: px, scale: { domain: [r.params[0].lo, r.params[0].hi], nice: false, padding: 14 } },
        y: { field: 'y', type: 'quantitative', title: py, scale: { domain: [r.params[1].lo, r.params[1].hi], nice: false, padding: 14 } },
      },
      layer: [
        {
          mark: { type: 'square', filled: true, stroke: '#555', strokeWidth: 0.5 },
          encoding: {
            size: { field: 'size', type: 'quantitative', scale: null, legend: null },
            color: { field: 'status', type: 'nominal', title: null, scale: { domain, range }, legend: { orient: 'bottom' } },
            tooltip: [{ field: 'x', title: px }, { field: 'y', title: py }, { field: 'status' }, { field: 'distance' }, ...targetMetrics(r).map((m) => ({ field: m }))],
          },
        },
        { transform: [{ filter: "datum.best == 'best'" }], mark: { type: 'point', shape: 'circle', size: 420, stroke: '#000', strokeWidth: 2.5, filled: false } },
      ],
    },
  );
}

/** index.html of a tune report. */
export function tunePage(r: TuneResult, charts: readonly ChartSpec[], files: readonly string[], opts: { indexHref?: string } = {}): string {
  const b = r.best;
  const settings = r.params.map((p) => `<code>${escapeHtml(p.path)}</code> = <b>${b.values[p.path]}</b>`).join(', ');
  const verdict = r.found
    ? `<p class="verdict">Found: ${settings} meets every target (${b.trials} trials).</p>`
    : `<p class="verdict miss">No candidate meets every target. Closest: ${settings}, ${b.met} of ${r.targets.length} met, ${show(b.distance)} target widths away (${b.trials} trials).</p>`;
  const checks = table(
    ['target', 'interval', `at the ${r.found ? 'answer' : 'closest'} (95% interval)`, 'met', 'outside by (target widths)', 'outside by'],
    (b.checks ?? []).map((c) => [
      `<code>${escapeHtml(c.metric)}</code>`,
      `[${c.lo}, ${c.hi}]`,
      showCi(c),
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
