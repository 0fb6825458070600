/**
 * summary.json's object, and the provenance keys of where a run's scenario came from. Pure (no
 * node:*, no CSV writer): the command line's report writer and the static site's run worker
 * build the same file from here.
 */
import type { ScenarioResult } from '../systems/types.js';
import { num } from './format.js';
import { SCENARIO_COPY } from './copy-name.js';
import { meanSe } from '../stats/intervals.js';

/**
 * summary.json: `{ name, system, seed, trials, cases: [...], provenance }` (and the scenario's
 * `headline:` when it has one, for the index's answer cell); `provenance` adds its
 * keys to the run's own (what produced the report: write.ts sourceProvenance).
 */
export function summaryJson(r: ScenarioResult, provenance?: Record<string, unknown>): Record<string, unknown> {
  return {
    name: r.name,
    system: r.system,
    description: r.description,
    seed: r.seed,
    trials: r.trials,
    params: r.params,
    variants: r.variants,
    ...(r.headline ? { headline: r.headline } : {}),
    // who the metrics' attacker and defender are, and what each metric counts (added keys: the CSVs are unchanged)
    ...(r.sides ? { sides: r.sides } : {}),
    ...(r.horizon !== undefined ? { horizon: r.horizon } : {}),
    ...(r.metricDocs ? { metric_docs: r.metricDocs } : {}),
    ...(r.conditionalOn ? { conditional_on: r.conditionalOn } : {}),
    cases: r.cases.map((c) => ({
      case: c.case,
      variant: c.variant,
      params: c.params,
      trials: c.trials,
      ...(c.precision ? { precision: { target: c.precision.target, half_width: num(c.precision.half_width), reached: c.precision.reached } } : {}),
      metrics: Object.fromEntries(
        orderedMetrics(r, c.metrics).map((k) => {
          const m = c.metrics[k];
          // conditional_on: the event a conditional mean is over (its n counts it), an added key
          const on = r.conditionalOn?.[k];
          // se: a mean's standard error √(s²/n), before the interval's clamp to its range (diff's Welch test reads it)
          const se = m.kind === 'mean' && m.n > 0 && m.sum !== undefined && m.sumSq !== undefined ? { se: num(meanSe({ n: m.n, sum: m.sum, sumSq: m.sumSq })) } : {};
          return [k, { value: num(m.value), ci_low: num(m.ci_low), ci_high: num(m.ci_high), n: m.n, kind: m.kind, ...se, ...(on !== undefined ? { conditional_on: on } : {}) }];
        }),
      ),
      ...(Object.keys(c.differences).length > 0
        ? {
            differences: Object.fromEntries(
              orderedMetrics(r, c.differences).map((k) => {
                const d = c.differences[k];
                // se: the difference's standard error (value ± Z95·se is its interval), which `diff`
                // needs to compare one run's difference with another's; paired: measured trial by
                // trial on common dice (false: Welch, the two means taken as independent)
                // over_different_trials: a conditional mean's event moved significantly (baseline -> variant)
                const o = d.overDifferentTrials;
                const over = o ? { over_different_trials: { event: o.event, baseline: num(o.from), variant: num(o.to) } } : {};
                return [k, { value: num(d.value), ci_low: num(d.ci_low), ci_high: num(d.ci_high), ...(d.se !== undefined ? { se: num(d.se) } : {}), ...(d.paired !== undefined ? { paired: d.paired } : {}), ...over }];
              }),
            ),
          }
        : {}),
    })),
    provenance: provenance ? { ...r.provenance, ...provenance } : r.provenance,
  };
}

/**
 * summary.json's provenance keys for the scenario a report was made from: the copy's file name
 * and SHA-256 (`sha256sum scenario.yaml` prints the same), where it was read from (`source`: for
 * a report folder, a path from that folder; for the static site, the scenario's address), and the
 * command line's overrides (`reportOverrides`). Timing aside, these are the only keys that depend
 * on where and how the run was made; CSVs never hold them.
 */
export function scenarioProvenance(sha256: string, source: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { scenario: { file: SCENARIO_COPY, sha256, source }, overrides };
}

/** The settings given over the file's (`--trials`, `--seed`, `--precision`, `--max-trials`), by their summary.json names, in that order; with the scenario (`file`), a trial count or seed equal to its own is left out (it changes no number, and merge records it so). */
export function reportOverrides(given: { trials?: number; seed?: string | number; precision?: number; maxTrials?: number }, file?: { trials: number; seed: string | number }): Record<string, unknown> {
  // a --trials or --seed equal to the file's own changes no number: left out (as merge's shardOverrides leaves it)
  const trials = file !== undefined && given.trials === file.trials ? undefined : given.trials;
  const seed = file !== undefined && given.seed === file.seed ? undefined : given.seed;
  return Object.fromEntries(Object.entries({ trials, seed, precision: given.precision, max_trials: given.maxTrials }).filter(([, x]) => x !== undefined));
}

/** Metric names in the system's order, then any others alphabetically. */
export function orderedMetrics(r: Pick<ScenarioResult, 'metricOrder'>, metrics: Record<string, unknown>): string[] {
  const names = Object.keys(metrics);
  const known = r.metricOrder.filter((m) => names.includes(m));
  const rest = names.filter((m) => !r.metricOrder.includes(m)).sort();
  return [...known, ...rest];
}
