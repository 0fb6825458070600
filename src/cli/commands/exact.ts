/** `siegesim exact`: the exact answers, where the system has an exact form. */
import type { Command } from 'commander';
import { exactScenario } from '../../api.js';
import { atDefaultSignals, loadAll, UserError } from '../common.js';
import { conditionalText } from '../../report/format.js';

async function exactCommand(files: string[], flags: { json?: boolean }): Promise<void> {
  const scenarios = loadAll(files);
  const all: unknown[] = [];
  for (const v of scenarios) {
    const ex = await atDefaultSignals(() => exactScenario(v));
    if (!v.system.exact) throw new UserError(`${v.file}: system ${v.system.id} has no exact solver`);
    // the means given here that are over the trials of an event (mean_turns over those with
    // p_surrender), as summary.json's conditional_on: said, so none is read as over every trial
    const given = new Set(ex.flatMap((e) => Object.keys(e.exact?.metrics ?? {})));
    const on = v.system.conditionalOn ?? {};
    const conditional = Object.fromEntries(Object.keys(on).filter((m) => Object.hasOwn(on, m) && given.has(m)).map((m) => [m, on[m]]));
    if (flags.json) {
      // differences: added after metrics, on the variants after the baseline only (as summary.json's)
      const differences = (e: (typeof ex)[number]) =>
        e.differences === undefined ? {} : { differences: e.differences && Object.fromEntries(Object.entries(e.differences).map(([k, x]) => [k, { value: Number.isFinite(x) ? x : null }])) };
      all.push({ name: v.name, ...(Object.keys(conditional).length > 0 ? { conditional_on: conditional } : {}), cases: ex.map((e) => ({ case: e.case, variant: e.variant, params: e.params, metrics: e.exact?.metrics ?? null, ...(e.unsolved !== undefined ? { unsolved: e.unsolved } : {}), ...differences(e), ...(e.exact?.omitted?.length ? { omitted: e.exact.omitted } : {}) })) });
      continue;
    }
    process.stdout.write(`# ${v.name} (${v.file})\n`);
    for (const [m, event] of Object.entries(conditional)) {
      const differenced = ex.some((e) => e.differences != null && Object.hasOwn(e.differences, m));
      process.stdout.write(`# ${m}: ${conditionalText(event)}${differenced ? ` (diff_${m}: the difference of two such means, over different trials where ${event} differs)` : ''}\n`);
    }
    const baseline = v.variantNames[0];
    const show = (x: number) => (Number.isFinite(x) ? String(Number(x.toPrecision(10))) : 'n/a');
    for (const e of ex) {
      const params = Object.entries(e.params).map(([k, x]) => `${k}=${String(x)}`).join(' ');
      if (!e.exact) {
        process.stdout.write(`case ${e.case} ${e.variant}${params ? ' ' + params : ''}: ${e.unsolved !== undefined ? `no exact answer: ${e.unsolved}` : 'no exact form'}\n`);
        continue;
      }
      const ms = Object.entries(e.exact.metrics).map(([k, m]) => `${k}=${show(m.value)}`);
      process.stdout.write(`case ${e.case} ${e.variant}${params ? ' ' + params : ''}: ${ms.join('  ')}\n`);
      // what this case has no exact answer for, and why (never left out silently)
      for (const o of e.exact.omitted ?? []) process.stdout.write(`case ${e.case} ${e.variant}${params ? ' ' + params : ''}: no exact answer for ${o.metrics.join(', ')} (${o.why})\n`);
      // the exact difference from the baseline, named as summary.csv names the Monte Carlo one
      if (e.differences && Object.keys(e.differences).length > 0) {
        const ds = Object.entries(e.differences).map(([k, x]) => `diff_${k}=${show(x)}`);
        process.stdout.write(`case ${e.case} ${e.variant} − ${baseline}${params ? ' ' + params : ''}: ${ds.join('  ')}\n`);
      }
    }
  }
  // Always an array, one element per scenario (as run --json).
  if (flags.json) process.stdout.write(JSON.stringify(all, null, 2) + '\n');
}

export function register(program: Command): void {
  program
    .command('exact')
    .description('compute the same metrics exactly, where the system has an exact form')
    .argument('<files...>')
    .option('--json', 'print a JSON array, one element per scenario')
    .action((files: string[], flags: { json?: boolean }) => exactCommand(files, flags));
}
