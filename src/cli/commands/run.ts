/** `siegesim run`: run scenarios and write their reports; `--shard k/n` writes a shard file instead. */
import { Command, InvalidArgumentError } from 'commander';
import path from 'node:path';
import { chunkCount, runScenario, runShard, MSG, type Executor } from '../../api.js';
import { poolFor } from '../early-pool.js';
import { checkFolder, checkOutputFile, checkReportDir, holdsEarlierVersion, writeIndex, writeReport, type ReportSource } from '../../report/write.js';
import { SHARD_FILE, writeShardFile } from '../shard-file.js';
import { commandPool, controller, executorOf, loadAll, makeProgress, outArg, positiveNumber, seedArg, threadsOpt, trialsArg, UserError, type RunFlags } from '../common.js';
import { showCount } from '../../report/format.js';
import { noKernelsFromNow, preloadVega, startRenderer } from '../../report/renderer.js';
import { answerText } from '../../report/answer-text.js';
import { briefHead, briefLine, trialsRange } from '../../report/brief-text.js';
import { etaWatch } from '../eta.js';
import { reportOverrides } from '../../report/tables.js';

async function shardCommand(files: string[], flags: RunFlags & { shard: { k: number; n: number } }): Promise<void> {
  const scenarios = loadAll(files);
  if (scenarios.length !== 1) throw new UserError('--shard runs one scenario file at a time');
  if (flags.precision !== undefined) throw new UserError('--precision cannot be split into shards: run it whole');
  const v = scenarios[0];
  const { k, n } = flags.shard;
  const out = flags.out ?? `${v.name}.shard-${k}-of-${n}.json`;
  checkOutputFile(out, [v.file], SHARD_FILE); // before any trial runs (never over the scenario it reads, nor a file siegesim did not write)
  const trials = flags.trials ?? v.trials;
  const chunks = chunkCount(v, trials);
  if (chunks < k) process.stderr.write(MSG.shardEmpty(k, n, chunks, trials, v.system.chunkTrials) + '\n');
  const exec = executorOf(flags.threads);
  const progress = makeProgress(flags.progress !== false && process.stderr.isTTY === true, `${v.name} ${k}/${n}`.padEnd(24).slice(0, 24), 'chunks');
  const t0 = performance.now();
  try {
    const data = await runShard(v, k, n, {
      trials: flags.trials,
      seed: flags.seed,
      executor: exec,
      signal: controller.signal,
      onProgress: progress.onProgress,
    });
    progress.stop();
    await writeShardFile(out, v, data);
    const chunks = data.chunks[0]?.length ?? 0;
    process.stderr.write(`${v.name}: shard ${k}/${n}, ${chunks} chunk(s) per case x ${data.chunks.length} sweep point(s) in ${((performance.now() - t0) / 1000).toFixed(3)} s -> ${out}\n`);
  } finally {
    await exec.close();
  }
}

/** A one-file run on worker threads is judged once it has run this long (s). */
const RENDERER_JUDGED_AFTER = 0.05;
/** vega is loaded during the run when at least this much of it (s) is left at its speed so far (loading it takes ~0.1 s). */
const RENDERER_IF_LEFT = 0.2;

/**
 * vega loaded in this thread during a one-file run whose kernels run on worker threads (this
 * thread mostly waits for them), as an onProgress hook: once the run is seen to be long enough,
 * `ready` is called, so that the charts start as soon as the run ends. A shorter run, any run
 * with --threads 1, and a run whose pool has not loaded yet (this thread runs the kernels: a
 * run not yet seen to run long, engine/run.ts) load vega after it, or once the threads run. The charts are drawn
 * in this thread either way: a renderer thread beside a one-file run, warmed up with the report's
 * own charts from a preview, cost 11-27% more CPU for no shorter wall clock (docs/performance.md).
 */
function chartsWhenLong(ready: () => void, onThreads: () => boolean): (done: number, planned: number) => void {
  const t0 = performance.now();
  let decided = false;
  return (done, planned) => {
    const elapsed = (performance.now() - t0) / 1000;
    // not while this thread runs the chunks (a pool not yet loaded): loading vega then only delays them
    if (decided || done <= 0 || elapsed < RENDERER_JUDGED_AFTER || !onThreads()) return;
    decided = true;
    if ((elapsed * (planned - done)) / done >= RENDERER_IF_LEFT) ready();
  };
}

/**
 * The threads running the run now, as the ETA line names them: this one while a pool is not yet
 * loaded (a run not yet seen to run long runs here, engine/run.ts poolPays; it may never start it).
 */
function runningOn(exec: Executor, inProcess: boolean): number {
  if (inProcess) return 1;
  const state = exec.readiness?.();
  return state === 'cold' || state === 'loading' ? 1 : exec.threads;
}

async function runCommand(files: string[], flags: RunFlags): Promise<void> {
  if (flags.shard) return shardCommand(files, flags as RunFlags & { shard: { k: number; n: number } });
  if (flags.brief && flags.json) throw new UserError('--brief prints a line per scenario and --json a JSON array on the same stdout: choose one');
  const scenarios = loadAll(files);
  const defaultRoot = 'reports';
  const multi = scenarios.length > 1;
  // Every output is checked before any trial runs.
  const root = flags.out && multi ? flags.out : defaultRoot;
  const outs = scenarios.map((v) => (flags.out && !multi ? flags.out : path.join(root, v.name)));
  const roots = new Set<string>(!flags.out || multi ? [root] : []);
  const inputs = scenarios.map((v) => v.file);
  for (const r of roots) checkFolder(r, inputs);
  // a folder holding another scenario's report is refused unless --force (write.ts refuseOtherScenario)
  scenarios.forEach((v, i) => checkReportDir(outs[i], 'run', { force: flags.force, inputs, scenario: { name: v.name, file: v.file, named: Boolean(flags.out) && !multi } }));
  // a report of the same file before an edit is siegesim's to replace, but the user may mean to keep it: said before the run
  scenarios.forEach((v, i) => {
    if (holdsEarlierVersion(outs[i], v.file, v.text)) process.stderr.write(`note: ${outs[i]} holds the report of another version of ${v.file} (its scenario.yaml differs from the file now); this run replaces it (to keep it, run into another --out)\n`);
  });
  // One thread: this one runs the kernels (executorOf). More: the pool start.ts started early.
  const exec: Executor = flags.threads === 1 ? executorOf(1) : commandPool(poolFor(flags.threads));
  // The workers start when the run's work is seen to be long enough (engine/run.ts poolPays),
  // unless start.ts started them early for a run that surely is (cli/early-pool.ts); until then
  // this thread runs the chunks. With --threads 1 this thread is the kernel thread.
  const draw = flags.charts !== false;
  // Several files: a renderer thread at once, drawing each report's charts while the next file
  // runs. One file: its charts are drawn in this thread when it ends, vega loaded meanwhile when
  // worker threads run the kernels (chartsWhenLong; report/renderer.ts).
  if (draw && multi) startRenderer();
  const jsonOut: unknown[] = [];
  // --brief (npm start): a line per scenario under one head, in columns, and a closing summary
  const brief = flags.brief ? { name: Math.max('scenario'.length, ...scenarios.map((v) => v.name.length)) } : undefined;
  if (brief) process.stdout.write(briefHead(brief) + '\n');
  let allCases = 0;
  let allTrials = 0;
  const t00 = performance.now();
  try {
    for (const [i, v] of scenarios.entries()) {
      const showBar = flags.progress !== false && process.stderr.isTTY === true;
      const progress = makeProgress(showBar, v.name.padEnd(24).slice(0, 24), 'trials');
      // one chunk of this scenario: the engine runs it in this thread (engine/run.ts)
      const inProcess = flags.precision === undefined && v.points.length * chunkCount(v, flags.trials ?? v.trials) <= 1;
      if (!showBar && flags.progress !== false && !brief) {
        // Logs (CI, pipes) get a line when a scenario starts, so a long run is never silent.
        const n = v.points.length * v.variantNames.length;
        const first = showCount(Math.min(flags.trials ?? v.trials, flags.maxTrials ?? Infinity));
        const plan =
          flags.precision === undefined
            ? `${first} trials`
            : `${first} trials, then more until every headline interval is within ±${flags.precision} (at most ${showCount(flags.maxTrials ?? 1e9)} a case)`;
        // a cold pool (no early pool): the run starts in this thread and starts the workers only if it runs long (engine/run.ts poolPays)
        // one chunk, or --threads 1: this thread runs every trial (the same words either way)
        const where =
          inProcess || exec.threads === 1
            ? 'in this thread'
            : exec.readiness?.() === 'cold'
              ? `in this thread, on ${exec.threads} threads once it is seen to run long enough to gain from them`
              : `on ${exec.threads} threads`;
        process.stderr.write(`${v.name}: running ${n} case(s) x ${plan} ${where}\n`);
      }
      // A run that will take long says so once its speed is known (not --precision: its end depends on the results),
      // with the threads running it then (threads): this one until a pool has loaded.
      const t0 = performance.now();
      const eta = flags.precision === undefined ? etaWatch(() => (performance.now() - t0) / 1000, { get threads() { return runningOn(exec, inProcess); }, cases: v.variantNames.length }, (line) => progress.note(`${v.name}: ${line}`)) : undefined;
      // one file: vega loaded here while worker threads run the kernels (this thread mostly waits
      // for them); nothing early with --threads 1 (this thread is the kernels' and would load it
      // as late either way)
      const renderer = draw && exec.threads > 1 && !multi && !inProcess ? chartsWhenLong(preloadVega, () => runningOn(exec, false) > 1) : undefined;
      const result = await runScenario(v, {
        trials: flags.trials,
        seed: flags.seed,
        precision: flags.precision,
        maxTrials: flags.maxTrials,
        executor: exec,
        signal: controller.signal,
        onProgress: (done, planned) => {
          progress.onProgress(done, planned);
          eta?.(done, planned);
          renderer?.(done, planned);
        },
      });
      progress.stop();
      // the last scenario's trials are done: the threads stop while its report is written
      if (i === scenarios.length - 1) {
        exec.close().catch(() => undefined); // (a failure shows where it is awaited, below)
        noKernelsFromNow(); // the charts drawn in this thread from now on pause the optimizer (report/renderer.ts)
      }
      const out = outs[i];
      const source: ReportSource = { file: v.file, text: v.text, overrides: reportOverrides(flags, v) };
      const charts = v.system.charts(result); // the report's, and where the printed answer reads a sweep
      const { summary } = await writeReport(result, out, { index: !flags.out || multi, source, charts, draw });
      allCases += result.cases.length;
      allTrials += result.cases.reduce((n, c) => n + c.trials, 0);
      if (!brief)
        process.stderr.write(
        `${v.name}: ${result.cases.length} case(s) x ${trialsRange(result.cases.map((c) => c.trials))} trials` +
          `${flags.precision !== undefined ? ` (precision ${flags.precision})` : ''} in ${result.provenance.seconds} s ` +
          `(${showCount(result.provenance.trials_per_second)} trials/s) -> ${out}\n`,
      );
      const missed = result.cases.filter((c) => c.precision && !c.precision.reached);
      if (missed.length > 0) {
        const worst = missed.reduce((a, b) => (b.precision!.half_width > a.precision!.half_width ? b : a));
        process.stderr.write(
          `${v.name}: precision ${flags.precision} NOT reached in ${missed.length} of ${result.cases.length} case(s): ` +
            `the cap of ${showCount(flags.maxTrials ?? 1e9)} trials per case stopped them; ` +
            `widest headline half-width ${worst.precision!.half_width.toPrecision(3)} (case ${worst.case}, ${worst.variant}). ` +
            `Raise --max-trials or ask for less precision.\n`,
        );
      }
      if (brief) process.stdout.write(briefLine(result, brief, v.system.headline, v.system.outcomes) + '\n');
      else if (flags.json) jsonOut.push(summary); // the summary.json written
      // The answer goes to stdout as it comes (solve, tune and sensitivity print theirs there);
      // --json keeps stdout for the JSON alone. Status lines stay on stderr.
      else process.stdout.write((i > 0 ? '\n' : '') + answerText(result, { headline: v.system.headline, outcomes: v.system.outcomes, charts, out }));
    }
  } finally {
    await exec.close();
  }
  for (const r of roots) await writeIndex(r);
  if (brief) {
    const where = multi ? `${path.join(root, '<scenario>')}/` : `${outs[0]}/`;
    process.stderr.write(
      `${scenarios.length} scenario${multi ? 's' : ''}, ${showCount(allCases)} case${allCases === 1 ? '' : 's'}, ${showCount(allTrials)} trials in ${((performance.now() - t00) / 1000).toFixed(1)} s; ` +
        `each report in ${where} (index.html, summary.csv, summary.json, scenario.yaml, charts/, a CSV per curve)\n`,
    );
  }
  // Several reports: the last status line says which page gathers them (stdout keeps the answers).
  if (multi) for (const r of roots) process.stderr.write(`reports: ${path.join(r, 'index.html')} (open it in a browser)\n`);
  // Always an array, one summary.json per scenario, however many were given (as merge and exact).
  if (flags.json) process.stdout.write(JSON.stringify(jsonOut, null, 2) + '\n');
}

export function register(program: Command): void {
  program
    .command('run')
    .description('run scenarios (files or folders) and write their reports')
    .argument('<files...>', 'scenario files or folders of them')
    .option('--trials <N>', 'trials per case (overrides the scenario)', trialsArg('--trials'))
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .addOption(threadsOpt())
    .option('--out <DIR>', 'report folder (default reports/<name>/; with several scenarios, the folder that holds them)', outArg('--out'))
    .option('--precision <E>', 'keep adding trials until every headline 95% interval half-width is <= E', positiveNumber('--precision'))
    .option('--max-trials <N>', 'cap on trials per case with --precision (default 1e9; the first chunk is cut to fit)', trialsArg('--max-trials'))
    .option('--json', 'print a JSON array of each scenario\'s summary.json to stdout')
    .option('--brief', 'one line per scenario (its cases, trials, time and its answer\'s first metric) and a closing summary, instead of every answer (npm start)')
    .option('--force', 'write a report into a folder that holds files siegesim did not write (they are kept)')
    .option('--no-charts', "write each report's charts as Vega-Lite specs only, without drawing them (faster, for scripts that read summary.json or the CSVs)")
    .option('--no-progress', 'no progress bar')
    .option('--shard <k/n>', 'run every n-th chunk, starting with chunk k-1, into a shard file (--out names it); see `merge`', (x: string) => {
      const m = /^(\d+)\/(\d+)$/.exec(x);
      // parsed exactly: 9007199254740993 would round to ...992, another shard
      const exact = (d: string) => (BigInt(d) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(d) : NaN);
      const k = m ? exact(m[1]) : NaN;
      const n = m ? exact(m[2]) : NaN;
      if (m && (Number.isNaN(k) || Number.isNaN(n))) throw new InvalidArgumentError(`--shard must be k/n with whole numbers up to ${Number.MAX_SAFE_INTEGER} (2^53 - 1), exactly: got ${x.length > 60 ? `${x.slice(0, 57)}...` : x}`);
      if (!m || !(k >= 1) || !(n >= 1) || k > n) throw new InvalidArgumentError('--shard must be k/n with 1 <= k <= n, e.g. 3/16');
      return { k, n };
    })
    .action((files: string[], flags: RunFlags) => runCommand(files, flags));
}
