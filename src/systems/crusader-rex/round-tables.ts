/**
 * Crusader Rex round tables: a whole round of plain volleys as one draw (the table path,
 * table-path.ts). In a round where every run of volleys is plain (no charge, no block with a
 * choice) and ties go by hit order, what the round does depends only on the two states it
 * starts from: the two field states (a field round), or the castle, its carried half-hit and
 * the stormers (a storm). So the round's end state is one draw from the distribution of end
 * states given the start, made the first time a start is met, from the same run tables the
 * run-by-run loop draws from (the probabilities each run's alias table gives, multiples of
 * 2^-32) and rounded to multiples of 2^-32 again: each end state's chance is within ~2^-32 of the
 * run-by-run loop's.
 *
 * The draw is by inversion over the end states in order of how the round went (makeTable), so
 * paired variants in different states still share good and bad rounds. Tables are kept in a
 * hash by start, made lazily in a pool that grows to a bound and is then emptied and refilled,
 * shared by the cases whose rounds are the same (roundCacheFor). A table's content depends only
 * on its start, never on which starts came before it, so the draws, and every result, are the
 * same whatever a worker ran earlier (determinism across --threads and shards).
 */
import { HS, NO_DICE, POW5, type Tables } from './state-tables.js';

/**
 * Start states in the hash (powers of two): it starts at HSTART slots (8 KiB, so that the probes
 * of a case's few hundred starts stay in the processor's nearest cache), doubles at half full up
 * to HSIZE, and is emptied at half full there.
 */
const HSTART = 1 << 10;
const HSIZE = 1 << 14;
/**
 * Pool words: a table of n outcomes takes 2^log (its guide) + 2 n. The pool starts small and
 * doubles up to POOL_MAX when full (a sweep keeps a case per point in each worker; the bundled
 * files use 6 000-80 000 words a case), then is emptied and refilled.
 */
const POOL_START = 1 << 14;
const POOL_MAX = 1 << 19;
/** A packed end state: a | b << 12 | (half + 1) << 24 (field: a = side 0's field, b = side 1's; storm: a = the castle, b = the stormers). */
export const B_SHIFT = 12;
export const H_SHIFT = 24;

/** One case's round tables. */
export interface RoundCache {
  /**
   * The hash, two words a slot (one cache line for the probe and the answer): key + 1 (0 when
   * empty), and the table's entry: its first word in POOL << 5 | log2 of its slots (0: one
   * outcome, no draw). Its slots: H.length / 2, a power of two (hashSlot).
   */
  H: Int32Array;
  used: number;
  POOL: Int32Array;
  top: number;
}

const caches = new WeakMap<Tables, RoundCache>();

/**
 * A round table depends on the runs of every order and their tables (Tables.runKey names them:
 * equal keys, equal runs and tables) and on the hit tables APP and NEXT (made once per worker by
 * block counts and hit order, so the same arrays for every case that shares them). Cases that
 * differ elsewhere (a sweep over game turns, the arrival round of a relief) share one RoundCache.
 */
const byContent = new Map<string, [Tables, RoundCache]>();
const BY_CONTENT_KEEP = 16;

/** The round tables of case t (empty at first; shared with earlier cases whose rounds are the same). */
export function roundCacheFor(t: Tables): RoundCache {
  let r = caches.get(t);
  if (r === undefined) {
    const key = `${t.runKey}|${t.aOff[1]}|${t.zOff[1]}`;
    const known = byContent.get(key);
    if (known !== undefined && known[0].APP === t.APP && known[0].NEXT === t.NEXT) r = known[1];
    else {
      r = { H: new Int32Array(2 * HSTART), used: 0, POOL: new Int32Array(POOL_START), top: 0 };
      if (byContent.size >= BY_CONTENT_KEEP) byContent.delete(byContent.keys().next().value!);
      byContent.set(key, [t, r]);
    }
    caches.set(t, r);
  }
  return r;
}

/** The key of a start: kind (0 field, 1 storm), order o (0..3), the two states and the carried half-hit (storms). */
export function roundKey(storm: number, o: number, a: number, b: number, half: number): number {
  return (storm << 30) | (o << 28) | ((half + 1) << 24) | (b << B_SHIFT) | a;
}

/** The hash slot of a key in a hash of mask + 1 slots (mask: H.length / 2 - 1). */
export function hashSlot(key: number, mask: number): number {
  return (Math.imul(key, 0x9e3779b1) >>> 18) & mask;
}

/** The hash at twice its slots, its starts put in again. */
function growHash(r: RoundCache): void {
  const old = r.H;
  const H = new Int32Array(2 * old.length);
  const mask = (H.length >> 1) - 1;
  for (let i = 0; i < old.length; i += 2) {
    const k = old[i];
    if (k === 0) continue;
    let h = hashSlot(k - 1, mask);
    while (H[2 * h] !== 0) h = (h + 1) & mask;
    H[2 * h] = k;
    H[2 * h + 1] = old[i + 1];
  }
  r.H = H;
}

// === the distribution of a round's end states (cold: once per start) ===========================

/**
 * Hits go one at a time to the strongest block (APPLY composes: h hits and then g are h + g hits;
 * the castle's half-hits likewise), so a side's state after a round is a function of the hits it
 * took in all: the round is a walk over the two sides' hit totals (ha, hb), each capped where
 * the side is gone. CHAIN_A / CHAIN_B: the packed state after h hits (with the half-hit + 1 at
 * H_SHIFT for a castle).
 */
const GW = 64; // the grid's row: hit totals up to 41 (a castle of 20 steps takes 40 half-hits)
const GRID = new Float64Array(GW * GW);
const NEXTG = new Float64Array(GW * GW);
const CHAIN_A = new Int32Array(GW);
const CHAIN_B = new Int32Array(GW);
/** A run's chances per hit count (up to 32 outcomes: a run's table has at most 2^5 slots), for the row or column being walked. */
const RUN_P = new Float64Array(32);
/** The round's outcomes, in order (ha ascending, then hb): packed end states and their chances. */
const OUT = new Int32Array(GW * GW);
const OUT_P = new Float64Array(GW * GW);
let outN = 0;

/** The chances run table at `at` (2^log slots) gives each outcome, into RUN_P from `to`: the outcome count back. */
function runChances(t: Tables, at: number, log: number, to: number): number {
  const K = 1 << log;
  const cap = 2 ** (32 - log);
  RUN_P.fill(0, to, to + K);
  for (let i = 0; i < K; i++) {
    const keep = Math.min(t.THR[at + i], cap);
    RUN_P[to + i] += keep;
    RUN_P[to + t.ALI[at + i]] += cap - keep;
  }
  let n = K;
  while (n > 1 && RUN_P[to + n - 1] === 0) n--;
  for (let i = 0; i < n; i++) RUN_P[to + i] /= 2 ** 32;
  return n;
}

/** h hits on castle state x of side `own` carrying a half-hit at `half` (table-path.ts hitCastle, the fixed tie-break): x | (half + 1) << H_SHIFT. */
function castleHits(t: Tables, own: number, x: number, half: number, h: number): number {
  if (h > 0) {
    if (half >= 0) {
      x -= POW5[half];
      half = -1;
      h--;
    }
    x = t.APP[own * t.aOff[1] + x * HS + (h >> 1)];
    if ((h & 1) !== 0 && x !== 0) half = t.NEXT[own * t.zOff[1] + x];
  }
  return x | ((half + 1) << H_SHIFT);
}

/** The states of side sd's field state x after 0, 1, ... hits into chain, up to the first empty one: its index back (the cap). */
function fieldChain(t: Tables, sd: number, x: number, chain: Int32Array): number {
  let h = 0;
  for (; ; h++) {
    const y = t.APP[sd * t.aOff[1] + x * HS + h];
    chain[h] = y;
    if (y === 0) return h;
  }
}

/** The same for a castle carrying a half-hit at `half`. */
function castleChain(t: Tables, own: number, x: number, half: number, chain: Int32Array): number {
  let h = 0;
  for (; ; h++) {
    const y = castleHits(t, own, x, half, h);
    chain[h] = y;
    if ((y & 0xfff) === 0) return h;
  }
}

/** The hit totals reached so far in roundDist's walk (hits only add). */
let maxA = 0;
let maxB = 0;

/**
 * One run fired by side a over the grid G into N (G left zero): each row ha is one state of a,
 * so one chance vector; its hits move along b's totals, capped where b is gone. A row or a
 * column where either side is gone carries over (the round has stopped). Small functions of
 * their own: V8 optimises them soon after a worker's first tables.
 */
function walkFromA(t: Tables, G: Float64Array, N: Float64Array, capA: number, capB: number, base: number, log: number): void {
  const topA = maxA;
  const topB = maxB;
  for (let ha = 0; ha <= topA; ha++) {
    const row = ha * GW;
    const at = base + ((CHAIN_A[ha] & 0xfff) << log);
    const stop = ha === capA || t.THR[at] === NO_DICE;
    let n = -1;
    for (let hb = 0; hb <= topB; hb++) {
      const q = G[row + hb];
      if (q === 0) continue;
      G[row + hb] = 0;
      if (stop || hb === capB) {
        N[row + hb] += q;
        continue;
      }
      if (n < 0) n = runChances(t, at, log, 0);
      if (hb + n - 1 > maxB) maxB = Math.min(hb + n - 1, capB);
      for (let h = 0; h < n; h++) N[row + Math.min(hb + h, capB)] += q * RUN_P[h];
    }
  }
}

/** The same for a run fired by side b: each column hb one chance vector, its hits along a's totals. */
function walkFromB(t: Tables, G: Float64Array, N: Float64Array, capA: number, capB: number, base: number, log: number): void {
  const topA = maxA;
  const topB = maxB;
  for (let hb = 0; hb <= topB; hb++) {
    const at = base + ((CHAIN_B[hb] & 0xfff) << log);
    const stop = hb === capB || t.THR[at] === NO_DICE;
    let n = -1;
    for (let ha = 0; ha <= topA; ha++) {
      const q = G[ha * GW + hb];
      if (q === 0) continue;
      G[ha * GW + hb] = 0;
      if (stop || ha === capA) {
        N[ha * GW + hb] += q;
        continue;
      }
      if (n < 0) n = runChances(t, at, log, 0);
      if (ha + n - 1 > maxA) maxA = Math.min(ha + n - 1, capA);
      for (let h = 0; h < n; h++) N[Math.min(ha + h, capA) * GW + hb] += q * RUN_P[h];
    }
  }
}

/**
 * The end states of a round of order o from (a, b, half), with their chances, into OUT / OUT_P:
 * the loops of table-path.ts fieldRound / stormRound (plain volleys), run over every outcome of
 * every draw on the grid of hit totals. A round stops at the first run that finds either side
 * empty (a capped total).
 */
function roundDist(t: Tables, storm: boolean, o: number, a: number, b: number, half: number): void {
  const own = o >> 1;
  const capA = storm ? castleChain(t, own, a, half, CHAIN_A) : fieldChain(t, 0, a, CHAIN_A);
  const capB = fieldChain(t, storm ? 1 - own : 1, b, CHAIN_B);
  let G = GRID;
  let N = NEXTG;
  // the totals reached so far (hits only add): the walk and the clearing stay inside them
  maxA = 0;
  maxB = 0;
  G[0] = 1;
  for (let k = t.runFrom[o]; k < t.runTo[o]; k++) {
    const sd = t.runSide[k];
    const log = storm ? t.runAltLog[k] : t.runLog[k];
    const base = storm ? t.runAlt[k] : t.runBase[k];
    // storm: the castle's owner fires from the castle (a) at the stormers (b); field: side 0 from a at b
    if (storm ? sd === own : sd === 0) walkFromA(t, G, N, capA, capB, base, log);
    else walkFromB(t, G, N, capA, capB, base, log);
    const sw = G;
    G = N;
    N = sw;
  }
  // the outcomes in order of how the round went for side a: by the hits b took less those a took
  // (a castle's half-hits counted half), fewest first; a counting sort on that score, stable in
  // (ha, hb) order
  const wa = storm ? 1 : 2;
  BUCKET.fill(0);
  for (let ha = 0; ha <= maxA; ha++)
    for (let hb = 0; hb <= maxB; hb++) if (G[ha * GW + hb] !== 0) BUCKET[2 * hb - wa * ha + SCORE0 + 1]++;
  for (let i = 1; i < BUCKET.length; i++) BUCKET[i] += BUCKET[i - 1];
  outN = 0;
  for (let ha = 0; ha <= maxA; ha++)
    for (let hb = 0; hb <= maxB; hb++) {
      const q = G[ha * GW + hb];
      if (q === 0) continue;
      G[ha * GW + hb] = 0; // (both grids are left all zero for the next round)
      const sa = CHAIN_A[ha];
      const i = BUCKET[2 * hb - wa * ha + SCORE0]++;
      OUT[i] = (sa & 0xfff) | (CHAIN_B[hb] << B_SHIFT) | (sa & ~0xfff);
      OUT_P[i] = q;
      outN++;
    }
}
/** Scores 2 hb - wa ha run from -2 * 41 to 2 * 41: the counting sort's buckets, offset by SCORE0. */
const SCORE0 = 2 * GW;
const BUCKET = new Int32Array(4 * GW + 2);

// === the table of a start =======================================================================

const W = new Float64Array(GW * GW);

/**
 * Makes the table of start `key` (its entry back, as roundTable): its outcomes' chances rounded
 * down to multiples of 2^-32, the units left over one each to the first outcomes (each within
 * 2^-32 of its chance), drawn by inversion: a 32-bit draw u picks the first outcome whose
 * cumulative count passes u, so the outcomes keep roundDist's order (how the round went for side
 * a) and a draw means the same in every start: a variant in another state still gets a good or a
 * bad round with the same u, which keeps paired variants' differences narrow. A guide of 2^log
 * entries (the first outcome each top-log-bits range can give) leaves a step or two of search.
 * Layout at e: the guide, then per outcome (its cumulative count - 1, as signed: ^ 2^31; its end
 * state). Empties the cache first when it is half full or the pool cannot hold the table.
 */
function makeTable(r: RoundCache, t: Tables, key: number, storm: boolean, o: number, a: number, b: number, half: number): number {
  roundDist(t, storm, o, a, b, half);
  const n = outN;
  const log = n <= 1 ? 0 : 32 - Math.clz32(n - 1);
  const K = 1 << log;
  const words = log === 0 ? 3 : K + 2 * n;
  while (r.top + words > r.POOL.length && r.POOL.length < POOL_MAX) {
    const grown = new Int32Array(2 * r.POOL.length);
    grown.set(r.POOL);
    r.POOL = grown;
  }
  if (r.used >= r.H.length >> 2 && r.H.length < 2 * HSIZE) growHash(r);
  if (r.used >= r.H.length >> 2 || r.top + words > r.POOL.length) {
    r.H.fill(0);
    r.used = 0;
    r.top = 0;
  }
  const mask = (r.H.length >> 1) - 1;
  let h = hashSlot(key, mask);
  while (r.H[2 * h] !== 0) h = (h + 1) & mask;
  const e = r.top;
  r.top += words;
  r.H[2 * h] = key + 1;
  r.H[2 * h + 1] = (e << 5) | log;
  r.used++;
  const P = r.POOL;
  if (log === 0) {
    P[e + 1] = OUT[0];
    return e << 5;
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    W[i] = Math.floor(OUT_P[i] * 2 ** 32);
    total += W[i];
  }
  let left = 2 ** 32 - total;
  for (let i = 0; left > 0; i = (i + 1) % n, left--) W[i]++;
  for (let i = 0; left < 0; i = (i + 1) % n)
    if (W[i] > 0) {
      W[i]--;
      left++;
    }
  const span = 2 ** (32 - log);
  let cum = 0;
  let g = 0; // the next guide entry: the first outcome whose cumulative count passes g * span
  for (let i = 0; i < n; i++) {
    cum += W[i];
    P[e + K + 2 * i] = (cum - 1) ^ 0x80000000;
    P[e + K + 2 * i + 1] = OUT[i];
    for (; g < K && g * span < cum; g++) P[e + g] = i;
  }
  return (e << 5) | log;
}

/** The table of start (a, b, half) of order o, made if it was not: its entry, first word in POOL << 5 | log2 of its slots. */
export function roundTable(r: RoundCache, t: Tables, storm: number, o: number, a: number, b: number, half: number): number {
  const key = roundKey(storm, o, a, b, half);
  const H = r.H;
  const mask = (H.length >> 1) - 1;
  let h = hashSlot(key, mask);
  for (let k = H[2 * h]; k !== 0; k = H[2 * h]) {
    if (k === key + 1) return H[2 * h + 1];
    h = (h + 1) & mask;
  }
  return makeTable(r, t, key, storm === 1, o, a, b, half);
}

/** Test hook: the end states of a round and their chances (before rounding), as [packed state, chance] pairs. */
export function _roundDist(t: Tables, storm: boolean, o: number, a: number, b: number, half: number): [number, number][] {
  roundDist(t, storm, o, a, b, half);
  const out: [number, number][] = [];
  for (let i = 0; i < outN; i++) out.push([OUT[i], OUT_P[i]]);
  return out;
}
