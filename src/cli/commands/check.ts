/** `siegesim check`: Monte Carlo against the exact answers, metric by metric (z-scores). */
import type { Command } from 'commander';
import { checkScenario, CHECK_Z_LIMIT, exactScenario, runScenario } from '../../api.js';
import { PoolExecutor } from '../../engine/pool.js';
import { controller, loadAll, positiveNumber, seedArg, threadsOpt, trialsArg, type RunFlags } from '../common.js';

type CheckFlags = RunFlags & { verbose?: boolean; zLimit: number; allowEmpty?: boolean };

/** One comparison in `check --json`: what `check --verbose` prints of it, and where. */
interface CheckJsonRow {
  scenario: string;
  case: number;
  variant: string;
  params: Record<string, unknown>;
  /** A metric, or a curve's point (`p_hold_by[round=3]`). */
  metric: string;
  simulated: number | null;
  exact: number | null;
  /** Observations the simulated value rests on. */
  n: number;
  z: number | null;
  verdict: 'pass' | 'fail';
}

/** `siegesim check --json`: one document, every comparison (the --verbose table's rows) with its verdict. */
interface CheckJson {
  /** What the exit code says: true for exit 0. */
  passed: boolean;
  z_limit: number;
  compared: number;
  failed: number;
  /** Largest |z| over every comparison (null when nothing was compared or a z is undefined). */
  max_abs_z: number | null;
  allow_empty: boolean;
  /** Why a run that compared nothing fails (null otherwise, and with --allow-empty). */
  empty: string | null;
  scenarios: { name: string; file: string; system: string; seed: string | number; cases: number; trials: number; compared: number; failed: number }[];
  /** Scenarios without an exact form (nothing to compare with). */
  skipped: { name: string; file: string; reason: string }[];
  rows: CheckJsonRow[];
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

async function checkCommand(files: string[], flags: CheckFlags): Promise<void> {
  const scenarios = loadAll(files);
  const limit = flags.zLimit;
  const exec = new PoolExecutor(flags.threads);
  let worst = 0;
  let failed = 0;
  let compared = 0;
  // --json keeps stdout for the JSON alone: the table goes to stderr (a CI log still shows it).
  const say = (text: string) => (flags.json ? process.stderr : process.stdout).write(text);
  const doc: CheckJson = { passed: false, z_limit: limit, compared: 0, failed: 0, max_abs_z: null, allow_empty: flags.allowEmpty === true, empty: null, scenarios: [], skipped: [], rows: [] };
  try {
    for (const v of scenarios) {
      const ex = exactScenario(v);
      if (ex.every((e) => e.exact === null)) {
        say(`${v.name}: no exact form, skipped\n`);
        doc.skipped.push({ name: v.name, file: v.file, reason: 'no exact form' });
        continue;
      }
      const result = await runScenario(v, { trials: flags.trials, seed: flags.seed, executor: exec, signal: controller.signal });
      const rows = checkScenario(result, ex);
      say(`# ${v.name}: ${result.cases.length} case(s) x ${result.cases[0]?.trials} trials\n`);
      // columns as wide as this scenario's longest variant and metric: a name is never cut (charge-when-weaker, not charge-when-weake)
      const vw = Math.max(17, ...rows.map((r) => r.variant.length)) + 1;
      const mw = Math.max(33, ...rows.map((r) => r.metric.length)) + 1;
      say(`${'case'.padEnd(5)}${'variant'.padEnd(vw)}${'metric'.padEnd(mw)}${'simulated'.padStart(14)}${'exact'.padStart(14)}${'z'.padStart(9)}\n`);
      const entry = { name: v.name, file: v.file, system: v.system.id, seed: result.seed, cases: result.cases.length, trials: result.cases[0]?.trials ?? 0, compared: rows.length, failed: 0 };
      doc.scenarios.push(entry);
      const paramsOf = new Map(result.cases.map((c) => [c.case, c.params]));
      for (const r of rows) {
        compared++;
        const az = Math.abs(r.z);
        if (!(az <= limit)) {
          failed++;
          entry.failed++;
        }
        doc.rows.push({ scenario: v.name, case: r.case, variant: r.variant, params: paramsOf.get(r.case) ?? {}, metric: r.metric, simulated: finite(r.simulated), exact: finite(r.exact), n: r.n, z: finite(r.z), verdict: az <= limit ? 'pass' : 'fail' });
        if (az > worst || Number.isNaN(az)) worst = Number.isNaN(az) ? Infinity : Math.max(worst, az);
        const show = flags.verbose || !(az <= limit) || !r.metric.includes('[');
        if (!show) continue;
        say(
          `${String(r.case).padEnd(5)}${r.variant.padEnd(vw)}${r.metric.padEnd(mw)}` +
            `${fmtNum(r.simulated).padStart(14)}${fmtNum(r.exact).padStart(14)}${r.z.toFixed(2).padStart(9)}${az <= limit ? '' : '  FAIL'}\n`,
        );
      }
    }
  } finally {
    await exec.close();
  }
  doc.compared = compared;
  doc.failed = failed;
  const json = () => flags.json && process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  if (compared === 0) {
    // Nothing compared is not a pass: a CI gate over scenarios without an exact form would
    // otherwise stay green while proving nothing.
    const verdict = flags.allowEmpty ? 'passed (empty, --allow-empty)' : 'FAILED';
    const reason = `0 comparisons — none of the ${scenarios.length} scenario(s) has an exact form to compare with`;
    say(`check ${verdict}: ${reason}\n`);
    doc.passed = flags.allowEmpty === true;
    if (!flags.allowEmpty) {
      doc.empty = reason;
      process.stderr.write('siegesim: nothing was checked; pass --allow-empty to accept that\n');
      process.exitCode = 1;
    }
    json();
    return;
  }
  const verdict = failed === 0 ? 'passed' : 'FAILED';
  say(`check ${verdict}: ${compared} comparisons (metrics and every curve point), max |z| = ${worst.toFixed(2)}, limit ${limit}\n`);
  doc.passed = failed === 0;
  doc.max_abs_z = finite(worst);
  json();
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
    .option('--json', 'print every comparison and the verdict as one JSON document to stdout (the table goes to stderr)')
    .option('--allow-empty', 'exit 0 even when no scenario has an exact form (0 comparisons); without it that exits 1')
    .action((files: string[], flags: CheckFlags) => checkCommand(files, flags));
}
