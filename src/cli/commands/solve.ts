/** `siegesim solve`: the smallest integer value of a parameter whose metric reaches a target. */
import { InvalidArgumentError, type Command } from 'commander';
import { solveScenario, SolveInputError, type SolveOptions } from '../../api.js';
import { PoolExecutor } from '../../engine/pool.js';
import type { Metric } from '../../systems/types.js';
import { controller, intArg, loadAll, positiveInt, seedArg, threadsOpt, UserError } from '../common.js';

/** The solve command's flags: the API's options, plus where to run and how to print. */
type SolveFlags = Pick<SolveOptions, 'param' | 'metric' | 'target' | 'from' | 'to' | 'trials' | 'seed'> & { threads: number; json?: boolean };

const showMetric = (m: Metric) => `${m.value.toFixed(4)} [${m.ci_low.toFixed(4)}, ${m.ci_high.toFixed(4)}] (${m.n} trials)`;

async function solveCommand(file: string, flags: SolveFlags): Promise<void> {
  const [v] = loadAll([file]);
  if (v.points.length > 1 || v.variantNames.length > 1) {
    process.stderr.write(`${v.name}: solving on the baseline variant, without the sweep\n`);
  }
  const exec = new PoolExecutor(flags.threads);
  let r;
  try {
    r = await solveScenario(v, {
      param: flags.param,
      metric: flags.metric,
      target: flags.target,
      from: flags.from,
      to: flags.to,
      trials: flags.trials,
      seed: flags.seed,
      executor: exec,
      signal: controller.signal,
      onStep: (value, m) => process.stderr.write(`  ${flags.param} = ${value}: ${flags.metric} ${showMetric(m)}\n`),
    });
  } catch (e) {
    if (e instanceof SolveInputError) throw new UserError(e.message);
    throw e;
  } finally {
    await exec.close();
  }
  if (flags.json) {
    process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    return;
  }
  const cmp = r.increasing ? '>=' : '<=';
  if (!r.reachable || r.value === undefined || !r.at) {
    process.stdout.write(
      `not reachable: ${r.metric} ${cmp} ${r.target} is not reached for ${r.param} in [${r.from}, ${r.to}]\n` +
        `  at ${r.param} = ${r.from}: ${showMetric(r.ends.from)}\n  at ${r.param} = ${r.to}: ${showMetric(r.ends.to)}\n`,
    );
    process.exitCode = 3;
    return;
  }
  process.stdout.write(`${r.param} = ${r.value}: the smallest value with ${r.metric} ${cmp} ${r.target}\n`);
  process.stdout.write(`  at ${r.value}: ${r.metric} ${showMetric(r.at)}\n`);
  if (r.neighbour) process.stdout.write(`  at ${r.neighbour.value}: ${r.metric} ${showMetric(r.neighbour.metric)}\n`);
  else process.stdout.write(`  (${r.value} is the bottom of the range: the target is met from --from on)\n`);
}

export function register(program: Command): void {
  program
    .command('solve')
    .description('find the smallest integer value of a parameter whose metric reaches a target (exit 3 if not reachable)')
    .argument('<file>')
    .requiredOption('--param <path>', 'dotted path of an integer setting, e.g. wall.hp')
    .requiredOption('--metric <name>', 'metric to reach, e.g. p_defender_wins')
    .requiredOption('--target <p>', 'target value', (x: string) => {
      const n = Number(x);
      if (!Number.isFinite(n)) throw new InvalidArgumentError('--target must be a number');
      return n;
    })
    .option('--from <N>', 'lowest value tried (default 0)', intArg('--from'))
    .option('--to <N>', 'highest value tried (default max(10, 2 x the scenario value))', intArg('--to'))
    .option('--trials <N>', 'trials per candidate (default: the scenario\'s; 4x at the answer)', positiveInt('--trials'))
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .addOption(threadsOpt())
    .option('--json', 'print the result as JSON')
    .action((file: string, flags: SolveFlags) => solveCommand(file, flags));
}
