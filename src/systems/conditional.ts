/**
 * Conditional metrics: a mean over the trials in which an event happened (fantasy's
 * `mean_breach_round` over the trials with a breach). Two of them can only be compared as
 * answers to the same question while the event's own probability is about the same: where it
 * moved, the two means average different trials (letting shields block engine damage can make
 * `mean_breach_round` fall by 0.65 rounds while `p_breach` falls from 0.872 to 0.096: only the
 * early breaches are left). Every comparison (a variant's difference, `diff`, the workbench's
 * paired table, `sensitivity`) carries an `EventShift` where the event's probability differs
 * significantly; the front ends phrase it ("over different trials: p_breach 0.872 → 0.096").
 */
import { differenceInterval, wilson, type Estimate } from '../stats/intervals.js';
import type { Metric, RulesSystem } from './types.js';

/** The conditioning event of a conditional metric moved between the two sides of a comparison. */
export interface EventShift {
  /** The event, as its system names it (`p_breach`; a sum of outcomes: `p_defender_killed + p_attacker_killed`). */
  event: string;
  /** Its probability on the side compared against (baseline, before, as loaded, the setting's value now) and on the other. */
  from: number;
  to: number;
}

/** The event a metric is conditional on (RulesSystem.conditionalOn), or undefined for a mean over every trial. */
export function conditionOf(sys: Pick<RulesSystem, 'conditionalOn'> | undefined, metric: string): string | undefined {
  const c = sys?.conditionalOn;
  return c && Object.hasOwn(c, metric) ? c[metric] : undefined;
}

/**
 * Where a conditional mean's event differs significantly between two sides, the shift; else
 * undefined. A conditional mean's `n` is the number of trials in which its event happened, so the
 * event's probability on each side is n / trials. The test is `paired`'s interval (the event's own
 * paired difference, on common dice) where there is one, else Newcombe's interval for two
 * independent proportions (conservative for positively correlated sides): "significant" is an
 * interval clear of 0, as the difference itself is judged.
 * @example eventShift('p_breach', { n: 872 }, 1000, { n: 96 }, 1000) // { event: 'p_breach', from: 0.872, to: 0.096 }
 */
export function eventShift(
  event: string | undefined,
  from: Pick<Metric, 'n'> | undefined,
  fromTrials: number,
  to: Pick<Metric, 'n'> | undefined,
  toTrials: number,
  paired?: Estimate,
): EventShift | undefined {
  if (event === undefined || !from || !to || !(fromTrials > 0) || !(toTrials > 0)) return undefined;
  const d = paired && Number.isFinite(paired.ci_low) ? paired : differenceInterval(wilson(from.n, fromTrials), wilson(to.n, toTrials));
  if (!(d.ci_low > 0 || d.ci_high < 0)) return undefined;
  return { event, from: from.n / fromTrials, to: to.n / toTrials };
}

/** The definition of a conditional metric with its event named (what summary.json's `metric_docs` and the pages say). */
export function conditionalDoc(doc: string, event: string): string {
  return `${doc} (conditional on ${event}: where ${event} differs, two values average different trials)`;
}
