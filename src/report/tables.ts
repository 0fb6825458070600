/**
 * The report's tables as rows: summary.csv, <curve>.csv and summary.json. Pure: the writer
 * (report/write.ts) puts them on disk.
 */
import { stringify } from 'csv-stringify/sync';
import type { ScenarioResult } from '../systems/types.js';
import { fmt } from './format.js';
import { orderedMetrics } from './summary-json.js';

/** summary.json is built in a module of its own, without the CSV writer, so the browser's run worker bundles it alone. */
export { summaryJson, scenarioProvenance, reportOverrides, orderedMetrics } from './summary-json.js';

/**
 * summary.csv: `case,variant,<swept params...>,metric,value,ci_low,ci_high,trials,n`; differences
 * as `diff_<metric>`. `n`: the trials the value is over, fewer than `trials` for a mean over the
 * trials of an event (a new user read mean_breach_round's `trials` 10000 as its count, where 6,644
 * trials had a breach); a paired difference's pairs; blank for a Welch difference (each side's
 * own rows give its n).
 */
export function summaryCsv(r: ScenarioResult): string {
  const rows: string[][] = [['case', 'variant', ...r.params, 'metric', 'value', 'ci_low', 'ci_high', 'trials', 'n']];
  for (const c of r.cases) {
    const params = r.params.map((p) => String(c.params[p]));
    for (const name of orderedMetrics(r, c.metrics)) {
      const m = c.metrics[name];
      rows.push([String(c.case), c.variant, ...params, name, fmt(m.value), fmt(m.ci_low), fmt(m.ci_high), String(c.trials), String(m.n)]);
    }
    for (const name of orderedMetrics(r, c.differences)) {
      const d = c.differences[name];
      rows.push([String(c.case), c.variant, ...params, `diff_${name}`, fmt(d.value), fmt(d.ci_low), fmt(d.ci_high), String(c.trials), d.paired === false ? '' : String(d.pairedMoments?.n ?? c.trials)]);
    }
  }
  return stringify(rows);
}

/** One curve file: `case,variant,<keys...>,<valueName>,ci_low,ci_high`. */
export function curveCsv(r: ScenarioResult, curve: string): string {
  const def = r.curveDefs.find((d) => d.file === curve);
  if (!def) throw new Error(`unknown curve ${curve}`);
  const rows: string[][] = [['case', 'variant', ...def.keys, def.valueName, 'ci_low', 'ci_high']];
  for (const c of r.cases) {
    for (const pt of c.curves[curve] ?? []) {
      rows.push([String(c.case), c.variant, ...def.keys.map((k) => String(pt.x[k])), fmt(pt.m.value), fmt(pt.m.ci_low), fmt(pt.m.ci_high)]);
    }
  }
  return stringify(rows);
}
