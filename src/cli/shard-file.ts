/**
 * Shard files: what `run --shard k/n` writes and `merge` reads. JSON with a manifest (scenario
 * hash, seed, trials, shard k of n, chunk list) and every chunk's accumulator as base64 of its
 * Float64Array bytes, so a merge sums exactly the numbers one run would have summed.
 *
 * A shard file is checked before it is used: its shape against a schema, a SHA-256 checksum over
 * the manifest and every accumulator (a changed byte is caught, not summed), then against the
 * scenario: the chunks this shard must hold, each accumulator's length, finite values and its
 * trial count. Every problem is a message naming the file; none is an exception.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { shardChunks, type ShardData, type ValidScenario, resultLength, chunkSize, COMMON_SHAPE, formatPath } from '../api.js';
import { compilePoints, jobsOf } from '../api/run.js';
import { checkChunkMeaning } from '../api/shard.js';
import { writeFileAtomic } from '../report/write.js';
import { VERSION } from '../version.js';
import { readRegularFile } from './files.js';

export const SHARD_FORMAT = 'siegesim-shard/2' as const;

/** A shard file siegesim wrote, of this format or an older one (its first key; writeShardFile). */
export const SHARD_FILE = { what: 'a siegesim shard file', own: (head: string) => head.startsWith('{"format":"siegesim-shard/') };

/** What must match for shards to fit together: the cases, their compiled inputs, the chunk size. */
export function scenarioHash(v: ValidScenario): string {
  const content = JSON.stringify({
    system: v.system.id,
    params: v.params,
    variants: v.variantNames,
    points: v.points.map((p) => p.variants.map((x) => x.scenario)),
    chunkTrials: v.system.chunkTrials,
  });
  return createHash('sha256').update(content).digest('hex');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const ShardDoc = z.strictObject({
  format: z.literal(SHARD_FORMAT),
  siegesim: z.string(),
  scenario: z.strictObject({ name: z.string(), system: z.string(), hash: z.string().regex(/^[0-9a-f]{64}$/, 'not a SHA-256 hash') }),
  seed: COMMON_SHAPE.seed,
  trials: COMMON_SHAPE.trials,
  shard: z.strictObject({ k: z.int().min(1), n: z.int().min(1) }).refine((s) => s.k <= s.n, 'k must be <= n'),
  chunk_trials: z.int().min(1),
  chunk_list: z.array(z.int().min(0)),
  chunks: z.array(z.array(z.tuple([z.int().min(0), z.string().regex(BASE64, 'not base64')]))),
  checksum: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 hex digits>'),
});
type ShardDoc = z.infer<typeof ShardDoc>;

/** The checksum of everything but the checksum, in a fixed order (key order and spacing do not matter). */
function checksumOf(d: Omit<ShardDoc, 'checksum'>): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([d.format, d.siegesim, d.scenario.name, d.scenario.system, d.scenario.hash, d.seed, d.trials, d.shard.k, d.shard.n, d.chunk_trials, d.chunk_list]));
  for (const list of d.chunks) {
    h.update('\n');
    for (const [i, s] of list) h.update(`${i}:${s};`);
  }
  return `sha256:${h.digest('hex')}`;
}

const encode = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

export async function writeShardFile(file: string, v: ValidScenario, data: ShardData): Promise<void> {
  const body = {
    format: SHARD_FORMAT,
    siegesim: VERSION,
    scenario: { name: v.name, system: v.system.id, hash: scenarioHash(v) },
    seed: data.seed,
    trials: data.trials,
    shard: { k: data.k, n: data.n },
    chunk_trials: v.system.chunkTrials,
    chunk_list: data.chunks[0]?.map(([i]) => i) ?? [],
    chunks: data.chunks.map((list) => list.map(([i, buf]): [number, string] => [i, encode(buf)])),
  };
  const doc: ShardDoc = { ...body, checksum: checksumOf(body) };
  await writeFileAtomic(file, JSON.stringify(doc) + '\n');
}

/** Read a shard file and check it against the scenario; problems come back as messages, never as exceptions. */
export function readShardFile(file: string, v: ValidScenario): { data?: ShardData; error?: string } {
  const fail = (what: string) => ({ error: `${file}: ${what}` });
  let raw: unknown;
  try {
    raw = JSON.parse(readRegularFile(file).toString('utf8'));
  } catch (e) {
    return fail(`cannot read a shard file: ${(e as Error).message.split('\n')[0]}`);
  }
  const format = (raw as { format?: unknown } | null)?.format;
  if (typeof format !== 'string' || !format.startsWith('siegesim-shard/')) return fail('not a siegesim shard file');
  if (format !== SHARD_FORMAT) return fail(`shard format ${format}, this siegesim reads ${SHARD_FORMAT}: run the shard again`);
  const parsed = ShardDoc.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    const more = parsed.error.issues.length - 1;
    return fail(`damaged shard file: ${formatPath(i.path as (string | number)[])}: ${i.message}${more > 0 ? ` (and ${more} more)` : ''}`);
  }
  const doc = parsed.data;
  if (checksumOf(doc) !== doc.checksum) return fail('damaged shard file: its checksum does not match its contents (changed after it was written?)');
  if (doc.scenario.hash !== scenarioHash(v)) return fail(`made from another scenario (or another version of it) than ${v.file}`);

  if (doc.chunk_trials !== v.system.chunkTrials) return fail(`damaged shard file: chunk_trials ${doc.chunk_trials}, the ${v.system.id} system's chunks are ${v.system.chunkTrials} trials`);
  const { k, n } = doc.shard;
  const jobs = jobsOf(v, compilePoints(v));
  if (doc.chunks.length !== jobs.length) return fail(`damaged shard file: ${doc.chunks.length} sweep point(s), the scenario has ${jobs.length}`);
  const expected = shardChunks(v, doc.trials, k, n);
  const sameList = (a: readonly number[]) => a.length === expected.length && a.every((x, j) => x === expected[j]);
  if (!sameList(doc.chunk_list)) return fail(`damaged shard file: chunk_list is not the chunks of shard ${k}/${n} of ${doc.trials} trials`);
  const chunks: [number, Float64Array][][] = [];
  for (let g = 0; g < jobs.length; g++) {
    const list = doc.chunks[g];
    if (!sameList(list.map(([i]) => i))) return fail(`damaged shard file: sweep point ${g + 1} does not hold the chunks of shard ${k}/${n}`);
    const len = resultLength(jobs[g]);
    const out: [number, Float64Array][] = [];
    for (const [i, s] of list) {
      const b = Buffer.from(s, 'base64');
      if (b.byteLength !== len * 8) return fail(`damaged shard file: chunk ${i} of sweep point ${g + 1} holds ${b.byteLength} bytes, not ${len * 8}`);
      const acc = new Float64Array(len);
      new Uint8Array(acc.buffer).set(b);
      if (!acc.every(Number.isFinite)) return fail(`damaged shard file: chunk ${i} of sweep point ${g + 1} holds a value that is not a finite number`);
      // what the numbers mean: counts within the trials, outcomes summing to them, means within their range
      const problem = checkChunkMeaning(v.system, jobs[g], acc, chunkSize(i, doc.trials, v.system.chunkTrials), v.points[g].variants.map((x) => x.variant));
      if (problem) return fail(`impossible shard: chunk ${i} of sweep point ${g + 1}: ${problem}`);
      out.push([i, acc]);
    }
    chunks.push(out);
  }
  return { data: { k, n, seed: doc.seed, trials: doc.trials, chunks, file } };
}
