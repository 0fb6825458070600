#!/usr/bin/env node
/**
 * siegesim's command line: a thin layer over src/api.ts (as the vitest and esbuild CLIs are).
 * User errors exit 2 with no stack trace; internal errors exit 1 with one.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { availableParallelism } from 'node:os';
import { existsSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import cliProgress from 'cli-progress';
import {
  checkScenario,
  CHECK_Z_LIMIT,
  exactScenario,
  mergeShards,
  runScenario,
  runShard,
  ShardError,
  solveScenario,
  SolveInputError,
  validateText,
  type SolveOptions,
  type ValidScenario,
} from '../api.js';
import { readShardFile, writeShardFile } from './shard-file.js';
import type { Metric } from '../systems/types.js';
import { expandScenarioArgs, formatIssue, readText } from './files.js';
import type { ScenarioIssue } from '../scenario/load.js';
import { MSG } from '../scenario/messages.js';
import { jsonSchemaOf } from '../scenario/schema.js';
import { SYSTEMS } from '../systems/registry.js';
import { PoolExecutor } from '../engine/pool.js';
import { PENDING_DIRS, writeIndex, writeReport } from '../report/write.js';
import { summaryJson } from '../report/tables.js';
import { VERSION } from '../version.js';
import { los } from '../systems/cry-havoc/los.js';
import { rmSync } from 'node:fs';

/** A problem with what the user gave us: exit 2, no stack trace. */
export class UserError extends Error {
  constructor(message: string, readonly code = 2) {
    super(message);
  }
}

const positiveInt = (what: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a positive integer`);
  return n;
};
const positiveNumber = (what: string) => (v: string) => {
  const n = Number(v);
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError(`${what} must be a positive number`);
  return n;
};
const seedArg = (v: string): string | number => (/^-?\d+$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : v);

/** Load, validate and expand every scenario named; print every problem and exit 2 if any. */
function loadAll(args: string[]): ValidScenario[] {
  const { files, issues } = expandScenarioArgs(args);
  const valid: ValidScenario[] = [];
  for (const f of files) {
    const { text, issue } = readText(f);
    if (issue) {
      issues.push(issue);
      continue;
    }
    const v = validateText(path.relative(process.cwd(), path.resolve(f)) || f, text!);
    if (v.ok) valid.push(v.value);
    else issues.push(...v.issues);
  }
  const byName = new Map<string, string>();
  for (const v of valid) {
    const other = byName.get(v.name);
    if (other) issues.push({ file: v.file, line: 1, col: 1, path: 'name', message: MSG.duplicateName(v.name, other) });
    byName.set(v.name, v.file);
  }
  if (issues.length > 0) failWith(issues);
  return valid;
}

function failWith(issues: ScenarioIssue[]): never {
  for (const i of issues) process.stderr.write(formatIssue(i) + '\n');
  const n = issues.length;
  throw new UserError(`${n} problem${n === 1 ? '' : 's'} found; nothing was run or written`);
}

interface RunFlags {
  shard?: { k: number; n: number };
  trials?: number;
  seed?: string | number;
  threads: number;
  out?: string;
  precision?: number;
  maxTrials?: number;
  json?: boolean;
  progress?: boolean;
}

/**
 * A progress bar on stderr when it is a terminal: `onProgress` feeds it, `stop` clears it.
 * Both are no-ops otherwise (pipes and CI logs get one summary line per scenario instead).
 */
function makeProgress(enabled: boolean, label: string, unit: string) {
  const bar = enabled
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | eta {eta_formatted}`, hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let started = false;
  return {
    onProgress: (done: number, planned: number) => {
      if (!bar) return;
      if (!started) {
        bar.start(planned, 0);
        started = true;
      }
      bar.setTotal(planned);
      bar.update(done);
    },
    stop: () => bar?.stop(),
  };
}

const controller = new AbortController();

async function shardCommand(files: string[], flags: RunFlags & { shard: { k: number; n: number } }): Promise<void> {
  const scenarios = loadAll(files);
  if (scenarios.length !== 1) throw new UserError('--shard runs one scenario file at a time');
  if (flags.precision !== undefined) throw new UserError('--precision cannot be split into shards: run it whole');
  const v = scenarios[0];
  const { k, n } = flags.shard;
  const exec = new PoolExecutor(flags.threads);
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
    const out = flags.out ?? `${v.name}.shard-${k}-of-${n}.json`;
    writeShardFile(out, v, data);
    const chunks = data.chunks[0]?.length ?? 0;
    process.stderr.write(`${v.name}: shard ${k}/${n}, ${chunks} chunk(s) per case x ${data.chunks.length} sweep point(s) in ${((performance.now() - t0) / 1000).toFixed(3)} s -> ${out}\n`);
  } finally {
    await exec.close();
  }
}

async function mergeCommand(file: string, shardFiles: string[], flags: { out?: string; json?: boolean }): Promise<void> {
  const [v] = loadAll([file]);
  const problems: string[] = [];
  const shards = [];
  for (const f of shardFiles) {
    const r = readShardFile(f, v);
    if (r.error) problems.push(r.error);
    else shards.push(r.data!);
  }
  if (problems.length > 0) {
    for (const p of problems) process.stderr.write(p + '\n');
    throw new UserError(`${problems.length} shard file problem(s); nothing was written`);
  }
  let result;
  try {
    result = mergeShards(v, shards, { threads: 0, seconds: 0 });
  } catch (e) {
    if (e instanceof ShardError) throw new UserError(e.message + '; nothing was written');
    throw e;
  }
  const out = flags.out ?? path.join('reports', v.name);
  await writeReport(result, out);
  if (!flags.out) await writeIndex('reports');
  process.stderr.write(`${v.name}: merged ${shards.length} shard(s) -> ${out}\n`);
  if (flags.json) process.stdout.write(JSON.stringify(summaryJson(result), null, 2) + '\n');
}

async function runCommand(files: string[], flags: RunFlags): Promise<void> {
  if (flags.shard) return shardCommand(files, flags as RunFlags & { shard: { k: number; n: number } });
  const scenarios = loadAll(files);
  const defaultRoot = 'reports';
  const multi = scenarios.length > 1;
  const exec = new PoolExecutor(flags.threads);
  const jsonOut: unknown[] = [];
  const roots = new Set<string>();
  try {
    for (const v of scenarios) {
      const showBar = flags.progress !== false && process.stderr.isTTY === true;
      const progress = makeProgress(showBar, v.name.padEnd(24).slice(0, 24), 'trials');
      const result = await runScenario(v, {
        trials: flags.trials,
        seed: flags.seed,
        precision: flags.precision,
        maxTrials: flags.maxTrials,
        executor: exec,
        signal: controller.signal,
        onProgress: progress.onProgress,
      });
      progress.stop();
      const root = flags.out && multi ? flags.out : defaultRoot;
      const out = flags.out && !multi ? flags.out : path.join(root, v.name);
      if (!flags.out || multi) roots.add(root);
      await writeReport(result, out);
      const per = result.cases[0];
      const capped = flags.precision !== undefined ? ` (precision ${flags.precision})` : '';
      process.stderr.write(
        `${v.name}: ${result.cases.length} case(s) x ${per?.trials ?? 0} trials${capped} in ${result.provenance.seconds} s ` +
          `(${result.provenance.trials_per_second.toLocaleString('en-US')} trials/s) -> ${out}\n`,
      );
      if (flags.json) jsonOut.push(summaryJson(result));
    }
  } finally {
    await exec.close();
  }
  for (const r of roots) await writeIndex(r);
  if (flags.json) process.stdout.write(JSON.stringify(multi ? jsonOut : jsonOut[0], null, 2) + '\n');
}

async function exactCommand(files: string[], flags: { json?: boolean }): Promise<void> {
  const scenarios = loadAll(files);
  const all: unknown[] = [];
  for (const v of scenarios) {
    const ex = exactScenario(v);
    if (!v.system.exact) throw new UserError(`${v.file}: system ${v.system.id} has no exact solver`);
    if (flags.json) {
      all.push({ name: v.name, cases: ex.map((e) => ({ case: e.case, variant: e.variant, params: e.params, metrics: e.exact?.metrics ?? null })) });
      continue;
    }
    process.stdout.write(`# ${v.name} (${v.file})\n`);
    for (const e of ex) {
      const params = Object.entries(e.params).map(([k, x]) => `${k}=${String(x)}`).join(' ');
      if (!e.exact) {
        process.stdout.write(`case ${e.case} ${e.variant} ${params}: no exact form\n`);
        continue;
      }
      const ms = Object.entries(e.exact.metrics).map(([k, m]) => `${k}=${Number.isFinite(m.value) ? Number(m.value.toPrecision(10)) : 'n/a'}`);
      process.stdout.write(`case ${e.case} ${e.variant}${params ? ' ' + params : ''}: ${ms.join('  ')}\n`);
    }
  }
  if (flags.json) process.stdout.write(JSON.stringify(all.length === 1 ? all[0] : all, null, 2) + '\n');
}

async function checkCommand(files: string[], flags: RunFlags & { verbose?: boolean; zLimit: number }): Promise<void> {
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
  const verdict = failed === 0 ? 'passed' : 'FAILED';
  process.stdout.write(`check ${verdict}: ${compared} comparisons (metrics and every curve point), max |z| = ${worst.toFixed(2)}, limit ${limit}\n`);
  if (failed > 0) process.exitCode = 1;
}

function fmtNum(x: number): string {
  return Number.isFinite(x) ? x.toFixed(6) : 'n/a';
}

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

function losCommand(flags: { n: number; d: number; d1: number; h: number; rounding: 'default' | 'source'; json?: boolean }): void {
  if (flags.d1 > flags.d) throw new UserError('--d1 cannot exceed --d (the obstruction lies between the two characters)');
  const r = los(flags);
  if (flags.json) {
    process.stdout.write(JSON.stringify({ input: { n: flags.n, d: flags.d, d1: flags.d1, h: flags.h }, ...r }, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    `${r.possible ? 'possible' : 'blocked'}: N x D1 = ${flags.n} x ${flags.d1} = ${r.lhs} ${r.possible ? '>=' : '<'} D x H = ${flags.d} x ${flags.h} = ${r.rhs} (seed 004 R4)\n`,
  );
  if (r.minD1 === null || r.maxD2 === null) {
    process.stdout.write(`the obstruction (H = ${flags.h}) is as high as the level difference (N = ${flags.n}) or higher: no distance sees over it\n`);
    return;
  }
  process.stdout.write(`dead zone (R5, rounding: ${r.rounding === 'default' ? 'D1 up, D2 down' : 'both up, as the source says'}):\n`);
  process.stdout.write(`  with D2 = ${r.d2}, the lower character must stand at D1 >= ${r.minD1}\n`);
  process.stdout.write(`  with D1 = ${flags.d1}, the upper character must stand at D2 <= ${r.maxD2}\n`);
}

function validateCommand(files: string[]): void {
  const scenarios = loadAll(files);
  for (const v of scenarios) {
    const n = v.points.length * v.variantNames.length;
    process.stdout.write(`ok  ${v.file}  ${v.name} (${v.system.id}, ${n} case${n === 1 ? '' : 's'})\n`);
  }
}

function schemaCommand(flags: { out?: string }): void {
  const text = JSON.stringify(jsonSchemaOf(SYSTEMS), null, 2) + '\n';
  if (flags.out) writeFileSync(flags.out, text);
  else process.stdout.write(text);
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('siegesim')
    .description('Monte Carlo simulation and balance analysis for siege and battle rules')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();
  const threadsOpt = () =>
    new Option('--threads <T>', 'worker threads (default: all cores)').argParser(positiveInt('--threads')).default(availableParallelism());
  program
    .command('run')
    .description('run scenarios (files or folders) and write their reports')
    .argument('<files...>', 'scenario files or folders of them')
    .option('--trials <N>', 'trials per case (overrides the scenario)', positiveInt('--trials'))
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .addOption(threadsOpt())
    .option('--out <DIR>', 'report folder (default reports/<name>/; with several scenarios, the folder that holds them)')
    .option('--precision <E>', 'keep adding trials until every headline 95% interval half-width is <= E', positiveNumber('--precision'))
    .option('--max-trials <N>', 'cap on trials per case with --precision (default 1e9)', positiveInt('--max-trials'))
    .option('--json', 'print summary.json to stdout')
    .option('--no-progress', 'no progress bar')
    .option('--shard <k/n>', 'run every n-th chunk, starting with chunk k-1, into a shard file (--out names it); see `merge`', (x: string) => {
      const m = /^(\d+)\/(\d+)$/.exec(x);
      const k = m ? Number(m[1]) : NaN;
      const n = m ? Number(m[2]) : NaN;
      if (!m || !(k >= 1) || !(n >= 1) || k > n) throw new InvalidArgumentError('--shard is k/n with 1 <= k <= n, e.g. 3/16');
      return { k, n };
    })
    .action((files: string[], flags: RunFlags) => runCommand(files, flags));
  program
    .command('merge')
    .description('merge the shard files of one scenario into the report one run would write, byte for byte')
    .argument('<file>', 'the scenario file the shards were run from')
    .argument('<shards...>', 'shard files (run --shard k/n)')
    .option('--out <DIR>', 'report folder (default reports/<name>/)')
    .option('--json', 'print summary.json to stdout')
    .action((file: string, shards: string[], flags: { out?: string; json?: boolean }) => mergeCommand(file, shards, flags));
  program
    .command('exact')
    .description('compute the same metrics exactly, where the system has an exact form')
    .argument('<files...>')
    .option('--json', 'print as JSON')
    .action((files: string[], flags: { json?: boolean }) => exactCommand(files, flags));
  program
    .command('check')
    .description(`run and compare with the exact answers; exit 1 if any |z| > ${CHECK_Z_LIMIT}`)
    .argument('<files...>')
    .option('--trials <N>', 'trials per case (overrides the scenario)', positiveInt('--trials'))
    .option('--seed <S>', 'random seed (overrides the scenario)', seedArg)
    .addOption(threadsOpt())
    .option('--verbose', 'print every curve point, not only failures')
    .option('--z-limit <Z>', 'largest |z| accepted', positiveNumber('--z-limit'), CHECK_Z_LIMIT)
    .action((files: string[], flags: RunFlags & { verbose?: boolean; zLimit: number }) => checkCommand(files, flags));
  const intArg = (what: string) => (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n)) throw new InvalidArgumentError(`${what} must be an integer`);
    return n;
  };
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
  program
    .command('bench')
    .description('run the benchmarks against the built kernels (bench/run.mjs) and print their JSON')
    .argument('[names...]', 'dice, surrender, fantasy, crusader-rex, cry-havoc (default: all)')
    .option('--seconds <S>', 'seconds per measurement', positiveNumber('--seconds'))
    .option('--check', 'exit 1 when a target in bench/run.mjs is missed')
    .action((names: string[], flags: { seconds?: number; check?: boolean }) => {
      const script = fileURLToPath(new URL('../../../bench/run.mjs', import.meta.url));
      if (!existsSync(script)) throw new UserError(`bench/run.mjs not found at ${script} (the benchmarks ship with the source tree)`);
      const args = ['--expose-gc', script, ...names, ...(flags.seconds ? ['--seconds', String(flags.seconds)] : []), ...(flags.check ? ['--check'] : [])];
      const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
      process.exitCode = r.status ?? 1;
    });
  const nonNegInt = (what: string) => (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a whole number >= 0`);
    return n;
  };
  program
    .command('los')
    .description('Cry Havoc sight line between levels: N x D1 >= D x H, and the dead-zone distances (exact)')
    .requiredOption('--n <N>', 'level difference between shooter and target', nonNegInt('--n'))
    .requiredOption('--d <D>', 'hexes between the two characters', nonNegInt('--d'))
    .requiredOption('--d1 <D1>', 'hexes from the lower character to the foot of the obstruction', nonNegInt('--d1'))
    .requiredOption('--h <H>', 'height of the obstruction above the lower character', nonNegInt('--h'))
    .addOption(new Option('--rounding <mode>', 'dead-zone rounding').choices(['default', 'source']).default('default'))
    .option('--json', 'print as JSON')
    .action((flags: { n: number; d: number; d1: number; h: number; rounding: 'default' | 'source'; json?: boolean }) => losCommand(flags));
  program
    .command('validate')
    .description('check scenario files without running them')
    .argument('<files...>')
    .action((files: string[]) => validateCommand(files));
  program
    .command('schema')
    .description('print the JSON Schema of scenario files')
    .option('--out <FILE>', 'write it to a file instead')
    .action((flags: { out?: string }) => schemaCommand(flags));
  return program;
}

function cleanupPending(): void {
  for (const d of PENDING_DIRS) rmSync(d, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const onSignal = (sig: NodeJS.Signals) => {
    controller.abort();
    cleanupPending();
    process.stderr.write(`\nsiegesim: interrupted (${sig}); no report was written or changed\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (e instanceof UserError) {
      process.stderr.write(`siegesim: ${e.message}\n`);
      process.exitCode = e.code;
    } else if (typeof err.code === 'string' && err.code.startsWith('commander.')) {
      // commander has printed its message; help and version are not errors
      process.exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? 0 : 2;
    } else {
      cleanupPending();
      process.stderr.write(`siegesim: internal error\n${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 1;
    }
  }
}

await main();
