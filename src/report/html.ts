/**
 * index.html: one static page per scenario, and the reports index. Offline (no script, font or
 * image from the network). The page leads with the answer: the headline metrics (a sweep's
 * chart and where it reaches the target), then every metric in a table that fits a laptop
 * screen, then the other charts and the files.
 *
 * The pieces are exported for other pages (sensitivity, the workbench): `pageShell` (the
 * document and its style), `metricTable` (metrics with intervals, laid out to fit),
 * `figure` (one chart) and `answerTable` (where a sweep reaches a target).
 */
import type { ChartSpec, Difference, ScenarioResult } from '../systems/types.js';
import type { Estimate } from '../stats/intervals.js';
import { closestPoint, crossings, directionOf, shortName, sideThroughout, solveCommand, type Crossing } from '../systems/chart-kit.js';
import { conditionalText, fmt, overDifferentTrialsText, runText, show, showCount, showHtml, showInterval, zeroBoundText } from './format.js';
import { orderedMetrics } from './summary-json.js';
import { answerMetrics, answerOrder, type AnswerColumns } from '../api/answer.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:1100px;padding:0 1rem;color:#222}
h1{font-size:1.5rem;margin:.3rem 0}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .45rem;text-align:right;vertical-align:top}
th{background:#f3f3f3;font-weight:600}td.l,th.l{text-align:left}th.m{text-align:left;font-weight:normal;background:#fafafa}
.muted,.ci{color:#666}.over{font-size:.85em;color:#8a4b00;font-style:italic;display:inline-block;max-width:18em;white-space:normal}.ci{font-size:.85em;white-space:nowrap}.big{font-size:1.25em;font-weight:600}
.up{color:#1f5fa8}.down{color:#a65400}.flat{color:#666}.warn{color:#b3261e}
figure{margin:1rem 0}figcaption{color:#666;font-size:.9em}img{max-width:100%;height:auto}code{background:#f3f3f3;padding:0 .2rem}
.notice{border-left:4px solid #e4572e;background:#fff4ef;padding:.4rem .8rem;margin:.8rem 0}
.compact .ci{display:none}body:has(#show-ci:checked) .compact .ci{display:inline}
.mirror{cursor:pointer}.mirror::before{content:"☐ ";font-size:1.1em}body:has(#show-ci:checked) .mirror::before{content:"☑ "}
.scroll{overflow-x:auto}.toggle{font-size:.9em;color:#444}
.sides{border-left:4px solid #1f5fa8;background:#f2f6fb;padding:.35rem .8rem;margin:.6rem 0}dl.glossary{margin:.4rem 0;display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}dl.glossary dt{margin:0}dl.glossary dd{margin:0;color:#333}
.answer td,.key{white-space:nowrap}.answer th.group{text-align:center;font-weight:normal;font-size:.9em;color:#444}.answer .sep{border-left:3px double #999}table.index{width:100%}.where{color:#666;font-size:.85em}.desc{color:#444;font-size:.9em}`;

/** Metrics that watch the engine itself (never expected to be non-zero): kept out of the designer's tables, a notice when not zero. */
const INTERNAL_METRICS: Record<string, string> = {
  p_guard: 'share of trials in which a combat round hit its action guard (a loop cap that should never be reached: please report it)',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** A metric name that may break after its underscores (narrow table headers). */
function breakable(name: string): string {
  return escapeHtml(name).replace(/_/g, '_<wbr>');
}

/** The document: title, style, an optional link back to the index, and the body. */
export function pageShell(opts: { title: string; body: string; indexHref?: string }): string {
  const back = opts.indexHref ? `<p><a href="${escapeHtml(opts.indexHref)}">all reports</a></p>\n` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(opts.title)}</title><style>${STYLE}</style></head>
<body>
${back}${opts.body}
</body></html>
`;
}

/**
 * One chart: its SVG (drawn headlessly) with a caption and a link to its Vega-Lite spec. Not
 * `drawn` (`run --no-charts`): a line in its place that says so, and the link to its spec.
 */
export function figure(c: Pick<ChartSpec, 'name' | 'title' | 'caption'>, dir = 'charts', drawn = true): string {
  const base = `${dir}/${encodeURIComponent(c.name)}`;
  const caption = c.caption ? `${escapeHtml(c.caption)} — ` : '';
  const chart = drawn
    ? `<img src="${base}.svg" alt="${escapeHtml(c.title)}">`
    : `<p class="muted">${escapeHtml(c.title)}: not drawn (the report was written with <code>--no-charts</code>; run it again without that option to draw its charts)</p>`;
  return `<figure>${chart}<figcaption>${caption}<a href="${base}.vl.json">Vega-Lite spec</a></figcaption></figure>`;
}

/**
 * What the colour of a difference means: its direction only, when its 95% interval excludes 0.
 * Never green and red: a rise is good for one side and bad for the other (p_castle_falls up is
 * the defender's loss), so the colours are a blue and an orange that say nothing of good or bad.
 */
export const DIRECTION_KEY = '<span class="up">Blue: up</span>, <span class="down">orange: down</span>, when the 95% interval excludes 0; the colour shows the direction only, not whether it is good (that depends on the side).';

/** A value and its interval in one cell; `delta` marks a difference (coloured when its interval excludes 0). */
function valueCell(m: Estimate | undefined, opts: { big?: boolean; delta?: boolean; td?: string } = {}): string {
  // opts.td: the cell's own class (a column separator), kept on the "–" of a missing value too
  if (!m || !Number.isFinite(m.value)) return `<td class="${opts.td ? `${opts.td} ` : ''}muted">–</td>`;
  const cls = opts.delta ? directionClass(m) : opts.big ? 'big' : '';
  const sign = opts.delta && m.value > 0 ? '+' : '';
  // a conditional mean's difference whose event moved: the two means average different trials
  const o = opts.delta ? (m as Difference).overDifferentTrials : undefined;
  const over = o ? `<br><span class="over">${escapeHtml(overDifferentTrialsText(o))}</span>` : '';
  // a difference not paired trial by trial (a mean over the trials of an event) says so beside its interval
  const welch = opts.delta && (m as Difference).paired === false ? ' <span class="muted">(Welch)</span>' : '';
  return `<td${opts.td ? ` class="${opts.td}"` : ''} title="${escapeHtml(`95% interval ${showInterval(m.value, m.ci_low, m.ci_high)}`)}"><span${cls ? ` class="${cls}"` : ''}>${sign}${showHtml(m.value)}</span> <span class="ci">[${showHtml(m.ci_low)}, ${showHtml(m.ci_high)}]</span>${welch}${over}</td>`;
}

/**
 * The metrics among `metrics` whose difference from the baseline is Welch's in some case (not
 * paired trial by trial: a mean over the trials in which an event happened, RulesSystem.conditionalOn).
 */
export function welchMetrics(r: Pick<ScenarioResult, 'cases'>, metrics: readonly string[]): string[] {
  return metrics.filter((m) => r.cases.some((c) => c.differences[m]?.paired === false));
}

/**
 * How the differences' intervals are made, as a sentence: paired (the per-trial differences on
 * the same trials) for every metric over all trials, and which metrics (`welch`) get Welch's
 * interval instead, each with the event whose trials it averages. `html`: with <code> names.
 * @example pairingText({ conditionalOn: { mean_turns: 'p_surrender' } }, ['mean_turns'], false)
 * // "Variants share dice (common random numbers): a difference's 95% interval is paired (from the per-trial differences on the same trials) for every metric over all trials; Welch's, marked (Welch), for mean_turns (a mean over the trials with p_surrender): the two sides average different trials, so the difference is not paired trial by trial."
 */
export function pairingText(r: Pick<ScenarioResult, 'conditionalOn'>, welch: readonly string[], html: boolean): string {
  const name = (m: string) => (html ? `<code>${escapeHtml(m)}</code>` : m);
  const head = "Variants share dice (common random numbers): a difference's 95% interval is paired (from the per-trial differences on the same trials) for every metric over all trials";
  if (welch.length === 0) return `${head}.`;
  const each = welch.map((m) => {
    const event = r.conditionalOn?.[m];
    return event ? `${name(m)} (${conditionalText(html ? escapeHtml(event) : event)})` : name(m);
  });
  return `${head}; Welch's, marked (Welch), for ${each.join(', ')}: the two sides average different trials, so the difference is not paired trial by trial.`;
}

/** The CSS class of a difference's direction (chart-kit's directionOf): up, down, or flat when its interval holds 0. */
export function directionClass(x: { ci_low: number; ci_high: number }): 'up' | 'down' | 'flat' {
  const d = directionOf(x);
  return d === 'no clear change' ? 'flat' : d;
}

/** The name of a case in a column header or a row: its variant and swept values. */
function caseName(r: ScenarioResult, c: ScenarioResult['cases'][number]): string {
  const parts = [...(r.variants.length > 1 ? [escapeHtml(c.variant)] : []), ...r.params.map((p) => `${escapeHtml(shortName(p))}=${escapeHtml(String(c.params[p]))}`)];
  return parts.join('<br>') || escapeHtml(c.variant);
}

/** Who the metrics' attacker and defender are (ScenarioResult.sides), shown by the Answer; empty where the system names none. */
export function sidesHtml(r: Pick<ScenarioResult, 'sides'>): string {
  const lines = r.sides ?? [];
  if (lines.length === 0) return '';
  return `<div class="sides"><b>Who is who:</b> ${lines.map((l) => escapeHtml(l)).join('<br>')}</div>`;
}

/** A definition's `key` spans (a scenario key it names, as the rules files write it) as code, not raw backticks. Its text escaped first. */
function codeSpans(escaped: string): string {
  return escaped.replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** What each of the metrics counts (ScenarioResult.metricDocs), for the metrics given (those the page shows); empty when none has a definition. */
export function glossaryHtml(r: Pick<ScenarioResult, 'metricDocs'>, metrics: readonly string[]): string {
  const known = metrics.filter((m) => r.metricDocs?.[m] !== undefined);
  if (known.length === 0) return '';
  return `<h3 id="metric-docs">What the metrics mean</h3>
<dl class="glossary">${known.map((m) => `<dt><code>${escapeHtml(m)}</code></dt><dd>${codeSpans(escapeHtml(r.metricDocs![m]))}</dd>`).join('')}</dl>`;
}

/** Columns a metrics-as-rows table can take before it outgrows a laptop screen. */
const MAX_COLUMNS = 4;

/**
 * Metrics with their 95% intervals, laid out to be read without scrolling sideways: with a
 * few cases, one row per metric and a column per case (the difference from the baseline under
 * each value); with many, one row per case, the values only (intervals on hover, or all shown
 * with the toggle), and the differences in a second table.
 */
export function metricTable(r: ScenarioResult, metrics: string[]): string {
  const hasDiff = r.variants.length > 1;
  const trialsDiffer = new Set(r.cases.map((c) => c.trials)).size > 1;
  if (r.cases.length <= MAX_COLUMNS) {
    const head = `<tr><th class="l">metric</th>${r.cases.map((c) => `<th>${caseName(r, c)}</th>`).join('')}</tr>`;
    const trialsRow = trialsDiffer ? `<tr><th class="m">trials</th>${r.cases.map((c) => `<td>${showCount(c.trials)}</td>`).join('')}</tr>` : '';
    const rows = metrics.map((m) => {
      const cells = r.cases.map((c) => {
        const d = c.differences[m];
        const main = valueCell(c.metrics[m]);
        if (!hasDiff || !d) return main;
        return main.replace(/<\/td>$/, `<br><span class="ci">Δ</span> ${valueCell(d, { delta: true }).replace(/^<td[^>]*>|<\/td>$/g, '')}</td>`);
      });
      return `<tr><th class="m">${escapeHtml(m)}</th>${cells.join('')}</tr>`;
    });
    const note = hasDiff ? `<p class="muted">Δ: the difference from the baseline (${escapeHtml(r.variants[0])}). ${DIRECTION_KEY} ${pairingText(r, welchMetrics(r, metrics), true)}</p>` : '';
    return `<table>${head}${trialsRow}\n${rows.join('\n')}</table>\n${note}`;
  }
  // the case number says which sweep point: without a sweep every case is 1
  const sweep = r.params.length > 0;
  const keyHead = [...(sweep ? ['case'] : []), ...(r.variants.length > 1 ? ['variant'] : []), ...r.params.map(shortName), ...(trialsDiffer ? ['trials'] : [])];
  const variantAt = r.variants.length > 1 ? (sweep ? 1 : 0) : -1;
  const keyCells = (c: ScenarioResult['cases'][number]) =>
    [...(sweep ? [String(c.case)] : []), ...(r.variants.length > 1 ? [c.variant] : []), ...r.params.map((p) => String(c.params[p])), ...(trialsDiffer ? [showCount(c.trials)] : [])]
      .map((v, i) => `<td class="key${i === variantAt ? ' l' : ''}">${escapeHtml(v)}</td>`)
      .join('');
  const table = (rowsOf: typeof r.cases, pick: (c: ScenarioResult['cases'][number], m: string) => string) =>
    `<div class="scroll"><table class="compact"><tr>${keyHead.map((h, i) => `<th${i === variantAt ? ' class="l"' : ''}>${escapeHtml(h)}</th>`).join('')}${metrics.map((m) => `<th>${breakable(m)}</th>`).join('')}</tr>\n${rowsOf
      .map((c) => `<tr>${keyCells(c)}${metrics.map((m) => pick(c, m)).join('')}</tr>`)
      .join('\n')}</table></div>`;
  const toggle = `<label class="toggle"><input type="checkbox" id="show-ci"> show the 95% intervals (or hover over a value)</label>`;
  let out = `${toggle}\n${table(r.cases, (c, m) => valueCell(c.metrics[m]))}`;
  if (hasDiff) {
    const withDiff = r.cases.filter((c) => Object.keys(c.differences).length > 0);
    out += `\n<h3>Difference from the baseline (${escapeHtml(r.variants[0])})</h3>
<p class="muted">${pairingText(r, welchMetrics(r, metrics), true)} ${DIRECTION_KEY}${sweep ? ' The Answer shows its metrics’ differences with their intervals.' : ''}</p>
<label class="toggle mirror" for="show-ci">show the 95% intervals in both tables (or hover over a value)</label>
${table(withDiff, (c, m) => valueCell(c.differences[m], { delta: true }))}`;
  }
  return out;
}

/**
 * Whether any turned setting of a sensitivity ranking moved its metric (an effect other than 0):
 * the one rule for the sensitivity page's lead line and the index's answer, so they say the same.
 */
export function settingsMoved(ranking: readonly { effect: number }[]): boolean {
  return ranking.some((x) => Number.isFinite(x.effect) && x.effect !== 0);
}

/** The answer of a run without a sweep: a row per variant, the difference from the baseline under each value. */
function headlineTable(r: ScenarioResult, cols: AnswerColumns): string {
  const base = r.variants[0];
  const metrics = answerOrder(cols);
  const grouped = cols.outcome.length > 0;
  // the outcome group, and the "also" after it, each start after a separator (not the table's first column)
  const starts = grouped ? [cols.lead.length, cols.lead.length + cols.outcome.length].filter((i) => i > 0) : [];
  const sep = (i: number) => starts.includes(i) && i < metrics.length;
  const name = (m: string, i: number, extra = '') => `<th${sep(i) ? ' class="sep"' : ''}${extra}>${escapeHtml(m)}</th>`;
  const corner = r.variants.length > 1 ? 'variant' : '';
  const groupSep = (i: number) => (sep(i) ? ' sep' : '');
  const head = grouped
    ? `<tr><th class="l" rowspan="2">${corner}</th>${cols.lead.map((m, i) => name(m, i, ' rowspan="2"')).join('')}<th colspan="${cols.outcome.length}" class="group${groupSep(cols.lead.length)}">how each trial ends (one of these, so they sum to 1)</th>${cols.also.length > 0 ? `<th colspan="${cols.also.length}" class="group${groupSep(cols.lead.length + cols.outcome.length)}">also</th>` : ''}</tr>
<tr>${metrics.map((m, i) => (i < cols.lead.length ? '' : name(m, i))).join('')}</tr>`
    : `<tr><th class="l">${corner}</th>${metrics.map((m, i) => name(m, i)).join('')}</tr>`;
  const rows = r.cases.map((c) => {
    const cells = metrics.map((m, i) => {
      const main = valueCell(c.metrics[m], { big: true, td: sep(i) ? 'sep' : undefined });
      const d = c.differences[m];
      if (c.variant === base || !d) return main;
      return main.replace(/<\/td>$/, `<br><span class="ci">Δ</span> ${valueCell(d, { delta: true }).replace(/^<td[^>]*>|<\/td>$/g, '')}</td>`);
    });
    return `<tr><td class="l">${escapeHtml(c.variant)}</td>${cells.join('')}</tr>`;
  });
  const key = r.variants.length > 1 ? `\n<p class="muted">Δ: the difference from ${escapeHtml(base)}. ${DIRECTION_KEY}</p>` : '';
  return `<table class="answer">${head}\n${rows.join('\n')}</table>${key}`;
}

/**
 * One sweep point of a run with variants, for one metric: each variant's estimate (in the run's
 * variant order) and each later variant's paired difference from the baseline, the case's own
 * `differences` (summary.csv's `diff_` rows): never recomputed here.
 */
export interface PointDifferences {
  params: Record<string, unknown>;
  values: (Estimate | undefined)[];
  diffs: (Estimate | undefined)[];
}

/** A sweep × variants run's points for one metric, in case order (every variant of a point shares its `case`). */
export function pointDifferences(r: ScenarioResult, metric: string): PointDifferences[] {
  const byCase = new Map<number, ScenarioResult['cases']>();
  for (const c of r.cases) {
    if (!byCase.has(c.case)) byCase.set(c.case, []);
    byCase.get(c.case)!.push(c);
  }
  return [...byCase.values()].map((cs) => {
    const of = (v: string) => cs.find((c) => c.variant === v);
    return { params: cs[0].params, values: r.variants.map((v) => of(v)?.metrics[metric]), diffs: r.variants.slice(1).map((v) => of(v)?.differences[metric]) };
  });
}

/**
 * A metric that is exactly 0 in every case (a way of ending these cases never take), each
 * difference's value 0: named once, not a table of zeros. (No trial counted in any variant, so
 * none differed; a difference's interval is still what the trials cannot rule out.)
 */
export function zeroInEveryCase(r: ScenarioResult, metric: string): boolean {
  const zero = (e: Estimate | undefined) => !e || e.value === 0;
  return r.cases.every((c) => c.metrics[metric]?.value === 0 && zero(c.differences[metric]));
}

/**
 * The Answer of a sweep with variants: at each swept value, each variant's value and, under each
 * later variant's, its paired difference from the baseline, all with their 95% intervals (the
 * page's other tables show a sweep's intervals only on hover or behind a toggle). Rows are the
 * metrics × the sweep points, so it stays narrow whatever the number of metrics.
 */
export function differenceAnswerTable(r: ScenarioResult, metrics: string[]): string {
  if (r.variants.length < 2 || r.params.length === 0) return '';
  const base = r.variants[0];
  const zero = metrics.filter((m) => zeroInEveryCase(r, m));
  const shown = metrics.filter((m) => !zero.includes(m));
  const head = `<tr><th class="l">metric</th>${r.params.map((p) => `<th>${escapeHtml(shortName(p))}</th>`).join('')}${r.variants.map((v, i) => `<th>${escapeHtml(v)}${i === 0 ? ' <span class="muted">(baseline)</span>' : ''}</th>`).join('')}</tr>`;
  const rows = shown.flatMap((m) => {
    const pts = pointDifferences(r, m);
    return pts.map((pt, i) => {
      const cells = pt.values.map((e, k) => {
        const main = valueCell(e);
        const d = k === 0 ? undefined : pt.diffs[k - 1];
        if (!d) return main;
        return main.replace(/<\/td>$/, `<br><span class="ci">Δ</span> ${valueCell(d, { delta: true }).replace(/^<td[^>]*>|<\/td>$/g, '')}</td>`);
      });
      const name = i === 0 ? `<th class="m" rowspan="${pts.length}">${escapeHtml(m)}</th>` : '';
      return `<tr>${name}${r.params.map((p) => `<td>${xText(pt.params[p])}</td>`).join('')}${cells.join('')}</tr>`;
    });
  });
  const bound = zeroBoundText(zero.flatMap((m) => r.cases.map((c) => c.metrics[m]?.ci_high)));
  const zeros = zero.length > 0 ? `\n<p class="muted">0 in every case${escapeHtml(bound)}: ${zero.map((m) => `<code>${escapeHtml(m)}</code>`).join(', ')}</p>` : '';
  return `<div id="answer-differences">
<h3>The variants at each swept value, and their difference from ${escapeHtml(base)}</h3>
<p>Under each variant's value, <span class="ci">Δ</span>: its difference from the baseline, ${escapeHtml(base)}; every number with its 95% interval. ${pairingText(r, welchMetrics(r, shown), true)} ${DIRECTION_KEY}</p>
${folded(`<div class="scroll"><table class="answer">${head}
${rows.join('\n')}</table></div>`, rows.length, r.cases.length / r.variants.length, shown.length)}${zeros}
</div>`;
}

/** Rows of the variants' table shown open; past them (a large sweep: 2,604 rows ran 190,000 px) it is behind a toggle. */
const OPEN_ROWS = 120;

/** The variants' table, behind a toggle that says its size when it has more than OPEN_ROWS rows. */
function folded(table: string, rows: number, points: number, metrics: number): string {
  if (rows <= OPEN_ROWS) return table;
  return `<details><summary>${showCount(rows)} rows (${showCount(points)} sweep points × ${metrics} metric${metrics === 1 ? '' : 's'}): show them</summary>
${table}</details>`;
}

/**
 * The sentence that replaces "where it first reaches the target" along `p` when that says
 * nothing: every line along it reaches the target, clearly (its interval past it), already at
 * its lowest swept value, so the sweep does not bracket the target. Undefined when some line
 * crosses it, never reaches it or is unresolved: those rows inform. Plain text (the page escapes it).
 */
export function reachedAtLowest(r: ScenarioResult, ks: readonly Crossing[], p: string, metric: string, target: number): string | undefined {
  if (ks.length === 0 || !ks.every((k) => k.answer && !k.neighbour && k.resolved)) return undefined;
  const xs = [...new Set(ks.map((k) => String(k.answer!.x)))];
  const at = xs.length === 1 ? `${shortName(p)} = ${xs[0]}, the lowest swept` : `the lowest swept ${shortName(p)}`;
  const scope = [...(r.variants.length > 1 ? ['variant'] : []), ...r.params.filter((q) => q !== p).map(shortName)];
  const every = ks.length > 1 && scope.length > 0 ? `, in every ${scope.join(' and ')}` : '';
  const dirs = new Set(ks.map((k) => k.direction));
  const sense = dirs.size > 1 ? 'reaches' : dirs.has('rises') ? 'is at or above' : 'is at or below';
  const ms = ks.map((k) => k.answer!.m);
  const same = ms.every((m) => showInterval(m.value, m.ci_low, m.ci_high) === showInterval(ms[0].value, ms[0].ci_low, ms[0].ci_high));
  const lo = Math.min(...ms.map((m) => m.value));
  const hi = Math.max(...ms.map((m) => m.value));
  const values = same ? showInterval(ms[0].value, ms[0].ci_low, ms[0].ci_high) : `${show(lo)} to ${show(hi)}`;
  return `${metric} ${sense} ${target} already at ${at}${every} (${values}): the sweep does not bracket ${target}, so it does not show where it is first reached`;
}

/** How an x value of a sweep is written. */
function xText(x: unknown): string {
  return escapeHtml(String(x));
}

/**
 * Where a sweep reaches a target among its values: for each line through the sweep, the first
 * swept value that reaches the target (read as `siegesim solve` reads it) and its neighbour, both
 * with intervals, and solve's command when the value itself lies between them.
 */
export function answerTable(r: ScenarioResult, metric: string, target: number): string {
  const all = crossings(r, metric, target);
  if (all.length === 0) return '';
  const byParam = r.params.map((p) => all.filter((k) => k.line.along === p));
  return byParam
    .map((ks, i) => {
      const p = r.params[i];
      const plain = reachedAtLowest(r, ks, p, metric, target);
      if (plain) return `<p class="muted reached-at-lowest">${escapeHtml(plain)}</p>`;
      const others = r.params.filter((q) => q !== p);
      const keyHead = [...(r.variants.length > 1 ? ['variant'] : []), ...others.map(shortName)];
      const unresolved = ks.some((k) => k.answer && !k.resolved);
      const rows = ks.map((k) => answerRow(r, k, others, target, unresolved));
      const solve = solveCommand(r, ks, p, metric, target);
      const note = solve ? `\n<p class="muted">The exact value lies between the first and the one step short; to find it: <code>${escapeHtml(solve)}</code></p>` : '';
      return `<table class="answer"><tr>${keyHead.map((h) => `<th class="l">${escapeHtml(h)}</th>`).join('')}<th class="l">first swept ${escapeHtml(shortName(p))} that reaches ${escapeHtml(String(target))}</th><th>${escapeHtml(metric)} there</th><th class="l">one step short</th><th>${escapeHtml(metric)} there</th>${unresolved ? '<th class="l"></th>' : ''}</tr>\n${rows.join('\n')}</table>${note}`;
    })
    .join('\n');
}

/**
 * One end of a metric's range over a sweep: its estimate, where (the first such case), how many
 * other cases tie with it, and how many others its 95% interval cannot tell from it (`near`:
 * a different value whose interval reaches this end's, as extremeOf reads an end), so the end
 * is not read as one case's.
 */
export interface RangeEnd {
  m: Estimate;
  where: string;
  ties: number;
  near: number;
}

/**
 * A metric's lowest and highest estimate over a sweep, per variant (one entry when there is one
 * variant), each with where it is: what a sweep led by a mean answers with, where a probability's
 * answer is where it reaches its target (0.5 means nothing for a mean round count). `overlap`:
 * the two ends' 95% intervals overlap, so the sweep may not move the metric at all.
 */
export function sweepRange(r: ScenarioResult, metric: string): { variant: string; low: RangeEnd; high: RangeEnd; overlap: boolean }[] {
  const where = (c: ScenarioResult['cases'][number]) => r.params.map((p) => `${shortName(p)}=${String(c.params[p])}`).join(', ');
  return r.variants.flatMap((variant) => {
    const at = r.cases.filter((c) => c.variant === variant && Number.isFinite(c.metrics[metric]?.value));
    if (at.length === 0) return [];
    const end = (which: 'lowest' | 'highest'): RangeEnd => {
      const x = extremeOf(at.map((c) => c.metrics[metric]), which);
      const best = at[x.cases[0]];
      const v = best.metrics[metric].value;
      const ties = x.cases.filter((i) => at[i].metrics[metric].value === v).length - 1;
      return { m: best.metrics[metric], where: where(best), ties, near: x.cases.length - 1 - ties };
    };
    const low = end('lowest');
    const high = end('highest');
    const overlap = low.m.ci_high >= high.m.ci_low;
    // ends whose own intervals overlap are said so by rangeNote: no count of cases beside them
    if (overlap) low.near = high.near = 0;
    return [{ variant, low, high, overlap }];
  });
}

/** A sweep's answer when its lead metric is a mean (no target): its lowest and highest value over the sweep, with intervals and where. */
export function rangeTable(r: ScenarioResult, metric: string): string {
  const rows = sweepRange(r, metric);
  if (rows.length === 0) return '';
  const variants = r.variants.length > 1;
  const notes = rows.map(rangeNote);
  const noted = notes.some((n) => n !== '');
  const place = (e: RangeEnd, end: 'low' | 'high') => `<td class="l">${escapeHtml(e.where)}${e.ties > 0 ? ` <span class="muted">and ${e.ties} more</span>` : ''}${e.near > 0 ? ` <span class="muted">(${escapeHtml(nearText(e, end))})</span>` : ''}</td>`;
  const body = rows.map(
    (x, i) =>
      `<tr>${variants ? `<td class="l">${escapeHtml(x.variant)}</td>` : ''}${valueCell(x.low.m, { big: true })}${place(x.low, 'low')}${valueCell(x.high.m, { big: true })}${place(x.high, 'high')}${noted ? `<td class="l muted">${escapeHtml(notes[i])}</td>` : ''}</tr>`,
  );
  return `<p>How <code>${escapeHtml(metric)}</code> varies over the swept values: its lowest and highest (a mean, so no target is read; its value at every case is in the table below):</p>
<table class="answer"><tr>${variants ? '<th class="l">variant</th>' : ''}<th>lowest ${escapeHtml(metric)}</th><th class="l">at</th><th>highest ${escapeHtml(metric)}</th><th class="l">at</th>${noted ? '<th class="l"></th>' : ''}</tr>
${body.join('\n')}</table>`;
}

/**
 * An end's cases that its 95% interval cannot tell from it, said so the end is not read as one
 * case's (the page's and the printed answer's words).
 * @example nearText({ near: 3 }, 'low') // "3 other cases not clearly higher: their 95% intervals overlap this one's"
 */
export function nearText(e: Pick<RangeEnd, 'near'>, end: 'low' | 'high'): string {
  return `${e.near} other case${e.near === 1 ? '' : 's'} not clearly ${end === 'low' ? 'higher' : 'lower'}: ${e.near === 1 ? 'its' : 'their'} 95% interval${e.near === 1 ? ' overlaps' : 's overlap'} this one's`;
}

/** What a range's row adds (the page's and the printed answer's): a metric the sweep leaves as it is, or ends the intervals cannot tell apart. */
export function rangeNote(x: { low: RangeEnd; high: RangeEnd; overlap: boolean }): string {
  if (x.low.m.value === x.high.m.value) return 'the same in every case';
  return x.overlap ? 'the two intervals overlap: the sweep may not move it (run more trials)' : '';
}

function answerRow(r: ScenarioResult, k: Crossing, others: string[], target: number, statusColumn: boolean): string {
  const keys = [...(r.variants.length > 1 ? [k.line.variant] : []), ...others.map((q) => String(k.line.fixed[q]))].map((v) => `<td class="l">${escapeHtml(v)}</td>`).join('');
  const span = statusColumn ? 5 : 4;
  if (!k.answer || k.everywhere) {
    const best = closestPoint(k.line, target);
    const closest = best ? `: the closest is ${showHtml(best.m.value)} <span class="ci">[${showHtml(best.m.ci_low)}, ${showHtml(best.m.ci_high)}]</span> at ${xText(best.x)}` : '';
    // on one side of the target at every swept value (or never reaching it): said so, whichever way the line runs
    const side = sideThroughout(k);
    const what = side ? `${side} ${escapeHtml(String(target))} at every swept value` : 'not reached in the range';
    return `<tr>${keys}<td class="l" colspan="${span}">${what}${closest}</td></tr>`;
  }
  const status = statusColumn ? `<td class="l">${k.resolved ? '' : '<span class="warn">unresolved: an interval contains the target (run more trials)</span>'}</td>` : '';
  const neighbour = k.neighbour
    ? `<td class="l">${xText(k.neighbour.x)}</td>${valueCell(k.neighbour.m)}`
    : `<td class="l muted" colspan="2">reached at the lowest value</td>`;
  const sense = `<span class="ci">${k.direction === 'rises' ? '≥' : '≤'} ${escapeHtml(String(target))}</span>`;
  return `<tr>${keys}<td class="l"><span class="big">${xText(k.answer.x)}</span> ${sense}</td>${valueCell(k.answer.m)}${neighbour}${status}</tr>`;
}

export interface PageOptions {
  /** The link back to the reports index; none when no index is written beside this report. */
  indexHref?: string;
  /** The system's headline metrics (the answer shown first). */
  headline?: string[];
  /** The system's outcome partitions (`RulesSystem.outcomes`): shown whole in the answer. */
  outcomes?: string[][];
  /** The scenario file the run read (its name) and the SHA-256 of its text, copied beside the page as scenario.yaml. */
  scenario?: { name: string; sha256: string };
  /** False when the charts were not drawn (`--no-charts`): each says so in its place. */
  drawn?: boolean;
}

/** A case's metrics in the system's order (the rest by name), without the internal ones: what `answerMetrics` falls back on. */
export function shownMetrics(metricOrder: readonly string[], metrics: Record<string, unknown>): string[] {
  return orderedMetrics({ metricOrder: [...metricOrder] }, metrics).filter((m) => !(m in INTERNAL_METRICS));
}

/** Every metric some case of a run produces, in the system's order, without the internal ones (a variant may add metrics its baseline lacks: a siege variant's p_breach). */
export function runMetrics(r: { metricOrder: readonly string[]; cases: readonly { metrics: Record<string, unknown> }[] }): string[] {
  return shownMetrics(r.metricOrder, Object.assign({}, ...r.cases.map((c) => c.metrics)));
}

/** A run's Answer columns (answerMetrics over the metrics the run shows and has a value of, or the scenario's `headline:`): the report page's, the index's and `run`'s printed answer (answer-text.ts). */
export function answerColumns(
  r: { metricOrder: readonly string[]; headline?: readonly string[]; cases: readonly { metrics: Record<string, { value: number | null } | undefined> }[] },
  headline: readonly string[],
  outcomes: readonly (readonly string[])[],
): AnswerColumns {
  const metrics = runMetrics(r);
  const produced = (m: string) => metrics.includes(m) && r.cases.some((c) => Number.isFinite(c.metrics[m]?.value));
  return answerMetrics(headline, outcomes, produced, metrics, r.headline);
}

/** The page of one scenario's report. */
export function scenarioPage(r: ScenarioResult, charts: ChartSpec[], files: string[], opts: PageOptions = {}): string {
  const metrics = runMetrics(r);
  const cols = answerColumns(r, opts.headline ?? [], opts.outcomes ?? []);
  const lead = charts.filter((c) => c.lead);
  const rest = charts.filter((c) => !c.lead);
  const drawn = opts.drawn !== false;
  const fig = (c: ChartSpec) => figure(c, 'charts', drawn);

  const notices: string[] = [];
  for (const [m, what] of Object.entries(INTERNAL_METRICS)) {
    const hit = r.cases.filter((c) => (c.metrics[m]?.value ?? 0) > 0);
    if (hit.length > 0) notices.push(`<div class="notice"><code>${escapeHtml(m)}</code> is not zero in ${hit.length} case(s): ${escapeHtml(what)}.</div>`);
  }

  // --precision: say plainly where the target was not reached (the run stopped at its trial cap)
  const missed = r.cases.filter((c) => c.precision && !c.precision.reached);
  if (missed.length > 0) {
    const cap = r.provenance.max_trials !== undefined ? ` at the cap of ${showCount(r.provenance.max_trials)} trials per case` : ' at the trial cap';
    const widest = missed.slice().sort((a, b) => b.precision!.half_width - a.precision!.half_width);
    const list =
      widest
        .slice(0, 5)
        .map((c) => `${caseName(r, c).replace(/<br>/g, ', ')}: ±${showHtml(c.precision!.half_width)} after ${showCount(c.trials)} trials`)
        .join('; ') + (widest.length > 5 ? `; and ${widest.length - 5} more` : '');
    notices.push(
      `<div class="notice"><b>Precision target not reached</b> in ${missed.length} of ${r.cases.length} case${r.cases.length === 1 ? '' : 's'}: the headline intervals were to be ±${escapeHtml(String(missed[0].precision!.target))} or narrower, but the run stopped${cap}. Widest headline half-widths: ${list}.</div>`,
    );
  }

  const answer: string[] = [];
  if (r.params.length === 0 && answerOrder(cols).length > 0) answer.push(headlineTable(r, cols));
  // a sweep with variants: the charts, then the readings compared at each swept value with their
  // intervals (the question a variant asks), then where the lead metric reaches its target
  const compare = r.params.length > 0 && r.variants.length > 1;
  if (compare) answer.push(...lead.map(fig), differenceAnswerTable(r, answerOrder(cols)));
  for (const c of lead) {
    if (!compare) answer.push(fig(c));
    if (c.metric && c.target !== undefined && r.params.length > 0) {
      answer.push(`<p>Where <code>${escapeHtml(c.metric)}</code> reaches ${escapeHtml(String(c.target))} among the swept values (at or above it where it rises with the value, at or below where it falls):</p>`);
      answer.push(answerTable(r, c.metric, c.target));
    } else if (c.metric && r.params.length > 0) answer.push(rangeTable(r, c.metric));
  }

  const trials = r.cases.map((c) => c.trials);
  const lo = Math.min(...trials);
  const hi = Math.max(...trials);
  const trialsText = trials.length === 0 ? '0 trials' : lo === hi ? `${showCount(lo)} trials per case` : `${showCount(lo)}–${showCount(hi)} trials per case`;
  const shape = r.params.length > 0 ? ` (${r.params.map((p) => new Set(r.cases.map((c) => String(c.params[p]))).size).join(' × ')} sweep${r.variants.length > 1 ? ` × ${r.variants.length} variants` : ''})` : r.variants.length > 1 ? ` (${r.variants.length} variants)` : '';
  const p = r.provenance;
  const precision =
    p.precision !== undefined
      ? ` · precision target ±${escapeHtml(String(p.precision))} on the headline metrics (${p.precision_missed ? `<b>missed in ${p.precision_missed}</b>` : 'reached in every case'})`
      : '';
  const body = `<h1>${escapeHtml(r.name)}</h1>
${r.description ? `<p>${escapeHtml(r.description)}</p>` : ''}
<p class="muted">system <code>${escapeHtml(r.system)}</code> · seed <code>${escapeHtml(String(r.seed))}</code> · ${trialsText}${r.horizon !== undefined ? ` · ${escapeHtml(r.horizon)} a trial` : ''} · ${r.cases.length} case${r.cases.length === 1 ? '' : 's'}${shape}${precision}${opts.scenario ? ` · from <a href="scenario.yaml" title="the scenario as run; SHA-256 ${escapeHtml(opts.scenario.sha256)}"><code>${escapeHtml(opts.scenario.name)}</code></a> (SHA-256 <code>${escapeHtml(opts.scenario.sha256.slice(0, 12))}</code>)` : ''} · siegesim ${escapeHtml(p.version)} · ${runText(p)}</p>
${notices.join('\n')}
<h2>Answer (95% intervals)</h2>
${sidesHtml(r)}
${answer.join('\n') || '<p class="muted">no headline metric</p>'}
<h2>All metrics</h2>
${metricTable(r, metrics)}
${glossaryHtml(r, metrics)}
${rest.length > 0 ? `<h2>Charts</h2>\n${rest.map(fig).join('\n')}` : ''}
<h2>Files</h2>
<ul>${files.map((f) => `<li><a href="${encodeURI(f)}">${escapeHtml(f)}</a></li>`).join('')}</ul>`;
  return pageShell({ title: `${r.name} — siegesim`, body, indexHref: opts.indexHref });
}

export interface IndexEntry {
  dir: string;
  name: string;
  system: string;
  description?: string;
  cases: number;
  /** The trials each case ran (`4,000`, or `4,000–16,288` with --precision) and the seed: at which settings the answer holds. */
  trials?: string;
  seed?: string | number;
  /** The answer's metrics (`indexAnswerHtml`): one case's values, or their range over the cases. */
  headline: string;
}

/** A sensitivity or tune report folder in the index: what it asked (HTML) and its answer (HTML). */
export interface AnalysisEntry {
  dir: string;
  kind: 'sensitivity' | 'tune';
  scenario: string;
  system: string;
  what: string;
  answer: string;
}

/**
 * reports/index.html: a link to every scenario's page with its answer (its one case's values, or their range over a sweep or variants),
 * grouped by rules system, then the sensitivity and tune reports (`siegesim sensitivity`/`tune`).
 */
export function indexPage(entries: IndexEntry[], analyses: AnalysisEntry[] = []): string {
  const systems = [...new Set(entries.map((e) => e.system))];
  const sections = systems.map((sys) => {
    const rows = entries
      .filter((e) => e.system === sys)
      .map(
        (e) =>
          `<tr><td class="l key"><a href="${encodeURI(e.dir)}/index.html">${escapeHtml(e.name)}</a></td><td>${e.cases}${e.trials !== undefined ? `<br><span class="muted">× ${escapeHtml(e.trials)} trials${e.seed !== undefined ? `, seed ${escapeHtml(String(e.seed))}` : ''}</span>` : ''}</td><td class="l">${e.headline}</td><td class="l desc">${escapeHtml(e.description ?? '')}</td></tr>`,
      )
      .join('\n');
    return `<h2>${escapeHtml(sys)}</h2>
<table class="index"><tr><th class="l">scenario</th><th>cases</th><th class="l">answer (one case: value [95% interval]; several: lowest – highest over them, and where, when their 95% intervals tell the cases apart)</th><th class="l">question</th></tr>
${rows}</table>`;
  });
  if (analyses.length > 0) {
    const rows = analyses
      .map(
        (a) =>
          `<tr><td class="l key"><a href="${encodeURI(a.dir)}/index.html">${escapeHtml(a.dir)}</a></td><td class="l">${a.kind}</td><td class="l key">${escapeHtml(a.scenario)} <span class="muted">(${escapeHtml(a.system)})</span></td><td class="l desc">${a.what}</td><td class="l">${a.answer}</td></tr>`,
      )
      .join('\n');
    sections.push(`<h2 id="analyses">Which numbers matter: sensitivity and tune</h2>
<p class="muted">Written by <code>siegesim sensitivity</code> (the scenario's settings ranked by how much one step of each moves a metric) and <code>siegesim tune</code> (a search of a few settings for values meeting targets).</p>
<table class="index"><tr><th class="l">report</th><th class="l">kind</th><th class="l">scenario</th><th class="l">what it asks</th><th class="l">answer</th></tr>
${rows}</table>`);
  }
  return pageShell({ title: 'siegesim reports', body: `<h1>siegesim reports</h1>\n${sections.join('\n')}` });
}

/** A case of a report as summary.json keeps it: enough for its index cell. */
export interface IndexCase {
  variant: string;
  params?: Record<string, unknown>;
  metrics: Record<string, IndexEstimate>;
  /** A variant's differences from its baseline at the same point (summary.json's). */
  differences?: Record<string, IndexEstimate & { paired?: boolean }>;
}

/**
 * An index entry's answer cell: the metrics the page's Answer shows (`answerMetrics`). One case:
 * each with its value and 95% interval. Several (a sweep, or variants): each metric's lowest and
 * highest value over the cases, and where only where the runs tell it apart (`extremeOf`): a
 * case named as highest has its interval clear above every other case's; where intervals
 * reach the top (or bottom) one's, those cases are named as ones the intervals cannot tell
 * apart, and where every interval shares a point, no case is picked out. The metrics that are 0 in
 * every case are named together on one line.
 */
export function indexAnswerHtml(cases: IndexCase[], params: string[], variants: string[], metrics: string[], conditionalOn: Record<string, string> = {}): string {
  // a mean over the trials of an event says which, as run's answer and --brief do
  const over = (k: string) => (Object.hasOwn(conditionalOn, k) ? ` <span class="where">(${escapeHtml(conditionalText(conditionalOn[k]))})</span>` : '');
  if (cases.length === 0) return '';
  const where = (c: IndexCase) =>
    escapeHtml([...(variants.length > 1 ? [c.variant] : []), ...params.map((p) => `${shortName(p)}=${String(c.params?.[p])}`)].join(', ') || c.variant);
  if (cases.length === 1) {
    const c = cases[0];
    return metrics
      .map((k) => `<span class="key"><code>${escapeHtml(k)}</code> ${showHtml(c.metrics[k].value)} <span class="ci">[${showHtml(c.metrics[k].ci_low)}, ${showHtml(c.metrics[k].ci_high)}]</span></span>${over(k)}`)
      .join('<br>');
  }
  const zero: string[] = [];
  const zeroHighs: (number | null)[] = [];
  const lines: string[] = [];
  for (const k of metrics) {
    const at = cases.filter((c) => c.metrics[k]?.value != null).map((c) => ({ c, m: c.metrics[k] }));
    const values = at.map((x) => x.m.value as number);
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    if (hi === 0) {
      zero.push(`<code>${escapeHtml(k)}</code>`);
      zeroHighs.push(...at.map((x) => x.m.ci_high));
      continue;
    }
    const ests = at.map((x) => x.m);
    const range = lo === hi ? `${showHtml(lo)} in every case` : `${showHtml(lo)} – ${showHtml(hi)}`;
    let detail = '';
    const same = lo !== hi && sameWithinIntervals(ests);
    const apart = same ? differenceApart(cases, k) : undefined;
    if (apart) detail = ` <span class="where">(${differenceApartText(apart, variants[0] ?? 'baseline', params, true)})</span>`;
    else if (same) detail = ` <span class="where">(the same within their 95% intervals in every case)</span>`;
    else if (lo !== hi) {
      const place = (end: 'lowest' | 'highest') => {
        const e = extremeOf(ests, end);
        const named = e.cases.map((i) => where(at[i].c));
        const list = named.length <= 2 ? named.join('; ') : `${named.slice(0, 2).join('; ')} and ${named.length - 2} more`;
        if (e.clear) return `${end} at ${named[0]}${named.length > 1 ? ` and ${named.length - 1} more with the same value` : ''}`;
        return `${end}: ${named.length === at.length ? `all ${named.length}` : named.length} cases their 95% intervals cannot tell apart, at ${list}`;
      };
      detail = ` <span class="where">(${place('lowest')}; ${place('highest')})</span>`;
    }
    lines.push(`<span class="key"><code>${escapeHtml(k)}</code> ${range}</span>${over(k)}${detail}`);
  }
  if (zero.length > 0) lines.push(`<span class="muted">0 in every case${escapeHtml(zeroBoundText(zeroHighs))}: ${zero.join(', ')}</span>`);
  return lines.join('<br>');
}

/** An estimate as summary.json keeps it (null: no value or no interval). */
export interface IndexEstimate {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

/** An interval's ends, an unknown end taken as unbounded (so it can be told apart from nothing). */
function ends(m: IndexEstimate): [number, number] {
  return [m.ci_low ?? -Infinity, m.ci_high ?? Infinity];
}

/**
 * Whether every estimate's 95% interval holds one common point (the highest low end at most the
 * lowest high end): then no case is higher or lower than another beyond its interval.
 * @example sameWithinIntervals([{ value: 0.861, ci_low: 0.859, ci_high: 0.863 }, { value: 0.8616, ci_low: 0.8594, ci_high: 0.8637 }]) // true
 */
export function sameWithinIntervals(ms: readonly IndexEstimate[]): boolean {
  return Math.max(...ms.map((m) => ends(m)[0])) <= Math.min(...ms.map((m) => ends(m)[1]));
}

/**
 * Where the cases' own intervals overlap (sameWithinIntervals), a variant's difference from its
 * baseline whose 95% interval leaves out 0: the first such case in order, and how many there
 * are. A file's variants play the same dice, so their difference is known far more closely
 * than either value: two readings of a rule at Δ -0.0132 [-0.0166, -0.0098] were called "the
 * same within their 95% intervals" (the index, `run --brief`) by their overlapping intervals.
 */
export function differenceApart<C extends { variant: string; params?: Record<string, unknown>; differences?: Record<string, IndexEstimate & { paired?: boolean }> }>(
  cases: readonly C[],
  m: string,
): { at: C; d: IndexEstimate & { paired?: boolean }; count: number } | undefined {
  let first: { at: C; d: IndexEstimate & { paired?: boolean } } | undefined;
  let count = 0;
  for (const c of cases) {
    const d = c.differences?.[m];
    if (d === undefined || d.value === null || d.ci_low === null || d.ci_high === null) continue;
    if (d.ci_low > 0 || d.ci_high < 0) {
      count++;
      first ??= { at: c, d };
    }
  }
  return first && { ...first, count };
}

/** `differenceApart`'s case in words, as the index and `run --brief` say it: `their 95% intervals overlap, but their difference leaves out 0: retest − always = -0.0132 [-0.0166, -0.0098]`, with its sweep point and how many more cases. */
export function differenceApartText(apart: NonNullable<ReturnType<typeof differenceApart>>, baseline: string, params: readonly string[], html = false): string {
  const { at, d, count } = apart;
  const text = (t: string) => (html ? escapeHtml(t) : t);
  const point = params.length > 0 ? ` at ${params.map((p) => `${shortName(p)}=${String(at.params?.[p])}`).join(', ')}` : '';
  // the page writes a tail probability as 1.6×10⁻⁴ (showHtml), the terminal as 1.6e-4
  const est = html ? `${showHtml(d.value)} [${showHtml(d.ci_low)}, ${showHtml(d.ci_high)}]` : showInterval(d.value!, d.ci_low!, d.ci_high!);
  const more = count > 1 ? ` (and ${count - 1} more case${count > 2 ? 's' : ''})` : '';
  return `their 95% intervals overlap, but their difference leaves out 0: ${text(`${at.variant} − ${baseline}${point}`)} = ${d.value! > 0 ? '+' : ''}${est}${d.paired === false ? ' (Welch)' : ''}${more}`;
}

/**
 * The cases at the highest (or lowest) end of a metric, by index in `ms` (values not null), and
 * whether the end is clear: the highest value's case(s) (every case with that exact value, as two
 * variants that play the same trials have) with a 95% interval whose low end is above every
 * other case's high end. When it is not clear, the cases are those whose intervals reach the
 * extreme case's (a high end at least its low end): the same as it within their intervals, so
 * none of them is named the highest. Non-overlapping 95% intervals are a stricter test than the
 * difference's own interval, so a case named as the extreme is one beyond the run's noise.
 * @example extremeOf([{ value: 0.8610, ci_low: 0.8589, ci_high: 0.8632 }, { value: 0.8616, ci_low: 0.8594, ci_high: 0.8637 }, { value: 0, ci_low: 0, ci_high: 0.0001 }], 'highest') // { clear: false, cases: [1, 0] }
 */
export function extremeOf(ms: readonly IndexEstimate[], end: 'lowest' | 'highest'): { clear: boolean; cases: number[] } {
  const hi = end === 'highest';
  const v = (i: number) => ms[i].value as number;
  const idx = ms.map((_, i) => i);
  const best = idx.reduce((a, i) => ((hi ? v(i) > v(a) : v(i) < v(a)) ? i : a), 0);
  const ties = idx.filter((i) => v(i) === v(best));
  const others = idx.filter((i) => v(i) !== v(best));
  // the extreme's inner end (low end of the highest), the tied cases' weakest
  const inner = hi ? Math.min(...ties.map((i) => ends(ms[i])[0])) : Math.max(...ties.map((i) => ends(ms[i])[1]));
  const reaches = (i: number) => (hi ? ends(ms[i])[1] >= inner : ends(ms[i])[0] <= inner);
  const close = others.filter(reaches).sort((a, b) => (hi ? v(b) - v(a) : v(a) - v(b)) || a - b);
  return { clear: close.length === 0, cases: [...ties, ...close] };
}

export { fmt };
