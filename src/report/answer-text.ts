/**
 * What `siegesim run` prints on stdout: the answer of each scenario as the report page's Answer
 * shows it (the same metrics: `answerMetrics`; the same numbers: `show`), in plain text that fits
 * a screen. Pure: the CLI writes it.
 *
 * - One case, or variants without a sweep: each answer metric with its 95% interval, one line
 *   per variant, the paired difference from the baseline beside each other variant.
 * - A sweep: a table of the answer metrics' values, one row per case (the first and last rows
 *   when there are many, saying how many were left out); with variants, a block per metric with
 *   a row per sweep point: each variant's value and each later variant's paired difference from
 *   the baseline with its 95% interval (the page's differenceAnswerTable). Then where the lead
 *   chart's metric reaches its target, read as `siegesim solve` reads it (the page's answerTable),
 *   or one sentence when the sweep does not bracket it (reachedAtLowest).
 */
import type { ChartSpec, Difference, ScenarioResult } from '../systems/types.js';
import type { Estimate } from '../stats/intervals.js';
import { closestPoint, crossings, shortName, sideThroughout, solveCommand } from '../systems/chart-kit.js';
import { answerOrder } from '../api/answer.js';
import { answerColumns, pairingText, pointDifferences, rangeNote, reachedAtLowest, sweepRange, welchMetrics, zeroInEveryCase, type RangeEnd } from './html.js';
import { overDifferentTrialsText, show, showCount, showInterval, zeroBoundText } from './format.js';

/** Rows of a sweep table shown whole; beyond it the first and last `SWEEP_ENDS` rows. */
export const SWEEP_ROWS = 10;
const SWEEP_ENDS = 4;
/** Crossing lines shown (a 2-D sweep has one per row and per column of its grid). */
export const CROSSING_LINES = 6;

export interface AnswerTextOptions {
  /** The system's headline metrics and outcome partitions (RulesSystem.headline, outcomes). */
  headline: string[];
  outcomes?: string[][];
  /** The report's charts: a lead chart's metric and target say where a sweep's answer is read. */
  charts?: readonly Pick<ChartSpec, 'lead' | 'metric' | 'target'>[];
  /** Where the report went, named where rows are left out (`reports/x/summary.csv`). */
  out?: string;
}

/** The metrics the Answer shows, in its order: the report page's (answerColumns), internal metrics never among them. */
export function answerNames(r: ScenarioResult, headline: string[], outcomes: string[][] = []): string[] {
  return answerOrder(answerColumns(r, headline, outcomes));
}

/** Left-aligned columns, two spaces apart, each row indented by two; trailing blanks dropped. */
function columns(rows: string[][], right: (k: number) => boolean = () => false): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, k) => (widths[k] = Math.max(widths[k] ?? 0, c.length)));
  return rows.map((row) => ('  ' + row.map((c, k) => (right(k) ? c.padStart(widths[k]) : c.padEnd(widths[k]))).join('  ')).trimEnd());
}

/** `0.3119 [0.3099, 0.3140]`; a difference with its sign, as the page writes it: `+0.0380 [0.0330, 0.0430]`. */
export function estimateText(m: Estimate | undefined, delta = false): string {
  if (!m || !Number.isFinite(m.value)) return '–';
  return (delta && m.value > 0 ? '+' : '') + showInterval(m.value, m.ci_low, m.ci_high);
}

/** A difference as `estimateText` writes it, and where a conditional mean's event moved, that it averages other trials (`over different trials: p_breach 0.8720 → 0.0960`). */
export function deltaText(d: Difference | undefined): string {
  const o = d?.overDifferentTrials;
  return estimateText(d, true) + (d?.paired === false ? ' (Welch)' : '') + (o ? ` (${overDifferentTrialsText(o)})` : '');
}

/** Under a table of differences: which of its metrics' intervals are Welch's, not paired (pairingText); nothing when every one is paired. */
function welchLines(r: ScenarioResult, names: readonly string[]): string[] {
  const welch = welchMetrics(r, names);
  return welch.length === 0 ? [] : wrapText(pairingText(r, welch, false), '  ', '    ');
}

/** Width the sides and definitions lines are wrapped to (a terminal's 100 columns and then some are common; 80 would cut most). */
export const TEXT_WIDTH = 100;

/** `text` in lines of at most `width` characters (a longer word stays whole), the first led by `first`, the others by `rest`. */
export function wrapText(text: string, first: string, rest: string, width = TEXT_WIDTH): string[] {
  const out: string[] = [];
  let line = first;
  let empty = true;
  for (const w of text.split(/\s+/).filter((x) => x !== '')) {
    if (!empty && line.length + 1 + w.length > width) {
      out.push(line);
      line = rest + w;
    } else line += (empty ? '' : ' ') + w;
    empty = false;
  }
  out.push(line);
  return out;
}

/**
 * The answer of one scenario's run, as lines of text ending in a newline: its head line, who
 * the metrics' attacker and defender are (`r.sides`, when the system names them), the numbers,
 * then what each metric shown counts (`r.metricDocs`).
 */
export function answerText(r: ScenarioResult, opts: AnswerTextOptions): string {
  const names = answerNames(r, opts.headline, opts.outcomes);
  const [head, ...body] = r.params.length === 0 ? casesText(r, names) : sweepText(r, names, opts);
  const sides = (r.sides ?? []).flatMap((t) => wrapText(t, '  sides: ', '    '));
  return [head, ...sides, ...body, ...metricsText(r, names)].join('\n') + '\n';
}

/** What the metrics shown count (their definitions, RulesSystem.metricDocs), a wrapped line or two each. */
export function metricsText(r: Pick<ScenarioResult, 'metricDocs'>, names: readonly string[]): string[] {
  const known = names.filter((m) => r.metricDocs?.[m] !== undefined);
  if (known.length === 0) return [];
  const w = Math.max(...known.map((m) => m.length));
  return ['what these metrics count:', ...known.flatMap((m) => wrapText(r.metricDocs![m], `  ${m.padEnd(w)}  `, ' '.repeat(w + 4)))];
}

/**
 * Over which trials the answer holds, for its first line: ` over 200,000 trials (seed 656001)`, a
 * case at a time where there are several (` over 200,000 trials a case`, or their range where
 * --precision stopped cases apart). Stdout alone (`run > answer.txt`) then says it; the line on
 * stderr is the run's progress, not the answer's.
 */
export function trialsText(r: Pick<ScenarioResult, 'cases' | 'seed' | 'horizon'>): string {
  const ts = r.cases.map((c) => c.trials);
  if (ts.length === 0) return '';
  const lo = Math.min(...ts);
  const hi = Math.max(...ts);
  const count = lo === hi ? `${showCount(lo)} trial${lo === 1 ? '' : 's'}` : `${showCount(lo)}-${showCount(hi)} trials`;
  // how far each trial runs: every probability is read at that cap
  return ` over ${count}${ts.length > 1 ? ' a case' : ''} (seed ${String(r.seed)}${r.horizon !== undefined ? `; ${r.horizon} a trial` : ''})`;
}

/** No sweep: each metric, a line per variant (with its difference from the baseline). */
function casesText(r: ScenarioResult, names: string[]): string[] {
  const variants = r.variants.length > 1;
  const base = r.variants[0];
  const head = `${r.name}: ${variants ? `${r.variants.length} variants, ` : ''}95% intervals${trialsText(r)}${variants ? `; Δ: the paired difference from ${base}` : ''}`;
  const rows: string[][] = [];
  for (const m of names) {
    // a metric that is 0 with the same interval in every variant (a way of ending these cases never take) is one line
    const first = r.cases[0]?.metrics[m];
    if (variants && first?.value === 0 && r.cases.every((c) => estimateText(c.metrics[m]) === estimateText(first))) {
      rows.push([m, 'every variant', estimateText(first)]);
      continue;
    }
    r.cases.forEach((c, i) => {
      const d = c.variant === base ? undefined : c.differences[m];
      rows.push([i === 0 ? m : '', ...(variants ? [c.variant] : []), estimateText(c.metrics[m]), ...(d ? [`Δ ${deltaText(d)}`] : [])]);
    });
  }
  return [head, ...columns(rows), ...(variants ? welchLines(r, names) : [])];
}

/** A sweep: a table of values (the ends of it when long), then where the lead metric reaches its target. */
function sweepText(r: ScenarioResult, names: string[], opts: AnswerTextOptions): string[] {
  const variants = r.variants.length > 1;
  const out = variants ? sweepVariantsText(r, names, opts) : sweepTable(r, names, opts);
  for (const c of opts.charts ?? []) {
    if (!c.lead || !c.metric) continue;
    out.push(...(c.target === undefined ? rangeText(r, c.metric) : reachText(r, c.metric, c.target)));
  }
  return out;
}

/** The shape of a sweep: `3 sweep x 2 variants`, `6 x 5 sweep`. */
function sweepShape(r: ScenarioResult): string {
  const sizes = r.params.map((p) => new Set(r.cases.map((c) => String(c.params[p]))).size);
  return `${sizes.join(' x ')} sweep${r.variants.length > 1 ? ` x ${r.variants.length} variants` : ''}`;
}

/**
 * A sweep with variants: the readings side by side at each swept value, and each later
 * variant's paired difference from the baseline with its 95% interval (the page's
 * differenceAnswerTable), a block of rows per metric; a metric 0 in every case is named once.
 */
function sweepVariantsText(r: ScenarioResult, names: string[], opts: AnswerTextOptions): string[] {
  const base = r.variants[0];
  const out = [`${r.name}: ${r.cases.length} cases (${sweepShape(r)})${trialsText(r)}; each variant's value (their 95% intervals: in the report) and Δ: the paired difference from ${base}, with its 95% interval`];
  const zero = names.filter((m) => zeroInEveryCase(r, m));
  const head = ['metric', ...r.params.map(shortName), ...r.variants, ...r.variants.slice(1).map((v) => `Δ ${v}`)];
  const rows: string[][] = [head];
  const gaps: { at: number; text: string }[] = [];
  for (const m of names.filter((x) => !zero.includes(x))) {
    const pts = pointDifferences(r, m);
    const shown = pts.length <= SWEEP_ROWS ? pts : [...pts.slice(0, SWEEP_ENDS), ...pts.slice(pts.length - SWEEP_ENDS)];
    shown.forEach((pt, i) => {
      if (pts.length > SWEEP_ROWS && i === SWEEP_ENDS) gaps.push({ at: rows.length, text: `  … ${pts.length - 2 * SWEEP_ENDS} sweep points left out (every case: ${opts.out ? `${opts.out}/summary.csv` : 'summary.csv'})` });
      rows.push([i === 0 ? m : '', ...r.params.map((p) => String(pt.params[p])), ...pt.values.map((e) => show(e?.value)), ...pt.diffs.map((d) => deltaText(d))]);
    });
  }
  const values = 1 + r.params.length;
  const table = columns(rows, (k) => k >= values && k < values + r.variants.length);
  for (const g of gaps.reverse()) table.splice(g.at, 0, g.text);
  out.push(...table);
  if (zero.length > 0) out.push(`  0 in every case${zeroBoundText(zero.flatMap((m) => r.cases.map((c) => c.metrics[m]?.ci_high)))}: ${zero.join(', ')}`);
  out.push(...welchLines(r, names));
  return out;
}

/** A sweep of one variant: a row per case (the ends of the table when long). */
function sweepTable(r: ScenarioResult, names: string[], opts: AnswerTextOptions): string[] {
  const out = [`${r.name}: ${r.cases.length} cases (${sweepShape(r)})${trialsText(r)}; values (their 95% intervals: in the report)`];
  const head = ['case', ...r.params.map(shortName), ...names];
  const row = (c: ScenarioResult['cases'][number]) => [String(c.case), ...r.params.map((p) => String(c.params[p])), ...names.map((m) => show(c.metrics[m]?.value))];
  const n = r.cases.length;
  const shown = n <= SWEEP_ROWS ? r.cases : [...r.cases.slice(0, SWEEP_ENDS), ...r.cases.slice(n - SWEEP_ENDS)];
  const table = columns([head, ...shown.map(row)], (k) => k === 0 || k >= 1 + r.params.length);
  if (n > SWEEP_ROWS) table.splice(1 + SWEEP_ENDS, 0, `  … ${n - 2 * SWEEP_ENDS} rows left out (every case: ${opts.out ? `${opts.out}/summary.csv` : 'summary.csv'})`);
  out.push(...table);
  return out;
}

/** A sweep led by a mean (no target): its lowest and highest value and where, per variant, as the page's rangeTable. */
export function rangeText(r: ScenarioResult, metric: string): string[] {
  const rows = sweepRange(r, metric);
  if (rows.length === 0) return [];
  const variants = r.variants.length > 1;
  // in a cell, the count of cases an end's interval overlaps (the page's words in full made a row
  // ~200 characters wide: fresh-eyes helper); the words once, under the table
  const at = (e: RangeEnd) => `at ${e.where}${e.ties > 0 ? ` and ${e.ties} more` : ''}${e.near > 0 ? ` (${e.near} overlap${e.near === 1 ? 's' : ''})` : ''}`;
  const body = rows.map((x) => [...(variants ? [x.variant] : []), estimateText(x.low.m), at(x.low), estimateText(x.high.m), at(x.high), rangeNote(x)]);
  const near = rows.some((x) => x.low.near > 0 || x.high.near > 0)
    ? [`  (N overlap): N other cases not clearly higher than the lowest (lower than the highest): their 95% intervals overlap that end's`]
    : [];
  return [`${metric} over the swept values (a mean: no target is read):`, ...columns([[...(variants ? ['variant'] : []), 'lowest', '', 'highest', ''], ...body]), ...near];
}

/**
 * Where a sweep's metric reaches a target along each swept parameter, as the page's answerTable
 * shows it: per parameter, a row per line through the sweep (each variant and value of the other
 * parameters), at most CROSSING_LINES rows each.
 */
export function reachText(r: ScenarioResult, metric: string, target: number): string[] {
  const all = crossings(r, metric, target);
  if (all.length === 0) return [];
  // along a parameter where every line reaches the target at its lowest value, the table would say nothing: one sentence does
  const plain = new Map(r.params.map((p) => [p, reachedAtLowest(r, all.filter((k) => k.line.along === p), p, metric, target)]));
  const said = r.params.filter((p) => all.some((k) => k.line.along === p));
  if (said.every((p) => plain.get(p))) return said.map((p) => `where ${metric} reaches ${target}: ${plain.get(p)!}`);
  const out = [`where ${metric} reaches ${target} among the swept values (≥ where it rises, ≤ where it falls):`];
  const variants = r.variants.length > 1;
  for (const p of r.params) {
    const ks = all.filter((k) => k.line.along === p);
    if (ks.length === 0) continue;
    if (plain.get(p)) {
      out.push(`  along ${shortName(p)}: ${plain.get(p)!}`);
      continue;
    }
    const others = r.params.filter((q) => q !== p);
    const keyHead = [...(variants ? ['variant'] : []), ...others.map(shortName)];
    const unresolved = ks.some((k) => k.answer && !k.resolved);
    const head = [...keyHead, `first ${shortName(p)}`, `${metric} there`, 'one step short', `${metric} there`];
    const rows = ks.slice(0, CROSSING_LINES).map((k) => {
      const keys = [...(variants ? [k.line.variant] : []), ...others.map((q) => String(k.line.fixed[q]))];
      if (!k.answer || k.everywhere) {
        const best = closestPoint(k.line, target);
        const side = sideThroughout(k);
        const what = side ? `${side} ${target} at every value` : 'not reached';
        return [...keys, what, '–', ...(best ? [`closest: ${String(best.x)}`, estimateText(best.m)] : [])];
      }
      const sense = k.direction === 'rises' ? '≥' : '≤';
      const short = k.neighbour ? [String(k.neighbour.x), estimateText(k.neighbour.m)] : ['–', '(the lowest value reaches it)'];
      return [...keys, `${String(k.answer.x)} ${sense} ${target}`, estimateText(k.answer.m), ...short, ...(unresolved && !k.resolved ? ['UNRESOLVED: an interval contains the target (run more trials)'] : [])];
    });
    out.push(...columns([head, ...rows]));
    if (ks.length > CROSSING_LINES) out.push(`  … ${ks.length - CROSSING_LINES} more (the report's Answer lists them all)`);
    const solve = solveCommand(r, ks, p, metric, target);
    if (solve) out.push(`  the exact value lies between "first" and "one step short"; to find it: ${solve}`);
  }
  return out;
}
