/** `siegesim solve`: the smallest value of a parameter whose metric reaches a target (a decimal one to a stated resolution). */
import { InvalidArgumentError, type Command } from 'commander';
import { plateauText, solveSweep, SolveInputError, type SolveOptions, type SolvePlan, type SolveResult, type SolveSweepResult } from '../../api.js';
import type { Metric } from '../../api.js';
import { controller, executorOf, loadAll, makeProgress, seedArg, threadsOpt, trialsArg, UserError } from '../common.js';
import { showCount } from '../../report/format.js';
import { conditionOf } from '../../systems/conditional.js';
import { estimateText } from '../../report/answer-text.js';
import { solveJsonIn, solveNextText, solveProblemText, solveTrialsOf } from '../../report/solve-text.js';

/** Exit codes beyond 0-2: the target is not reachable in the range; an answer is unresolved. */
export const EXIT_NOT_REACHABLE = 3;
export const EXIT_UNRESOLVED = 4;

/** The solve command's flags: the API's options, plus where to run and how to print. */
type SolveFlags = Pick<SolveOptions, 'param' | 'metric' | 'target' | 'within' | 'from' | 'to' | 'step' | 'trials' | 'seed' | 'variant' | 'maxTrials'> & {
  threads: number;
  json?: boolean;
  sweep?: boolean;
  verbose?: boolean;
  progress?: boolean;
};

const count = showCount;

/**
 * A value with its interval as run's answer writes it (`0.9999 [0.9998, 1]`, `7.7×10⁻⁷`: not
 * `1.0000`, `0.0000`), and the trials it was run with; for a mean over the trials with an event,
 * also how many of them it averages: `1.2507 [1.2276, 1.2738] (4,000 trials; a mean over the
 * 3,514 of them with p_breach)`.
 */
function showMetricOf(m: Metric, trials: number, event: string | undefined): string {
  return `${estimateText(m)} (${count(trials)} trials${event !== undefined ? `; a mean over the ${count(m.n)} of them with ${event}` : ''})`;
}

const showPoint = (point: Record<string, unknown>) =>
  Object.entries(point)
    .map(([k, x]) => `${k} = ${String(x)}`)
    .join(', ');

async function solveCommand(file: string, flags: SolveFlags): Promise<void> {
  const [v] = loadAll([file]);
  const exec = executorOf(flags.threads); // a pool's threads start with the first trial
  // A progress bar on a terminal; in a log, a start line and a summary line (--verbose: every evaluation).
  const progress = makeProgress(!flags.verbose && flags.progress !== false && process.stderr.isTTY === true, `${v.name} solve`.padEnd(24).slice(0, 24), 'evaluations');
  // the whole request is checked before anything is printed or run (exit 2): onPlan comes after
  const onPlan = (plan: SolvePlan) => {
    if (v.variantNames.length > 1 && flags.variant === undefined) {
      process.stderr.write(`${v.name}: solving on the baseline variant "${v.variantNames[0]}" (--variant NAME for another)\n`);
    }
    const ranges = [...new Set(plan.points.map((p) => `${p.from} to ${p.to}${p.step !== 1 ? ` in steps of ${p.step}` : ''}`))];
    const range = ranges.length === 1 ? `from ${ranges[0]}` : `over its range at each sweep point (${ranges.join(', ')})`;
    process.stderr.write(`${v.name}: solving ${flags.param} ${range} for ${flags.metric} to reach ${flags.target}\n`);
  };
  const t0 = performance.now();
  let r;
  try {
    r = await solveSweep(v, {
      param: flags.param,
      metric: flags.metric,
      target: flags.target,
      within: flags.within,
      from: flags.from,
      to: flags.to,
      step: flags.step,
      trials: flags.trials,
      seed: flags.seed,
      variant: flags.variant,
      maxTrials: flags.maxTrials,
      sweep: flags.sweep,
      executor: exec,
      signal: controller.signal,
      onPlan,
      onProgress: progress.onProgress,
      onStep: (value, m, { point, trials: ran }) => {
        if (!flags.verbose) return;
        const where = Object.keys(point).length > 0 ? `[${showPoint(point)}] ` : '';
        process.stderr.write(`  ${where}${flags.param} = ${value}: ${flags.metric} ${showMetricOf(m, ran, conditionOf(v.system, flags.metric))}\n`);
      },
    });
  } catch (e) {
    if (e instanceof SolveInputError) throw new UserError(solveProblemText(e.problem));
    throw e;
  } finally {
    progress.stop();
    await exec.close();
  }
  process.stderr.write(`${v.name}: ${solveSummary(r, (performance.now() - t0) / 1000, flags.verbose === true)}\n`);
  // The exit code: any unresolved answer (4) before any target out of reach (3).
  const code = !r.resolved ? EXIT_UNRESOLVED : !r.reachable ? EXIT_NOT_REACHABLE : 0;
  if (flags.json) {
    // Always an array, one element per sweep point (one without a sweep), as run --json is per
    // scenario; every key always there: no answer is `"value": null`, not a missing key.
    process.stdout.write(JSON.stringify(r.points.map((p) => solveJsonIn(p)), null, 2) + '\n');
  } else {
    r.points.forEach((p, i) => {
      if (r.params.length > 0) process.stdout.write(`${i > 0 ? '\n' : ''}# ${showPoint(p.point)}\n`);
      process.stdout.write(describe(p, v.variantNames));
    });
  }
  process.exitCode = code;
}

/**
 * The case an answer holds in, when the head line and the sweep point's `#` line do not say it:
 * the variant, when the scenario has several, and the other swept settings where no sweep point
 * gives them (`--no-sweep`: the scenario's own values). Empty when there is nothing to say.
 */
export function caseLine(r: Pick<SolveResult, 'variant' | 'point' | 'held'>, variants: readonly string[]): string {
  const parts: string[] = [];
  const own = Object.entries(r.held).filter(([p]) => !Object.hasOwn(r.point, p));
  if (own.length > 0) parts.push(`at ${showPoint(Object.fromEntries(own))} (the scenario's own value${own.length > 1 ? 's' : ''}: --no-sweep)`);
  if (variants.length > 1) parts.push(`on the variant ${r.variant}${r.variant === variants[0] ? ' (the baseline)' : ''}`);
  return parts.length > 0 ? `  holds ${parts.join(', ')}\n` : '';
}

/** One answer in words: the value and the metric at it and at its neighbour, or why there is none; then the case it holds in (caseLine). */
export function describe(r: SolveResult, variants: readonly string[] = []): string {
  const showMetric = (m: Metric) => showMetricOf(m, solveTrialsOf(r, m), r.conditional_on);
  const held = caseLine(r, variants);
  const cmp = r.increasing ? '>=' : '<=';
  const goal = `${r.metric} ${cmp} ${r.target}${r.within > 0 ? ` (within ${r.within}: ${cmp} ${Number((r.increasing ? r.target - r.within : r.target + r.within).toPrecision(12))})` : ''}`;
  const cap = `the cap of ${count(r.max_trials)} trials per value (--max-trials)`;
  if (!r.reachable || r.value === undefined || !r.at) {
    // the closest end and what to try next, first: the head line alone answers
    const near = r.closest ?? { end: 'to' as const, value: r.to, metric: r.ends.to };
    const edge =
      near.end === 'to'
        ? `the top of the range${r.to >= r.allowed.max ? `, the highest value ${r.param} allows` : ''}`
        : `the bottom of the range${r.from <= r.allowed.min ? `, the lowest value ${r.param} allows` : ''}`;
    const closest = `closest at ${r.param} = ${near.value} (${edge}): ${estimateText(near.metric)}`;
    const head = r.resolved
      ? `not reachable: ${goal} is not reached for ${r.param} in [${r.from}, ${r.to}]; ${closest}\n`
      : `UNRESOLVED: ${goal} may or may not be reached for ${r.param} in [${r.from}, ${r.to}]: at ${r.to} the 95% interval still holds the target at ${cap}; ${closest}\n`;
    const mark = (end: 'from' | 'to') => (near.end === end ? ', the closest' : '');
    return (
      head +
      held +
      `  at ${r.param} = ${r.from}: ${showMetric(r.ends.from)}${mark('from')}\n  at ${r.param} = ${r.to}: ${showMetric(r.ends.to)}${mark('to')}\n` +
      `  next: ${r.next ? solveNextText(r, r.next) : ''}\n`
    );
  }
  // a decimal's answer (or a coarser grid's) is stated to its resolution
  const to = r.kind === 'int' && r.step === 1 ? '' : ` (to ${r.step})`;
  // at the bottom of a range that could start lower: the smallest in the range, not necessarily of all
  const head = r.resolved
    ? `${r.param} = ${r.value}${to}: the smallest value with ${goal}${r.next ? ` from ${r.from} on (the bottom of the range: a smaller value may reach it too)` : ''}\n`
    : `UNRESOLVED: ${r.param} = ${r.value}${to} is only the best estimate of the smallest value with ${goal}: ` +
      `the 95% intervals of ${r.value}${r.neighbour ? ` and ${r.neighbour.value}` : ''} do not separate the target even at ${cap}\n`;
  let out = head + held + `  at ${r.value}: ${r.metric} ${showMetric(r.at)}\n`;
  if (r.neighbour) out += `  at ${r.neighbour.value}: ${r.metric} ${showMetric(r.neighbour.metric)}\n`;
  else
    out +=
      r.next
        ? `  next: ${solveNextText(r, r.next)}\n`
        : `  (${r.value} is the bottom of the range, the lowest value ${r.param} allows: the target is met at every value)\n`;
  if (r.plateau) out += `  ${plateauText(r.plateau)}\n`;
  return out;
}

/**
 * The summary line on stderr: the answers, the evaluations and the trials run for them (each
 * evaluation's trials, whatever its metric averages), and the time: `5 answers, one per sweep
 * point of wall.dc, from 51 evaluations (998,416 trials) in 1.970 s (--verbose lists them)`.
 */
export function solveSummary(r: Pick<SolveSweepResult, 'points' | 'params'>, seconds: number, verbose: boolean): string {
  const evaluations = r.points.reduce((n, p) => n + p.evaluations.length, 0);
  const trials = r.points.reduce((n, p) => n + p.evaluations.reduce((k, e) => k + e.trials, 0), 0);
  const answers = r.points.length > 1 ? `${r.points.length} answers, one per sweep point of ${r.params.join(' x ')}` : '1 answer';
  return `${answers}, from ${evaluations} evaluations (${count(trials)} trials) in ${seconds.toFixed(3)} s${verbose ? '' : ' (--verbose lists them)'}`;
}

/** A number flag (an integer setting's range is checked to be whole by the api, naming the setting). */
const numArg = (what: string) => (x: string) => {
  const n = Number(x);
  if (x.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`${what} must be a number`);
  return n;
};

export function register(program: Command): void {
  program
    .command('solve')
    .description(
      `find the smallest value of a numeric parameter whose metric reaches a target (a decimal one to --step), at each sweep point (exit ${EXIT_NOT_REACHABLE}: not reachable; exit ${EXIT_UNRESOLVED}: unresolved)`,
    )
    .argument('<file>')
    .requiredOption('--param <path>', 'dotted path of a numeric setting, e.g. wall.hp or structure.blockade_chance')
    .requiredOption('--metric <name>', 'metric to reach, e.g. p_defender_wins')
    .requiredOption('--target <p>', 'target value', (x: string) => {
      const n = Number(x);
      if (!Number.isFinite(n)) throw new InvalidArgumentError('--target must be a number');
      return n;
    })
    .option('--within <D>', 'how close counts as on target: the smallest value whose metric is within D of the target (default 0)', (x: string) => {
      const n = Number(x);
      if (x.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('--within must be a number >= 0, e.g. 0.005');
      return n;
    })
    .option('--from <N>', "lowest value tried (default 0, or the setting's lowest allowed value)", numArg('--from'))
    .option('--to <N>', "highest value tried (default max(10, 2 x the setting's value in the case: written or the rules' default), within its allowed values)", numArg('--to'))
    .option(
      '--step <D>',
      'resolution: the values tried are the multiples of D in the range (default 1 for an integer setting; for a decimal one 0.01 when the range spans 1 or less, e.g. a chance, else 0.1, or 0.5 above a span of 50)',
      numArg('--step'),
    )
    .option('--trials <N>', "trials per candidate in the search (default: the scenario's; 4x and more for the answer)", trialsArg('--trials'))
    .option('--max-trials <N>', 'cap on trials per value while resolving the answer (default 32 x --trials)', trialsArg('--max-trials'))
    .option('--variant <name>', 'the variant to solve on (default: the baseline, the first)')
    .option('--no-sweep', "solve once at the scenario's own values instead of at each point of its sweep")
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .addOption(threadsOpt())
    .option('--json', 'print a JSON array, one answer per sweep point')
    .option('--verbose', 'list every evaluation on stderr (value, metric, interval, trials) as it is made')
    .option('--no-progress', 'no progress bar')
    .action((file: string, flags: SolveFlags) => solveCommand(file, flags));
}
