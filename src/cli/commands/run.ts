/** `siegesim run`: run scenarios and write their reports; `--shard k/n` writes a shard file instead. */
import { Command, InvalidArgumentError } from 'commander';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { chunkCount, inlineExecutor, runScenario, runShard, MSG, type Executor, type ValidScenario } from '../../api.js';
import { poolFor } from '../early-pool.js';
import { checkFolder, checkOutputFile, checkReportDir, writeIndex, writeReport, type ReportSource } from '../../report/write.js';
import { SHARD_FILE, writeShardFile } from '../shard-file.js';
import { controller, executorOf, loadAll, makeProgress, outArg, positiveNumber, seedArg, threadsOpt, trialsArg, UserError, type RunFlags } from '../common.js';
import { showCount } from '../../report/format.js';
import { preloadVega, rendererStarted, startRenderer, warmRenderer, warmUpSpec } from '../../report/renderer.js';
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

/** A one-file run is judged for a renderer thread once it has run this long (s). */
const RENDERER_JUDGED_AFTER = 0.05;
/** It gets one when at least this much of it (s) is left at its speed so far: a thread's start and vega's load on it take ~0.2 s of the core the kernels leave free, and drawing in this thread after the run costs vega's load (~0.1 s) on top of the charts. */
const RENDERER_IF_LEFT = 0.2;

/**
 * Where a one-file run's charts are drawn, as an onProgress hook: once the run is seen to be long
 * enough, `ready` is called (a renderer thread started where a core is free, so that it is ready
 * before the run ends; else vega loaded in this thread while the worker threads run the kernels:
 * report/renderer.ts); a shorter run's charts are drawn in this thread, vega loaded after it.
 */
function chartsWhenLong(ready: () => void): (done: number, planned: number) => void {
  const t0 = performance.now();
  let decided = false;
  return (done, planned) => {
    const elapsed = (performance.now() - t0) / 1000;
    if (decided || done <= 0 || elapsed < RENDERER_JUDGED_AFTER) return;
    decided = true;
    if ((elapsed * (planned - done)) / done >= RENDERER_IF_LEFT) ready();
  };
}

/** Trials of the preview that gives the renderer's warm-up its charts, over all its cases. */
const PREVIEW_TRIALS = 2000;
/** A scenario is judged once it has run this long (s): its first chunks, before V8 has compiled the kernel, are far slower. */
const WARM_JUDGED_AFTER = 0.25;
/** The warm-up is asked for only when at least this much of the run (s) is left: drawing a report's charts cold takes ~0.2-0.5 s of the renderer's core on a quiet machine. */
const WARM_IF_LEFT = 0.5;

/**
 * The chart warm-up of a long scenario, as an onProgress hook. Once the scenario has run
 * WARM_JUDGED_AFTER s, if what is left would take at least WARM_IF_LEFT s at its speed so far,
 * the renderer is warmed up with the charts this scenario's report will have (their kinds, sizes
 * and layers: only those make the report's charts faster at the end, renderer.ts), made from a
 * preview: a run of a few trials per case in this thread, whose numbers go nowhere. It costs
 * this thread ~10-50 ms and the renderer's core the charts' first drawing (~0.2-0.5 s of CPU
 * on the core the kernels leave free), and takes the report's charts at the end from ~0.7 to
 * ~0.35 s (the reference battle's three, on a loaded machine). A shorter run asks for nothing:
 * the warm-up would not be done before its end, and would cost CPU for nothing. A preview that
 * fails or is cancelled warms nothing.
 */
function chartWarmUp(v: ValidScenario, flags: RunFlags): { onProgress: (done: number, planned: number) => void; stop: () => void } {
  const t0 = performance.now();
  let decided = false;
  // stopped with the scenario's run (or the command): a preview still running then is not wanted
  const stopped = new AbortController();
  const onAbort = () => stopped.abort();
  controller.signal.addEventListener('abort', onAbort, { once: true });
  return {
    onProgress(done, planned) {
      const elapsed = (performance.now() - t0) / 1000;
      if (decided || done <= 0 || elapsed < WARM_JUDGED_AFTER) return;
      decided = true;
      // (a run judged short for a renderer thread earlier draws in this thread: nothing to warm)
      if ((elapsed * (planned - done)) / done >= WARM_IF_LEFT && rendererStarted()) void warmCharts(v, flags, stopped.signal);
    },
    stop() {
      controller.signal.removeEventListener('abort', onAbort);
      stopped.abort();
    },
  };
}

async function warmCharts(v: ValidScenario, flags: RunFlags, signal: AbortSignal): Promise<void> {
  const cases = v.points.length * v.variantNames.length;
  try {
    const preview = await runScenario(v, {
      trials: Math.max(16, Math.min(flags.trials ?? v.trials, Math.floor(PREVIEW_TRIALS / cases))),
      seed: flags.seed,
      executor: inlineExecutor(),
      signal,
    });
    // (small multiples cut to their first panels: the kinds are what warms, renderer.ts warmUpSpec)
    if (!signal.aborted) warmRenderer(v.system.charts(preview).map((c) => warmUpSpec(c.spec)));
  } catch {
    // no warm-up: the report's charts are drawn cold, as they would be without it
  }
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
  // One thread: this one runs the kernels (executorOf). More: the pool start.ts started early.
  const exec: Executor = flags.threads === 1 ? executorOf(1) : poolFor(flags.threads);
  // The workers start when the run's work is seen to be long enough (engine/run.ts WARM_AT_MS),
  // unless start.ts started them early for a run that surely is (cli/early-pool.ts); until then
  // this thread runs the chunks. With --threads 1 this thread is the kernel thread.
  // A core the kernels leave free: the renderer can draw each long scenario's own kinds of chart
  // on it while the scenario runs, so that its report's charts are drawn warm when it ends.
  const draw = flags.charts !== false;
  const freeCore = draw && exec.threads < availableParallelism();
  // Several files: a renderer thread at once, drawing each report's charts while the next file
  // runs. One file: one only once it is seen to run long with a core free (chartsWhenLong);
  // otherwise its charts are drawn in this thread when it ends (report/renderer.ts).
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
        // a cold pool (no early pool): the run starts in this thread and starts the workers only if it runs long (engine/run.ts WARM_AT_MS)
        const where = inProcess ? 'in-process' : exec.readiness?.() === 'cold' ? `in this thread until it is seen to run long, then on ${exec.threads} thread(s)` : `on ${exec.threads} thread(s)`;
        process.stderr.write(`${v.name}: running ${n} case(s) x ${plan} ${where}\n`);
      }
      // A run that will take long says so once its speed is known (not --precision: its end depends on the results).
      const t0 = performance.now();
      const eta = flags.precision === undefined ? etaWatch(() => (performance.now() - t0) / 1000, { threads: inProcess ? 1 : exec.threads, cases: v.variantNames.length }, (line) => progress.note(`${v.name}: ${line}`)) : undefined;
      // one file: a renderer thread with a core of its own; vega loaded here while worker threads
      // run the kernels (this thread mostly waits for them); nothing early with --threads 1 and
      // no free core (this thread is the kernels' and would load vega as late either way)
      const ready = freeCore ? startRenderer : draw && exec.threads > 1 ? preloadVega : undefined;
      const renderer = ready && !multi && !inProcess ? chartsWhenLong(ready) : undefined;
      const warm = freeCore && !inProcess ? chartWarmUp(v, flags) : undefined;
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
          warm?.onProgress(done, planned);
        },
      });
      progress.stop();
      warm?.stop();
      // the last scenario's trials are done: the threads stop while its report is written
      if (i === scenarios.length - 1) exec.close().catch(() => undefined); // (a failure shows where it is awaited, below)
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
