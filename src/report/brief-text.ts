/**
 * `siegesim run --brief` (what `npm start` prints): one line per scenario, readable at a glance
 * when many run, in columns that line up from the first line on (the names are known before
 * any runs). Pure: the CLI writes it. Each line has the scenario's name (its report folder's
 * name), its cases, the trials each ran, the seconds it took and the first two metrics of its
 * report's Answer (answerNames; two, so a surrender's p_test has its p_surrender beside it and
 * a win its loss): one case's value with its 95% interval, or the lowest and highest over the
 * cases (said to be the same within their 95% intervals when every case's interval shares a
 * point and no variant's difference from its baseline leaves out 0; else that difference), and of a mean over the trials of an event, which (`a mean over the trials with
 * p_surrender`). The full answer is its report's page; the report files are the same
 * with or without --brief.
 */
import type { ScenarioResult } from '../systems/types.js';
import { conditionalText, show, showCount, zeroBoundText } from './format.js';
import { answerNames, estimateText } from './answer-text.js';
import { differenceApart, differenceApartText, sameWithinIntervals } from './html.js';

export interface BriefColumns {
  /** The widest name among the scenarios of the run. */
  name: number;
}

const CASES = 5;
const TRIALS = 11;
const TIME = 8;

/** The column heads, lined up with `briefLine`. */
export function briefHead(cols: BriefColumns): string {
  return `${'scenario'.padEnd(cols.name)}  ${'cases'.padStart(CASES)}  ${'trials/case'.padStart(TRIALS)}  ${'time'.padStart(TIME)}  answer: its report's first two metrics (one case: value [95% interval]; several: lowest – highest)`;
}

/** `4,000` or `4,000–16,288` (the trials the cases really ran). */
export function trialsRange(trials: number[]): string {
  const lo = Math.min(...trials);
  const hi = Math.max(...trials);
  return lo === hi ? showCount(lo) : `${showCount(lo)}–${showCount(hi)}`;
}

/** How many of the Answer's metrics a line shows. */
export const BRIEF_METRICS = 2;

/** The answer cell: the first answer metrics' values and intervals (one case), or their ranges over the cases. */
export function briefAnswer(r: ScenarioResult, headline: string[], outcomes: string[][] = []): string {
  const names = answerNames(r, headline, outcomes).slice(0, BRIEF_METRICS);
  return names.length === 0 ? '–' : names.map((m) => metricBrief(r, m)).join('; ');
}

function metricBrief(r: ScenarioResult, m: string): string {
  // a mean over the trials of an event says so, as run's answer does (its Welch note, its glossary)
  const event = r.conditionalOn?.[m];
  const text = metricValues(r, m);
  return event !== undefined ? `${text} (${conditionalText(event)})` : text;
}

function metricValues(r: ScenarioResult, m: string): string {
  const at = r.cases.map((c) => c.metrics[m]).filter((x) => x !== undefined && Number.isFinite(x.value));
  if (at.length === 0) return `${m} –`;
  if (r.cases.length === 1) return `${m} ${estimateText(at[0])}`;
  const values = at.map((x) => x.value);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  // a range that is only the runs' noise (every interval sharing a point) says so, rather than invite reading a trend into it
  if (lo === hi) return `${m} ${show(lo)} in every case${lo === 0 ? zeroBoundText(at.map((x) => x.ci_high)) : ''}`;
  if (!sameWithinIntervals(at)) return `${m} ${show(lo)} – ${show(hi)}`;
  // variants on the same dice: overlapping intervals are not "the same" when their difference leaves out 0
  const apart = differenceApart(r.cases, m);
  if (apart) return `${m} ${show(lo)} – ${show(hi)} (${differenceApartText(apart, r.variants[0], r.params)})`;
  return `${m} ${show(lo)} – ${show(hi)} (the same within their 95% intervals)`;
}

/** One scenario's line. */
export function briefLine(r: ScenarioResult, cols: BriefColumns, headline: string[], outcomes: string[][] = []): string {
  const secs = `${r.provenance.seconds} s`;
  return `${r.name.padEnd(cols.name)}  ${String(r.cases.length).padStart(CASES)}  ${trialsRange(r.cases.map((c) => c.trials)).padStart(TRIALS)}  ${secs.padStart(TIME)}  ${briefAnswer(r, headline, outcomes)}`;
}
