/** `siegesim sensitivity`: rank a scenario's settings by their paired effect on a metric. */
import type { Command } from 'commander';
import path from 'node:path';
import { OTHER_GAME, parseStep, sensitivityScenario, TuningInputError, type SensitivityResult } from '../../api.js';
import { fromZeroNote, sensitivityJson, writeSensitivityReport } from '../../report/sensitivity.js';
import { startingPoint } from '../../report/analysis-page.js';
import { checkFolder, checkReportDir, writeIndex } from '../../report/write.js';
import { caseOptions, listArg, loadAll, onPool, positiveInt, seedArg, threadsOpt } from '../common.js';
import { estimateText } from '../../report/answer-text.js';
import { overDifferentTrialsText, showCount } from '../../report/format.js';

interface SensitivityFlags {
  metric?: string;
  params?: string[];
  step?: string;
  trials?: number;
  seed?: string | number;
  where?: string;
  threads: number;
  out?: string;
  force?: boolean;
  top: number;
  json?: boolean;
  progress?: boolean;
}


/** The top of the ranking as plain text. */
export function rankingText(r: SensitivityResult, top: number): string {
  // a mean over the trials with an event says over how many of them (the turned cases' own counts differ)
  const over = r.conditional_on && r.baseline ? ` (here a mean over the ${showCount(r.baseline.n)} of them with ${r.conditional_on})` : '';
  const lines = [`${r.metric} = ${estimateText(r.baseline)} ${startingPoint(r)}; ${r.trials} trials per case${over}`];
  const shown = r.ranking.slice(0, top);
  const w = Math.max(...shown.map((x) => x.param.length), 7);
  // a mean over the trials of an event is Welch's (the two cases average different trials): the head says which the rows are
  const shownRows = r.rows.filter((x) => shown.some((s) => s.param === x.param));
  const kind = shownRows.every((x) => x.paired) ? '95% paired interval' : shownRows.some((x) => x.paired) ? '95% interval: paired, or Welch where marked' : "95% interval, Welch's: the cases average different trials";
  lines.push(`rank  ${'setting'.padEnd(w)}  change in ${r.metric} (${kind})`);
  for (const s of shown) {
    const parts = r.rows
      .filter((x) => x.param === s.param)
      .map((x) => `${String(x.from)}→${String(x.to)} ${estimateText({ value: x.effect, ci_low: x.ci_low, ci_high: x.ci_high }, true)}${x.paired ? '' : ' (Welch)'}${x.over_different_trials ? ` (${overDifferentTrialsText(x.over_different_trials)})` : ''}`);
    lines.push(`${String(s.rank).padStart(4)}  ${s.param.padEnd(w)}  ${parts.join('   ')}${s.from_zero ? `   (${fromZeroNote(r)})` : ''}`);
  }
  const hiddenZero = r.ranking.slice(top).filter((x) => x.from_zero).length;
  const last = hiddenZero > 0 ? ` (the last ${hiddenZero} stepped from 0 by a share of their range)` : '';
  if (r.ranking.length > shown.length) lines.push(`  ... ${r.ranking.length - shown.length} more settings in the report${last}`);
  const games = [...new Set(r.skipped.filter((x) => x.reason === OTHER_GAME).map((x) => x.param))];
  if (games.length > 0) lines.push(`  not ranked: ${games.join(', ')}, which change${games.length === 1 ? 's' : ''} the kind of game (--params ${games[0]} to rank it)`);
  return lines.join('\n') + '\n';
}

async function sensitivityCommand(file: string, flags: SensitivityFlags): Promise<void> {
  const [v] = loadAll([file]);
  const out = flags.out ?? path.join('reports', `${v.name}-sensitivity`);
  if (!flags.out) checkFolder('reports', [file]); // its index lists the report
  checkReportDir(out, 'sensitivity', { force: flags.force, inputs: [file], scenario: { name: v.name, file: v.file, named: flags.out !== undefined } }); // before any trial runs
  const r = await onPool(flags, `${v.name} sensitivity`, 'trials', TuningInputError, (executor, onProgress) =>
    sensitivityScenario(v, {
      metric: flags.metric,
      params: flags.params,
      step: flags.step === undefined ? undefined : parseStep(flags.step),
      ...caseOptions(flags, executor, onProgress),
      // which case, said before the first trial (an interrupted ranking has said it too)
      onPlan: (plan) => plan.note && process.stderr.write(`${v.name}: ${plan.note}\n`),
    }),
  );
  await writeSensitivityReport(r, out, { index: !flags.out });
  if (!flags.out) await writeIndex('reports'); // reports/index.html lists it beside the runs
  if (flags.json) process.stdout.write(JSON.stringify(sensitivityJson(r), null, 2) + '\n');
  else process.stdout.write(rankingText(r, flags.top));
  const cases = r.rows.length;
  process.stderr.write(`${v.name}: ${cases} turned case(s) of ${r.ranking.length} setting(s) x ${r.trials} trials in ${r.provenance.seconds} s -> ${out}\n`);
}

export function register(program: Command): void {
  program
    .command('sensitivity')
    .description('rank the settings by the paired effect of one step on a metric (a tornado)')
    .argument('<file>')
    .option('--metric <name>', "metric to rank by (default: the scenario's first headline: metric, else the system's headline)")
    .option('--params <a,b,...>', 'settings to turn (dotted paths; an object path means every setting under it; default all)', listArg)
    .option('--step <N|P%>', 'step size: N, or P% of the value (default: integers 1, decimals 10%)')
    .option('--trials <N>', "trials per case (default: the scenario's)", positiveInt('--trials'))
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .option('--where <path=value,...>', 'settings to set on the case (default: the baseline variant at the first sweep point; a swept setting not named keeps its value there)')
    .addOption(threadsOpt())
    .option('--out <DIR>', 'report folder (default reports/<name>-sensitivity/)')
    .option('--top <N>', 'settings to print (the report has all)', positiveInt('--top'), 10)
    .option('--json', 'print sensitivity.json to stdout instead of the ranking')
    .option('--force', 'write the report into a folder that holds files siegesim did not write (they are kept)')
    .option('--no-progress', 'no progress bar')
    .action((file: string, flags: SensitivityFlags) => sensitivityCommand(file, flags));
}
