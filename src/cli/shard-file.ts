/**
 * Shard files: what `run --shard k/n` writes and `merge` reads. JSON with a manifest (scenario
 * hash, seed, trials, shard k of n, chunk list) and every chunk's accumulator as base64 of its
 * Float64Array bytes, so a merge sums exactly the numbers one run would have summed.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { ShardData, ValidScenario } from '../api.js';
import { VERSION } from '../version.js';

export const SHARD_FORMAT = 'siegesim-shard/1';

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

const encode = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const decode = (s: string) => {
  const b = Buffer.from(s, 'base64');
  const out = new Float64Array(b.byteLength / 8);
  new Uint8Array(out.buffer).set(b);
  return out;
};

export function writeShardFile(file: string, v: ValidScenario, data: ShardData): void {
  const doc = {
    format: SHARD_FORMAT,
    siegesim: VERSION,
    scenario: { name: v.name, system: v.system.id, hash: scenarioHash(v) },
    seed: data.seed,
    trials: data.trials,
    shard: { k: data.k, n: data.n },
    chunk_trials: v.system.chunkTrials,
    chunk_list: data.chunks[0]?.map(([i]) => i) ?? [],
    chunks: data.chunks.map((list) => list.map(([i, buf]) => [i, encode(buf)])),
  };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(doc) + '\n');
  renameSync(tmp, file);
}

/** Read a shard file; problems come back as messages, never as exceptions. */
export function readShardFile(file: string, v: ValidScenario): { data?: ShardData; error?: string } {
  let doc: {
    format?: string;
    scenario?: { hash?: string; name?: string };
    seed: string | number;
    trials: number;
    shard: { k: number; n: number };
    chunks: [number, string][][];
  };
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return { error: `${file}: cannot read a shard file: ${(e as Error).message.split('\n')[0]}` };
  }
  if (doc.format !== SHARD_FORMAT) return { error: `${file}: not a siegesim shard file (format ${String(doc.format)})` };
  if (doc.scenario?.hash !== scenarioHash(v)) {
    return { error: `${file}: made from another scenario (or another version of it) than ${v.file}` };
  }
  return {
    data: {
      k: doc.shard.k,
      n: doc.shard.n,
      seed: doc.seed,
      trials: doc.trials,
      chunks: doc.chunks.map((list) => list.map(([i, s]) => [i, decode(s)] as [number, Float64Array])),
    },
  };
}
