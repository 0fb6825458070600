/**
 * Shards are checked for meaning, not only bytes. The checksum is a plain SHA-256 anyone can
 * recompute, so a forged shard passes every byte check: slots set to 1e308 would merge into
 * `p_surrender 2.5e+301`, and outcome counts 5x the trials or negative counts would merge too.
 * So every chunk's accumulator is read through its system's summary and must be possible for
 * its trials (api/shard.ts checkChunkMeaning); the shard index is parsed exactly
 * (`--shard 1/9007199254740993` is not read as ...992).
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runShard, validateText, type ValidScenario } from '../src/api.js';
import { checkChunkMeaning } from '../src/api/shard.js';
import { compilePoints, jobsOf } from '../src/api/run.js';
import { readShardFile, writeShardFile } from '../src/cli/shard-file.js';
import { ROOT, runCli, STACK_FRAME, tempDirs } from './cli-child.js';

const SCEN = path.join(ROOT, 'test/fixtures/good-small.yaml');
const tmp = tempDirs('siegesim-shard-meaning-');

/** The checksum a shard writer would have put: what a forger recomputes. */
const reseal = (doc: any) => {
  const h = createHash('sha256');
  h.update(JSON.stringify([doc.format, doc.siegesim, doc.scenario.name, doc.scenario.system, doc.scenario.hash, doc.seed, doc.trials, doc.shard.k, doc.shard.n, doc.chunk_trials, doc.chunk_list]));
  for (const list of doc.chunks) {
    h.update('\n');
    for (const [i, s] of list) h.update(`${i}:${s};`);
  }
  doc.checksum = `sha256:${h.digest('hex')}`;
  return doc;
};
const edit = (s: string, f: (a: Float64Array) => void) => {
  const b = Buffer.from(s, 'base64');
  const a = new Float64Array(b.byteLength / 8);
  new Uint8Array(a.buffer).set(b);
  f(a);
  return Buffer.from(a.buffer).toString('base64');
};

describe('forged shards (checksum recomputed) are refused for what their numbers mean', () => {
  let v: ValidScenario;
  let dir: string;
  const shardPath = (k: number) => path.join(dir, `s${k}.json`);
  const good = () => JSON.parse(readFileSync(shardPath(1), 'utf8'));
  // good-small: surrender, 4 sweep points x 2 variants; 600 000 trials = chunks of 262 144, 262 144, 75 712
  // surrender layout (kernel.ts): [0] trials [1] p_test successes [2] surrendered [3] Σturn [4] Σturn² [5..10] by turn
  const T = 262_144;
  const forgeries: [string, (a: Float64Array) => void, RegExp][] = [
    ['every slot 1e308 but the trial count', (a) => a.fill(1e308, 1), /p_test \(variant as-written\) counts 1e\+308 successes in 262144 trials/],
    ['surrendered 5x the trials', (a) => (a[2] = 5 * T), /p_surrender \(variant as-written\) counts 1310720 successes in 262144 trials/],
    ['a turn\'s surrenders 5x the trials (and the total with them)', (a) => ((a[2] += 5 * T), (a[5] += 5 * T)), /counts 1\d{6} successes in 262144 trials/],
    ['a negative count (the total kept)', (a) => ((a[5] += a[6] + 5), (a[6] = -5)), /slot 6 counts -5 surrenders in turn 2 of 262144 trials \(variant as-written\)/],
    ['surrenders by turn not summing to the surrendered', (a) => ((a[5] += 1), (a[6] -= 2)), /surrenders by turn \(slots 5\.\.10\) sum to \d+, not the \d+ surrendered \(slot 2\)/],
    ['p_test successes negative', (a) => (a[1] = -1), /p_test \(variant as-written\) counts -1 successes in 262144 trials/],
    ['a fractional count', (a) => (a[1] += 0.5), /p_test \(variant as-written\) counts [\d.]+ successes/],
    ['Σturn 1e308 (a mean out of its range)', (a) => (a[3] = 1e308), /mean_turns \(variant as-written\) sums to 1e\+308 over \d+ observations, outside \d+ x \[1, 6\]/],
    ['Σturn² below (Σturn)²/n', (a) => (a[4] = 0), /mean_turns \(variant as-written\) has a sum of squares 0 below/],
    ['Σturn² 1e308 with Σturn kept (more than the turns allow)', (a) => (a[4] = 1e308), /mean_turns \(variant as-written\) has a sum of squares 1e\+308, more than/],
    ['a paired difference not the variants\' difference', (a) => (a[a.length - 4] += 1000), /diff_p_test \(variant lenient\) sums its differences to/],
    ['a paired sum of squares 1e308', (a) => (a[a.length - 1] = 1e308), /diff_p_surrender \(variant lenient\) has a sum of squared differences 1e\+308/],
  ];

  it('genuine shards pass (the control)', async () => {
    dir = tmp();
    const t = validateText(SCEN, readFileSync(SCEN, 'utf8'));
    if (!t.ok) throw new Error('fixture');
    v = t.value;
    for (const k of [1, 2]) await writeShardFile(shardPath(k), v, await runShard(v, k, 2, { trials: 600_000 }));
    expect([1, 2].map((k) => readShardFile(shardPath(k), v).error)).toEqual([undefined, undefined]);
  });

  it.each(forgeries)('%s: refused, naming the file, the chunk and the metric or slot', (_name, forge, message) => {
    const f = path.join(dir, 'forged.json');
    const d = good();
    d.chunks[1][0][1] = edit(d.chunks[1][0][1], forge);
    writeFileSync(f, JSON.stringify(reseal(d)));
    const r = readShardFile(f, v);
    expect(r.data).toBeUndefined();
    expect(r.error).toMatch(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: impossible shard: chunk 0 of sweep point 2: `));
    expect(r.error).toMatch(message);
  });

  it('another chunk size than the system\'s (checksum recomputed)', () => {
    const f = path.join(dir, 'forged.json');
    const d = good();
    d.chunk_trials = 1000;
    writeFileSync(f, JSON.stringify(reseal(d)));
    expect(readShardFile(f, v).error).toMatch(/chunk_trials 1000, the surrender system's chunks are 262144 trials/);
  });

  it('merge of a forged shard: exit 2 naming the file and the metric, nothing written', async () => {
    const f = path.join(dir, 'forged1.json');
    const d = good();
    d.chunks[0][0][1] = edit(d.chunks[0][0][1], (a) => a.fill(1e308, 1));
    writeFileSync(f, JSON.stringify(reseal(d)));
    const out = path.join(dir, 'merged');
    const r = await runCli(['merge', SCEN, f, shardPath(2), '--out', out]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${f}: impossible shard: chunk 0 of sweep point 1: p_test (variant as-written) counts 1e+308 successes in 262144 trials`);
    expect(r.stderr).not.toMatch(STACK_FRAME);
    expect(existsSync(out)).toBe(false);
  });
});

describe('the meaning check passes every bundled scenario\'s genuine chunks', () => {
  const files = readdirSync(path.join(ROOT, 'scenarios'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(path.join(ROOT, 'scenarios', d.name)).map((f) => `${d.name}/${f}`));
  it.each(files)('%s', { timeout: 60_000 }, async (file) => {
    const t = validateText(file, readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
    if (!t.ok) throw new Error(`${file} must be valid`);
    const data = await runShard(t.value, 1, 1, { trials: 3000 });
    const jobs = jobsOf(t.value, compilePoints(t.value));
    data.chunks.forEach((list, g) => list.forEach(([, buf]) => expect(checkChunkMeaning(t.value.system, jobs[g], buf, 3000)).toBeUndefined()));
  });
});

describe('--shard k/n is parsed exactly', () => {
  it.each([
    ['1/9007199254740993', /--shard must be k\/n with whole numbers up to 9007199254740991 \(2\^53 - 1\), exactly: got 1\/9007199254740993/],
    ['9007199254740993/9007199254740993', /exactly: got 9007199254740993\/9007199254740993/],
    ['1/99999999999999999999999', /exactly: got/],
  ])('%s: exit 2, nothing run', async (arg, message) => {
    const dir = tmp();
    const r = await runCli(['run', SCEN, '--shard', arg, '--out', path.join(dir, 's.json')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(readdirSync(dir)).toEqual([]);
  });
});
