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
 * Tables are kept per case (per Tables object) in a hash by start, made lazily in a preallocated
 * pool; a full pool is emptied and refilled as starts are met again. A table's content depends
 * only on its start, never on which starts came before it, so the draws, and every result, are
 * the same whatever a worker ran earlier (determinism across --threads and shards).
 */
import { HS, NO_DICE, POW5, type Tables } from './state-tables.js';

/** Start states in the hash (a power of two); the hash is emptied at half full. */
const HSIZE = 1 << 14;
/** Pool words: three a slot (threshold - 1, the slot's outcome, its alias). */
const POOL_WORDS = 3 << 17;
/** A packed end state: a | b << 12 | (half + 1) << 24 (field: a = side 0's field, b = side 1's; storm: a = the castle, b = the stormers). */
export const B_SHIFT = 12;
export const H_SHIFT = 24;
const MASK12 = 0xfff;

/** One case's round tables. */
export interface RoundCache {
  /** key + 1 per hash slot, 0 when empty. */
  hkey: Int32Array;
  /** The table's first word in POOL. */
  hoff: Int32Array;
  /** Its slots' log2 (0: one outcome, no draw). */
  hlog: Int32Array;
  used: number;
  POOL: Int32Array;
  top: number;
}

const caches = new WeakMap<Tables, RoundCache>();

/** The round tables of case t (empty at first). */
export function roundCacheFor(t: Tables): RoundCache {
  let r = caches.get(t);
  if (r === undefined) {
    r = { hkey: new Int32Array(HSIZE), hoff: new Int32Array(HSIZE), hlog: new Int32Array(HSIZE), used: 0, POOL: new Int32Array(POOL_WORDS), top: 0 };
    caches.set(t, r);
  }
  return r;
}

/** The key of a start: kind (0 field, 1 storm), order o (0..3), the two states and the carried half-hit (storms). */
export function roundKey(storm: number, o: number, a: number, b: number, half: number): number {
  return (storm << 30) | (o << 28) | ((half + 1) << 24) | (b << B_SHIFT) | a;
}

/** The hash slot of a key. */
export function hashSlot(key: number): number {
  return (Math.imul(key, 0x9e3779b1) >>> 18) & (HSIZE - 1);
}

// === the distribution of a round's end states (cold: once per start) ===========================

/** The states reached so far and their chances: an open hash over packed states, and the list of its slots in order of arrival. */
const DP_SIZE = 4096;
class StateDist {
  keys = new Int32Array(DP_SIZE).fill(-1);
  p = new Float64Array(DP_SIZE);
  list = new Int32Array(DP_SIZE);
  n = 0;
  clear(): void {
    for (let i = 0; i < this.n; i++) this.keys[this.list[i]] = -1;
    this.n = 0;
  }
  add(s: number, q: number): void {
    let h = (Math.imul(s, 0x9e3779b1) >>> 20) & (DP_SIZE - 1);
    while (this.keys[h] !== -1 && this.keys[h] !== s) h = (h + 1) & (DP_SIZE - 1);
    if (this.keys[h] === -1) {
      this.keys[h] = s;
      this.p[h] = 0;
      this.list[this.n++] = h;
    }
    this.p[h] += q;
  }
}
let cur = new StateDist();
let nxt = new StateDist();
/** One run's chances per hit count, from its alias table (mass in units of 2^-32). */
const RUN_P = new Float64Array(256);

/** The chances run table at `at` (2^log slots) gives each outcome: into RUN_P, the outcome count back. */
function runChances(t: Tables, at: number, log: number): number {
  const K = 1 << log;
  const cap = 2 ** (32 - log);
  RUN_P.fill(0, 0, K);
  for (let i = 0; i < K; i++) {
    const keep = Math.min(t.THR[at + i], cap);
    RUN_P[i] += keep;
    RUN_P[t.ALI[at + i]] += cap - keep;
  }
  let n = K;
  while (n > 1 && RUN_P[n - 1] === 0) n--;
  for (let i = 0; i < n; i++) RUN_P[i] /= 2 ** 32;
  return n;
}

/** h hits on castle state x of side `own` carrying a half-hit at `half` (table-path.ts hitCastle, the fixed tie-break): the packed (x, half + 1) as x | (half + 1) << H_SHIFT. */
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

/**
 * The end states of a round of order o from (a, b, half), with their chances, into `cur`: the
 * loops of table-path.ts fieldRound / stormRound (plain volleys) run over every outcome of
 * every draw. A round stops at the first run that finds either side empty.
 */
function roundDist(t: Tables, storm: boolean, o: number, a: number, b: number, half: number): void {
  cur.clear();
  cur.add(a | (b << B_SHIFT) | ((half + 1) << H_SHIFT), 1);
  const own = o >> 1;
  const A1 = t.aOff[1];
  for (let k = t.runFrom[o]; k < t.runTo[o]; k++) {
    nxt.clear();
    const sd = t.runSide[k];
    const log = storm ? t.runAltLog[k] : t.runLog[k];
    const base = storm ? t.runAlt[k] : t.runBase[k];
    // storm: the castle's owner fires from the castle (a) at the stormers (b); field: side 0 from a at b
    const fromA = storm ? sd === own : sd === 0;
    for (let i = 0; i < cur.n; i++) {
      const slot = cur.list[i];
      const s = cur.keys[slot];
      const q = cur.p[slot];
      const x = s & MASK12;
      const y = (s >>> B_SHIFT) & MASK12;
      const hf = (s >>> H_SHIFT) - 1;
      const at = base + ((fromA ? x : y) << log);
      if (x === 0 || y === 0 || t.THR[at] === NO_DICE) {
        nxt.add(s, q);
        continue;
      }
      const n = runChances(t, at, log);
      for (let h = 0; h < n; h++) {
        const ph = RUN_P[h];
        if (ph === 0) continue;
        let e: number;
        if (fromA) {
          const en = storm ? 1 - own : 1;
          e = x | (t.APP[en * A1 + y * HS + h] << B_SHIFT) | ((hf + 1) << H_SHIFT);
        } else if (storm) {
          const cx = castleHits(t, own, x, hf, h);
          e = (cx & MASK12) | (y << B_SHIFT) | (cx & ~MASK12);
        } else e = t.APP[x * HS + h] | (y << B_SHIFT);
        nxt.add(e, q * ph);
      }
    }
    const sw = cur;
    cur = nxt;
    nxt = sw;
  }
}

// === the alias table of a start =================================================================

const W = new Float64Array(DP_SIZE);
const REM = new Float64Array(DP_SIZE);
const ORDER = new Int32Array(DP_SIZE);
const SMALL = new Int32Array(DP_SIZE);
const LARGE = new Int32Array(DP_SIZE);
const OUT = new Int32Array(DP_SIZE);

/**
 * Makes the table of start `key` (a free hash slot `h`): its outcomes' chances rounded to
 * multiples of 2^-32 by largest remainders (ties by arrival), then Walker's alias table in
 * integers (as state-tables.ts aliasTable). Empties the cache first when it is half full or the
 * pool cannot hold the table.
 */
function makeTable(r: RoundCache, t: Tables, key: number, storm: boolean, o: number, a: number, b: number, half: number): number {
  roundDist(t, storm, o, a, b, half);
  const n = cur.n;
  const log = n <= 1 ? 0 : 32 - Math.clz32(n - 1);
  const K = 1 << log;
  if (r.used >= HSIZE >> 1 || r.top + 3 * K > r.POOL.length) {
    r.hkey.fill(0);
    r.used = 0;
    r.top = 0;
  }
  let h = hashSlot(key);
  while (r.hkey[h] !== 0) h = (h + 1) & (HSIZE - 1);
  const e = r.top;
  r.top += 3 * K;
  r.hkey[h] = key + 1;
  r.hoff[h] = e;
  r.hlog[h] = log;
  r.used++;
  const P = r.POOL;
  if (log === 0) {
    const s = cur.keys[cur.list[0]];
    P[e] = -1;
    P[e + 1] = s;
    P[e + 2] = s;
    return h;
  }
  let total = 0;
  for (let i = 0; i < K; i++) {
    const v = i < n ? cur.p[cur.list[i]] * 2 ** 32 : 0;
    OUT[i] = i < n ? cur.keys[cur.list[i]] : 0;
    W[i] = Math.floor(v);
    REM[i] = v - W[i];
    total += W[i];
  }
  let left = 2 ** 32 - total;
  if (left > 0) {
    // largest remainders first (ties by arrival): a stable sort of the outcomes' indices
    for (let i = 0; i < n; i++) {
      let j = i;
      for (; j > 0 && REM[ORDER[j - 1]] < REM[i]; j--) ORDER[j] = ORDER[j - 1];
      ORDER[j] = i;
    }
    for (let i = 0; i < n && left > 0; i++, left--) W[ORDER[i]]++;
  } else {
    // the sum of the floors past 2^32 (rounding in the sums): take the excess from the largest
    for (; left < 0; left++) {
      let big = 0;
      for (let i = 1; i < n; i++) if (W[i] > W[big]) big = i;
      W[big]--;
    }
  }
  const cap = 2 ** (32 - log);
  let ns = 0;
  let nl = 0;
  for (let i = 0; i < K; i++) {
    if (W[i] < cap) SMALL[ns++] = i;
    else LARGE[nl++] = i;
    P[e + 3 * i] = cap - 1; // a full slot keeps its outcome whatever the draw
    P[e + 3 * i + 1] = OUT[i];
    P[e + 3 * i + 2] = OUT[i];
  }
  while (ns > 0 && nl > 0) {
    const sI = SMALL[--ns];
    const lI = LARGE[nl - 1];
    P[e + 3 * sI] = W[sI] - 1;
    P[e + 3 * sI + 2] = OUT[lI];
    W[lI] -= cap - W[sI];
    if (W[lI] < cap) {
      nl--;
      SMALL[ns++] = lI;
    }
  }
  return h;
}

/** The hash slot of start (a, b, half) of order o, its table made if it was not. */
export function roundTable(r: RoundCache, t: Tables, storm: number, o: number, a: number, b: number, half: number): number {
  const key = roundKey(storm, o, a, b, half);
  const hk = r.hkey;
  let h = hashSlot(key);
  for (let k = hk[h]; k !== 0; k = hk[h]) {
    if (k === key + 1) return h;
    h = (h + 1) & (HSIZE - 1);
  }
  return makeTable(r, t, key, storm === 1, o, a, b, half);
}

/** Test hook: the end states of a round and their chances (before rounding), as [packed state, chance] pairs. */
export function _roundDist(t: Tables, storm: boolean, o: number, a: number, b: number, half: number): [number, number][] {
  roundDist(t, storm, o, a, b, half);
  const out: [number, number][] = [];
  for (let i = 0; i < cur.n; i++) out.push([cur.keys[cur.list[i]], cur.p[cur.list[i]]]);
  return out;
}
