/** `siegesim tune`: integer values of a few settings that meet several targets at once (exit 3 if none does). */
import type { Command } from 'commander';
import path from 'node:path';
import { missedBy, parseRange, parseTarget, plateauText, tuneScenario, TuneInputError, TuningInputError, type TargetCheck, type TuneResult } from '../../api.js';
import { edgeText, tuneProblemText } from '../../report/tune-text.js';
import { unsureText } from '../../report/tune-verdict.js';
import { tuneJson, writeTuneReport } from '../../report/tune.js';
import { checkFolder, checkReportDir, writeIndex } from '../../report/write.js';
import { caseOptions, listArg, loadAll, onPool, positiveInt, seedArg, threadsOpt } from '../common.js';
import { show, showCount } from '../../report/format.js';
import { estimateText } from '../../report/answer-text.js';

interface TuneFlags {
  params: string[];
  /** Absent when not given (no default: commander's help would print an empty list as one). */
  target?: string[];
  range?: string[];
  budget?: number;
  trials?: number;
  seed?: string | number;
  where?: string;
  threads: number;
  out?: string;
  force?: boolean;
  json?: boolean;
  progress?: boolean;
}

/** "the target" or "all 3 targets". */
const allTargets = (n: number) => (n === 1 ? 'the target' : `all ${n} targets`);

/**
 * The verdict and each target's interval at the answer, as plain text: estimates, intervals and
 * distances as run's answer and the tune page write them (`3.9017 [3.7921, 4.0112]`, a certainty
 * `1 [0.99995, 1]`, a tail `7.7e-7`), the targets as given.
 */
export function tuneText(r: TuneResult): string {
  const b = r.best;
  const settings = r.params.map((p) => `${p.path} = ${b.values[p.path]}`).join(', ');
  const lines = [
    r.found
      ? `found: ${settings} meets ${allTargets(r.targets.length)} (${b.trials} trials)${unsureText(b.checks)}`
      : `no candidate meets ${allTargets(r.targets.length)}; closest: ${settings} (${b.met} of ${r.targets.length} met, ${show(b.distance)} target widths away; ${b.trials} trials)`,
  ];
  for (const c of b.checks ?? []) {
    const how = c.met ? (c.sure ? 'met' : 'met (its interval reaches an edge)') : `missed by ${missedBy(c, show)}`;
    lines.push(`  ${c.metric} = ${estimateText(c)}   target [${c.lo}, ${c.hi}]   ${how}${overTrials(r, c, b.trials)}`);
  }
  for (const p of r.plateaus) lines.push(`  ${plateauText(p)}`);
  for (const e of r.edges) lines.push(`  ${edgeText(e, r.params.find((p) => p.path === e.param)!)}`);
  // the settings the answer holds at (the swept ones, --where's), so stdout alone says which case it is
  if (r.note) lines.push(`  ${r.note}`);
  lines.push(`  searched ${r.params.map((p) => `${p.path} ${p.lo}..${p.hi}${p.loaded !== undefined ? ` (started from ${p.loaded})` : ''}`).join(', ')}`);
  lines.push(`  ${r.evaluations.length} evaluations, ${showCount(r.trialsUsed)} of ${showCount(r.budget)} trials${r.exhausted ? ' (budget exhausted before the search finished)' : ''}`);
  return lines.join('\n') + '\n';
}

/** For a mean over the trials with an event, which trials: `   (a mean over the 3,514 of the 4,000 trials with p_breach)`; '' for any other metric. */
export function overTrials(r: Pick<TuneResult, 'conditional_on'>, c: Pick<TargetCheck, 'metric' | 'n'>, trials: number): string {
  const event = r.conditional_on?.[c.metric];
  return event === undefined ? '' : `   (a mean over the ${showCount(c.n)} of the ${showCount(trials)} trials with ${event})`;
}

async function tuneCommand(file: string, flags: TuneFlags): Promise<void> {
  const [v] = loadAll([file]);
  const out = flags.out ?? path.join('reports', `${v.name}-tune`);
  if (!flags.out) checkFolder('reports', [file]); // its index lists the report
  checkReportDir(out, 'tune', { force: flags.force, inputs: [file], scenario: { name: v.name, file: v.file, named: flags.out !== undefined } }); // before any trial runs
  const r = await onPool(flags, `${v.name} tune`, 'trials of the budget', TuningInputError, (executor, onProgress) =>
    tuneScenario(v, {
      params: flags.params,
      targets: (flags.target ?? []).map(parseTarget),
      ranges: Object.fromEntries((flags.range ?? []).map(parseRange).map((x) => [x.param, [x.lo, x.hi] as [number, number]])),
      budget: flags.budget,
      ...caseOptions(flags, executor, onProgress),
      // which case, said before the first trial (an interrupted search has said it too)
      onPlan: (plan) => plan.note && process.stderr.write(`${v.name}: ${plan.note}\n`),
    }).catch((e: unknown) => {
      // a refusal naming the command's flags (a TuningInputError: exit 2)
      throw e instanceof TuneInputError ? new TuningInputError(tuneProblemText(e.problem)) : e;
    }),
  );
  await writeTuneReport(r, out, { index: !flags.out });
  if (!flags.out) await writeIndex('reports'); // reports/index.html lists it beside the runs
  process.stdout.write(flags.json ? JSON.stringify(tuneJson(r), null, 2) + '\n' : tuneText(r));
  process.stderr.write(`${v.name}: tuned in ${r.provenance.seconds} s -> ${out}\n`);
  if (!r.found) process.exitCode = 3;
}

export function register(program: Command): void {
  const collect = (x: string, acc: string[] | undefined) => [...(acc ?? []), x];
  program
    .command('tune')
    .description('search integer values of 1-3 settings meeting every --target (exit 3 if no candidate does)')
    .argument('<file>')
    .requiredOption('--params <a,b[,c]>', 'integer settings to search (dotted paths)', listArg)
    .option('--target <spec>', 'a target "<metric> in [lo, hi]" (repeat for several)', collect)
    .option('--range <a=LO..HI>', "search range of a parameter (repeatable; default: the span of the file's sweep of it, else around the case's value v, v - max(5, v/2) to v + max(5, v), within its schema bounds)", collect)
    .option('--budget <N>', 'most trials run in all, confirmations included (default 200 x --trials)', positiveInt('--budget'))
    .option('--trials <N>', "trials per candidate (default: the scenario's; 4x for the confirmation)", positiveInt('--trials'))
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .option('--where <path=value,...>', 'settings to set on the case (default: the baseline variant at the first sweep point; a swept setting not named keeps its value there)')
    .addOption(threadsOpt())
    .option('--out <DIR>', 'report folder (default reports/<name>-tune/)')
    .option('--json', 'print tune.json to stdout')
    .option('--force', 'write the report into a folder that holds files siegesim did not write (they are kept)')
    .option('--no-progress', 'no progress bar')
    .action((file: string, flags: TuneFlags) => tuneCommand(file, flags));
}
