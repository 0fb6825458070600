/**
 * What a metric means and who a run's sides are: the lookups the report page, the printed
 * answer and summary.json share (RulesSystem.metricDocs, metricDocFor, sides).
 */
import { conditionalDoc, conditionOf } from './conditional.js';
import type { RulesSystem } from './types.js';

/**
 * A metric's one-line definition: the system's own (`metricDocs`, else `metricDocFor` for a built
 * name), or undefined; a conditional metric's names its event (`conditionalOn`).
 */
export function describeMetric(sys: Pick<RulesSystem, 'metricDocs' | 'metricDocFor' | 'conditionalOn'>, name: string): string | undefined {
  const doc = Object.hasOwn(sys.metricDocs, name) ? sys.metricDocs[name] : sys.metricDocFor?.(name);
  const event = conditionOf(sys, name);
  return doc !== undefined && event !== undefined ? conditionalDoc(doc, event) : doc;
}

/** Definitions of the named metrics that have one, in the order given. */
export function metricDocsOf(sys: Pick<RulesSystem, 'metricDocs' | 'metricDocFor' | 'conditionalOn'>, names: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of names) {
    const d = describeMetric(sys, m);
    if (d !== undefined && !Object.hasOwn(out, m)) out[m] = d;
  }
  return out;
}

/** Distinct sides lines listed, beyond which one stands for them all. */
export const SIDES_LINES = 4;

/**
 * A run's sides lines (ScenarioResult.sides) from each case's line: one line when every case
 * that has one agrees; else one per distinct line, led by the cases it is about (a variant's
 * name when it holds at every sweep point, else `case N variant`). Empty when no case has one.
 * @example sidesLines([{ case: 1, variant: 'a', text: 'x' }, { case: 1, variant: 'b', text: 'x' }]) // ['x']
 */
export function sidesLines(cases: readonly { case: number; variant: string; text: string | undefined }[]): string[] {
  const texts = [...new Set(cases.map((c) => c.text).filter((t): t is string => t !== undefined))];
  if (texts.length <= 1) return texts;
  // a sweep that moves who the sides are (rare: blocks' places swept) is not listed case by case
  if (texts.length > SIDES_LINES) {
    // the first case's line, said to be that case's, and how many others differ (a sweep of forces)
    const first = cases.find((c) => c.text === texts[0])!;
    return [`case ${first.case} ${first.variant}: ${texts[0]} (the sides differ in other cases: ${texts.length - 1} other line-ups; each case's swept values are in summary.csv)`];
  }
  const variants = [...new Set(cases.map((c) => c.variant))];
  // a variant whose every case has the same line is named by itself
  const whole = new Map(variants.map((v) => [v, new Set(cases.filter((c) => c.variant === v).map((c) => c.text)).size === 1]));
  return texts.map((t) => {
    const who = cases.filter((c) => c.text === t);
    const names = [...new Set(who.map((c) => (whole.get(c.variant) ? c.variant : `case ${c.case} ${c.variant}`)))];
    return `${names.join(', ')}: ${t}`;
  });
}
