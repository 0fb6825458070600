/** `siegesim check`: Monte Carlo against the exact answers, metric by metric (z-scores). */
import type { Command } from 'commander';
import { checkPassed, checkScenario, CHECK_Z_LIMIT, emptyCheckTally, exactScenario, judgeCheck, runScenario, unpairedDifferences, type CheckRow, type CheckVerdict, shortName, MSG } from '../../api.js';
import { whereLabel } from '../../api/test.js';
import { showCount } from '../../report/format.js';
import { atDefaultSignals, controller, executorOf, loadAll, positiveNumber, seedArg, threadsOpt, trialsArg, type RunFlags } from '../common.js';

type CheckFlags = RunFlags & { verbose?: boolean; zLimit: number; allowEmpty?: boolean };

/** One comparison in `check --json`: what `check --verbose` prints of it, and where. */
interface CheckJsonRow {
  scenario: string;
  case: number;
  variant: string;
  params: Record<string, unknown>;
  /** The case as `test` and `diff` name it: `wall.dc=12, variant above-dc` (swept values, then the variant when there are several; empty for a single case). */
  where: string;
  /** A metric, a variant's paired difference from the baseline (`diff_p_breach`), or a curve's point (`p_hold_by[round=3]`). */
  metric: string;
  simulated: number | null;
  exact: number | null;
  /** Observations the simulated value rests on. */
  n: number;
  /** null when not defined: a mean no trial gave a value (n = 0, verdict `no_data`). */
  z: number | null;
  /** `no_data`: a mean with no observations (n = 0): nothing to compare, neither a pass nor a fail. */
  verdict: CheckVerdict;
}

/** `siegesim check --json`: one document, every comparison (the --verbose table's rows) with its verdict. */
interface CheckJson {
  /** What the exit code says: true for exit 0. */
  passed: boolean;
  z_limit: number;
  compared: number;
  failed: number;
  /** Rows with no z (verdict `no_data`: a mean no trial gave a value). */
  no_data: number;
  /** Largest |z| over every comparison that has one (null when nothing was compared or a z is undefined). */
  max_abs_z: number | null;
  allow_empty: boolean;
  /** Why a run that compared nothing fails (null otherwise, and with --allow-empty). */
  empty: string | null;
  /** `unpaired_differences`: the `diff_` metrics with an exact difference that are not compared (their Monte Carlo difference is Welch, not paired). */
  scenarios: { name: string; file: string; system: string; seed: string | number; cases: number; trials: number; compared: number; failed: number; no_data: number; unpaired_differences: string[] }[];
  /** Scenarios without an exact form (nothing to compare with). */
  skipped: { name: string; file: string; reason: string }[];
  rows: CheckJsonRow[];
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** A row's z as the table prints it: `n/a` for a NaN (the exact answer has no value), never `NaN`. */
const zCell = (r: CheckRow): string => (Number.isNaN(r.z) ? 'n/a' : r.z.toFixed(2));

/**
 * A FAIL row as a sentence that stands alone in a CI log (MSG.checkFail); a NaN z with
 * observations is an exact answer with no value where the trials gave one, said so.
 */
export function checkFailText(scenario: string, file: string, where: string, r: CheckRow, limit: number): string {
  const z = Number.isNaN(r.z) ? MSG.checkExactUndefined(showCount(r.n)) : r.z.toFixed(2);
  return MSG.checkFail(scenario, file, r.case, where, r.metric, fmtNum(r.simulated), fmtNum(r.exact), z, limit, showCount(r.n));
}

/** Failures listed again, as sentences, under the tables (a CI log's tail names what failed). */
const FAIL_LINES = 20;

async function checkCommand(files: string[], flags: CheckFlags): Promise<void> {
  const scenarios = loadAll(files);
  const limit = flags.zLimit;
  const exec = executorOf(flags.threads);
  const total = emptyCheckTally();
  const failures: string[] = [];
  // --json keeps stdout for the JSON alone: the table goes to stderr (a CI log still shows it).
  const say = (text: string) => (flags.json ? process.stderr : process.stdout).write(text);
  const doc: CheckJson = { passed: false, z_limit: limit, compared: 0, failed: 0, no_data: 0, max_abs_z: null, allow_empty: flags.allowEmpty === true, empty: null, scenarios: [], skipped: [], rows: [] };
  try {
    for (const v of scenarios) {
      const ex = await atDefaultSignals(() => exactScenario(v));
      const unsolved = ex.filter((e) => e.unsolved !== undefined);
      if (ex.every((e) => e.exact === null)) {
        // a chain too large to solve is not "no exact form": said with why
        const reason = unsolved.length > 0 ? `no exact answer: ${unsolved[0].unsolved}` : 'no exact form';
        say(`${v.name}: ${reason}, skipped\n`);
        doc.skipped.push({ name: v.name, file: v.file, reason });
        continue;
      }
      const result = await runScenario(v, { trials: flags.trials, seed: flags.seed, executor: exec, signal: controller.signal });
      const rows = checkScenario(result, ex);
      // its seed, and which way a diff_ row runs (variant − baseline, as exact and summary.csv have it)
      const direction = result.variants.length > 1 ? `; diff_ rows: each variant − ${result.variants[0]}` : '';
      say(`# ${v.name}: ${result.cases.length} case(s) x ${showCount(result.cases[0]?.trials ?? 0)} trials, seed ${result.seed}${direction}\n`);
      const paramsOf = new Map(result.cases.map((c) => [c.case, c.params]));
      const variants = result.variants.length > 1;
      const whereOf = (r: CheckRow) => whereLabel(result.params, paramsOf.get(r.case) ?? {}, variants ? r.variant : undefined);
      // the swept values as `run` names a case (a column per parameter, under its short name),
      // each column as wide as its longest value; variant and metric names are never cut
      // (charge-when-weaker, not charge-when-weake)
      const pw = result.params.map((p) => Math.max(shortName(p).length, ...result.cases.map((c) => String(c.params[p]).length)) + 2);
      const paramCells = (params: Record<string, unknown>) => result.params.map((p, k) => String(params[p]).padEnd(pw[k])).join('');
      const vw = Math.max(17, ...rows.map((r) => r.variant.length)) + 1;
      const mw = Math.max(33, ...rows.map((r) => r.metric.length)) + 1;
      say(`${'case'.padEnd(5)}${'variant'.padEnd(vw)}${result.params.map((p, k) => shortName(p).padEnd(pw[k])).join('')}${'metric'.padEnd(mw)}${'simulated'.padStart(14)}${'exact'.padStart(14)}${'z'.padStart(9)}\n`);
      const unpaired = unpairedDifferences(result, ex);
      const own = emptyCheckTally();
      const verdicts = judgeCheck(rows, limit, own, total);
      doc.scenarios.push({ name: v.name, file: v.file, system: v.system.id, seed: result.seed, cases: result.cases.length, trials: result.cases[0]?.trials ?? 0, compared: own.compared, failed: own.failed, no_data: own.noData, unpaired_differences: unpaired });
      for (const [i, r] of rows.entries()) {
        const verdict = verdicts[i];
        const none = verdict === 'no_data';
        const bad = verdict === 'fail';
        const where = whereOf(r);
        if (bad) failures.push(checkFailText(v.name, v.file, where, r, limit));
        const params = paramsOf.get(r.case) ?? {};
        doc.rows.push({ scenario: v.name, case: r.case, variant: r.variant, params, where, metric: r.metric, simulated: finite(r.simulated), exact: finite(r.exact), n: r.n, z: finite(r.z), verdict });
        const show = flags.verbose || bad || !r.metric.includes('[');
        if (!show) continue;
        say(
          `${String(r.case).padEnd(5)}${r.variant.padEnd(vw)}${paramCells(params)}${r.metric.padEnd(mw)}` +
            `${fmtNum(r.simulated).padStart(14)}${fmtNum(r.exact).padStart(14)}${(none ? '–' : zCell(r)).padStart(9)}${bad ? '  FAIL' : none ? `  ${MSG.checkNoZ()}` : ''}\n`,
        );
      }
      if (unpaired.length > 0) say(MSG.checkUnpaired(unpaired) + '\n');
      for (const e of unsolved) say(`case ${e.case} ${e.variant}: not compared, no exact answer: ${e.unsolved}\n`);
    }
  } finally {
    await exec.close();
  }
  doc.compared = total.compared;
  doc.failed = total.failed;
  doc.no_data = total.noData;
  doc.passed = checkPassed(total, flags.allowEmpty === true);
  const json = () => flags.json && process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  if (total.compared === 0) {
    const verdict = flags.allowEmpty ? 'passed (empty, --allow-empty)' : 'FAILED';
    // a scenario whose exact chains were past their bounds has an exact form, but no answer here
    const tooLarge = doc.skipped.filter((k) => k.reason.startsWith('no exact answer')).length;
    const reason = `0 comparisons — none of the ${scenarios.length} scenario(s) has an exact ${tooLarge > 0 ? `answer to compare with (${tooLarge} too large to solve: see above)` : 'form to compare with'}`;
    say(`check ${verdict}: ${reason}\n`);
    if (!doc.passed) {
      doc.empty = reason;
      process.stderr.write('siegesim: nothing was checked; pass --allow-empty to accept that\n');
      process.exitCode = 1;
    }
    json();
    return;
  }
  // each failure again as a sentence that stands alone, so the end of a CI log names the case
  for (const line of failures.slice(0, FAIL_LINES)) say(line + '\n');
  if (failures.length > FAIL_LINES) say(MSG.checkMoreFails(failures.length - FAIL_LINES, flags.json === true) + '\n');
  const verdict = doc.passed ? 'passed' : 'FAILED';
  const noZ = total.noData > 0 ? `; ${MSG.checkNoDataCount(total.noData)}` : '';
  const what = total.differences > 0 ? 'metrics, differences from the baseline and every curve point' : 'metrics and every curve point';
  say(`check ${verdict}: ${total.compared} comparisons (${what}), max |z| = ${total.maxAbsZ.toFixed(2)}, limit ${limit}${noZ}\n`);
  doc.max_abs_z = finite(total.maxAbsZ);
  json();
  if (!doc.passed) process.exitCode = 1;
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
