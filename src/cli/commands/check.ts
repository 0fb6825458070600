/** `siegesim check`: Monte Carlo against the exact answers, metric by metric (z-scores). */
import type { Command } from 'commander';
import { checkScenario, CHECK_Z_LIMIT, exactScenario, runScenario } from '../../api.js';
import { PoolExecutor } from '../../engine/pool.js';
import { controller, loadAll, positiveNumber, seedArg, threadsOpt, trialsArg, type RunFlags } from '../common.js';

type CheckFlags = RunFlags & { verbose?: boolean; zLimit: number; allowEmpty?: boolean };

async function checkCommand(files: string[], flags: CheckFlags): Promise<void> {
  const scenarios = loadAll(files);
  const limit = flags.zLimit;
  const exec = new PoolExecutor(flags.threads);
  let worst = 0;
  let failed = 0;
  let compared = 0;
  try {
    for (const v of scenarios) {
      const ex = exactScenario(v);
      if (ex.every((e) => e.exact === null)) {
        process.stdout.write(`${v.name}: no exact form, skipped\n`);
        continue;
      }
      const result = await runScenario(v, { trials: flags.trials, seed: flags.seed, executor: exec, signal: controller.signal });
      const rows = checkScenario(result, ex);
      process.stdout.write(`# ${v.name}: ${result.cases.length} case(s) x ${result.cases[0]?.trials} trials\n`);
      process.stdout.write(`${'case'.padEnd(5)}${'variant'.padEnd(18)}${'metric'.padEnd(34)}${'simulated'.padStart(14)}${'exact'.padStart(14)}${'z'.padStart(9)}\n`);
      for (const r of rows) {
        compared++;
        const az = Math.abs(r.z);
        if (!(az <= limit)) failed++;
        if (az > worst || Number.isNaN(az)) worst = Number.isNaN(az) ? Infinity : Math.max(worst, az);
        const show = flags.verbose || !(az <= limit) || !r.metric.includes('[');
        if (!show) continue;
        process.stdout.write(
          `${String(r.case).padEnd(5)}${r.variant.slice(0, 17).padEnd(18)}${r.metric.slice(0, 33).padEnd(34)}` +
            `${fmtNum(r.simulated).padStart(14)}${fmtNum(r.exact).padStart(14)}${r.z.toFixed(2).padStart(9)}${az <= limit ? '' : '  FAIL'}\n`,
        );
      }
    }
  } finally {
    await exec.close();
  }
  if (compared === 0) {
    // Nothing compared is not a pass: a CI gate over scenarios without an exact form would
    // otherwise stay green while proving nothing.
    const verdict = flags.allowEmpty ? 'passed (empty, --allow-empty)' : 'FAILED';
    process.stdout.write(`check ${verdict}: 0 comparisons — none of the ${scenarios.length} scenario(s) has an exact form to compare with\n`);
    if (!flags.allowEmpty) {
      process.stderr.write('siegesim: nothing was checked; pass --allow-empty to accept that\n');
      process.exitCode = 1;
    }
    return;
  }
  const verdict = failed === 0 ? 'passed' : 'FAILED';
  process.stdout.write(`check ${verdict}: ${compared} comparisons (metrics and every curve point), max |z| = ${worst.toFixed(2)}, limit ${limit}\n`);
  if (failed > 0) process.exitCode = 1;
}

function fmtNum(x: number): string {
  return Number.isFinite(x) ? x.toFixed(6) : 'n/a';
}

export function register(program: Command): void {
  program
    .command('check')
    .description(`run and compare with the exact answers; exit 1 if any |z| > ${CHECK_Z_LIMIT} or nothing was compared`)
    .argument('<files...>')
    .option('--trials <N>', 'trials per case (overrides the scenario)', trialsArg('--trials'))
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .addOption(threadsOpt())
    .option('--verbose', 'print every curve point, not only failures')
    .option('--z-limit <Z>', 'largest |z| accepted', positiveNumber('--z-limit'), CHECK_Z_LIMIT)
    .option('--allow-empty', 'exit 0 even when no scenario has an exact form (0 comparisons); without it that exits 1')
    .action((files: string[], flags: CheckFlags) => checkCommand(files, flags));
}
