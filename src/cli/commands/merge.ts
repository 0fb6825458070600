/** `siegesim merge`: shard files -> the report one run would write, byte for byte. */
import type { Command } from 'commander';
import path from 'node:path';
import { chunkCount, emptyShards, mergeShards, shardOverrides, ShardError, MSG } from '../../api.js';
import { reportOverrides } from '../../report/tables.js';
import { checkFolder, checkReportDir, writeIndex, writeReport } from '../../report/write.js';
import { answerText } from '../../report/answer-text.js';
import { noKernelsFromNow } from '../../report/renderer.js';
import { readShardFile } from '../shard-file.js';
import { loadAll, outArg, UserError } from '../common.js';

async function mergeCommand(file: string, shardFiles: string[], flags: { out?: string; json?: boolean; force?: boolean; charts?: boolean }): Promise<void> {
  const [v] = loadAll([file]);
  const out = flags.out ?? path.join('reports', v.name);
  const inputs = [file, ...shardFiles];
  if (!flags.out) checkFolder('reports', inputs);
  checkReportDir(out, 'run', { force: flags.force, inputs, scenario: { name: v.name, file: v.file, named: flags.out !== undefined } });
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
    result = mergeShards(v, shards);
  } catch (e) {
    if (e instanceof ShardError) throw new UserError(e.message + '; nothing was written');
    throw e;
  }
  // what the shards ran with over the file (their --trials, --seed): the merged report's overrides,
  // so that its scenario.yaml run with them gives its CSVs, as a run's report promises
  const source = { file: v.file, text: v.text, overrides: reportOverrides(shardOverrides(v, shards)) };
  const charts = v.system.charts(result); // the report's, and where the printed answer reads a sweep
  noKernelsFromNow(); // merge runs no trials: its charts pause the optimizer (report/renderer.ts)
  const { summary } = await writeReport(result, out, { index: !flags.out, source, charts, draw: flags.charts !== false });
  if (!flags.out) await writeIndex('reports');
  process.stderr.write(`${v.name}: merged ${shards.length} shard(s) -> ${out}\n`);
  const { trials, n } = shards[0];
  const empty = emptyShards(v, trials, n);
  if (empty.length > 0) {
    const given = shards.filter((s) => empty.includes(s.k)).length;
    process.stderr.write(`${v.name}: ${MSG.shardsNotNeeded(empty, n, chunkCount(v, trials), given)}\n`);
  }
  // An array of one summary.json: the same shape as run --json. Otherwise the answer run prints
  // for the whole run (the same results, byte for byte, so the same text).
  if (flags.json) process.stdout.write(JSON.stringify([summary], null, 2) + '\n');
  else process.stdout.write(answerText(result, { headline: v.system.headline, outcomes: v.system.outcomes, charts, out }));
}

export function register(program: Command): void {
  program
    .command('merge')
    .description('merge the shard files of one scenario into the report one run would write, byte for byte')
    .argument('<file>', 'the scenario file the shards were run from')
    .argument('<shards...>', 'shard files (run --shard k/n)')
    .option('--out <DIR>', 'report folder (default reports/<name>/)', outArg('--out'))
    .option('--json', 'print a JSON array of the summary.json to stdout (as run --json)')
    .option('--force', 'write the report into a folder that holds files siegesim did not write (they are kept)')
    .option('--no-charts', "write the report's charts as Vega-Lite specs only, without drawing them (as run --no-charts)")
    .action((file: string, shards: string[], flags: { out?: string; json?: boolean; force?: boolean; charts?: boolean }) => mergeCommand(file, shards, flags));
}
