/**
 * Crusader Rex state tables: what the table path (table-path.ts) plays a battle on, built once
 * per compiled case (buildTables) from tables kept per thread by what they depend on. A side's
 * blocks are base-5 digits (a block's steps, 0 when not there), one number per place; the side
 * tables (sideTables) give each state's blocks present, steps, strongest, digits, and h hits on
 * the strongest blocks in turn (6.31, ties in the side's hit order) as one look-up,
 * APPLY[x * HS + h]. A run of volleys by one side (buildRuns) is one draw of its total hits from
 * their exact distribution (runDists), through an alias table (aliasTable) keyed by the side's
 * state at the place it fires from. The field paths use the side tables too (field-run-path.ts
 * its run distributions as well; closed-field-path.ts counts its runs' totals over 6^n itself).
 */
import { cached as cachedIn } from './cache.js';
import { CASTLE, FIELD, PENDING, type CrusaderRexCompiled } from './compile.js';
import { fireOrderMatters } from './order.js';

/** Most blocks a side for the tables (5^5 states a side). */
export const TABLE_MAX = 5;
/** Hits one run of volleys can score: up to 5 blocks of 4 steps (the APPLY stride). */
export const HS = 21;
export const POW5 = Int32Array.of(1, 5, 25, 125, 625, 3125);

/**
 * The table path runs the case: at most TABLE_MAX blocks a side, and the listed firing order or
 * a strongest-first order that cannot change the outcome (order.ts fireOrderMatters: the table
 * path fires in listed order).
 */
export function tablePathApplies(c: CrusaderRexCompiled): boolean {
  const n0 = c.side.filter((s) => s === 0).length;
  // the tables pick stormers by strength (MAXD, TIED); the first-listed reading (policy.stormers: listed) takes the general path
  const listedStormers = c.stormersListed === 1 && c.rating > 0 && c.storm !== 0;
  return n0 <= TABLE_MAX && c.nb - n0 <= TABLE_MAX && !fireOrderMatters(c) && !listedStormers;
}

// === tables of one compiled case ==============================================================

/** Everything the table path derives from one compiled case (built once, swapped by useTables). */
export interface Tables extends Runs {
  // per side state tables, side 1 after side 0: [dOff[sd] + x * n + pos], [sd * A1 + x * HS + h], [sd * Z1 + x]
  DIG: Uint8Array;
  APP: Uint16Array;
  NZ: Uint8Array; // blocks present
  SUM: Uint8Array; // their steps
  MAXD: Uint8Array; // the most steps
  NEXT: Int8Array; // position the next full hit lands on (hit order)
  TIES: Uint8Array; // blocks with the most steps
  TIED: Int8Array; // their positions: [(sd * Z1 + x) * TABLE_MAX + j]
  MASK: Uint8Array; // positions present, as bits
  TOP: Uint16Array; // the k strongest blocks (position order among equals) as a state: [(sd * Z1 + x) * (TABLE_MAX + 1) + k]
  dOff: Int32Array;
  aOff: Int32Array;
  zOff: Int32Array;
  nSide: Int32Array;
  // per block
  bPos: Int32Array;
  bHarrier: Int32Array;
  // the start of a trial
  F0: Int32Array;
  C0: Int32Array;
  pend0: Int32Array;
  pendN0: Int32Array;
  pendS0: Int32Array;
  initialS: Int32Array;
  /** Reserves arriving per round (2, 3) and side: [(round * 2 + side) * 4 + 0..3] = field state added, positions, blocks, steps. */
  ARRIVE: Int32Array;
}

/**
 * A charge (6.32) by a block of `steps` steps and firepower `fp`: firepower + 1, each die a hit, a
 * six (self-hit, unless firepower 6) or a miss; outcome hits * 5 + sixes (the field path's too).
 */
export function chargeOutcomes(steps: number, fp: number): number[] {
  if (steps === 0) return [1];
  const f = Math.min(6, fp + 1);
  const ph = f / 6;
  const ps = f < 6 ? 1 / 6 : 0;
  const fact = (k: number): number => (k <= 1 ? 1 : k * fact(k - 1));
  const dist = new Array<number>(25).fill(0);
  for (let h = 0; h <= steps; h++)
    for (let x = 0; h + x <= steps; x++) dist[h * 5 + x] = (fact(steps) / (fact(h) * fact(x) * fact(steps - h - x))) * ph ** h * ps ** x * (1 - ph - ps) ** (steps - h - x);
  return dist;
}

/** Runs of volleys (buildRuns): order o's runs are runFrom[o] .. runTo[o] - 1. */
export interface Runs {
  runFrom: Int32Array;
  runTo: Int32Array;
  runSide: Int32Array; // the side that fires
  runBase: Int32Array; // its alias tables: THR/ALI[runBase + (x << runLog) ..] for the side's state x
  runLog: Int32Array;
  runKind: Int32Array; // 0 plain, 1 a charge, 2 a charge when the enemy's strongest is weaker
  runAlt: Int32Array; // the plain volley's tables (storms, declined charges, harrying)
  runAltLog: Int32Array;
  runBlock: Int32Array; // the one block of a charge or a choice, else -1
  runDecide: Int32Array; // 1: the block may withdraw, harry or retreat on its turn
  plainOrder: Int32Array; // by order: 1 when its runs are all plain volleys (no block with a charge or a choice)
  THR: Uint32Array;
  ALI: Uint8Array;
  /** What the runs and their tables are made from (each run table's content key, in THR's order, and the run arrays): equal keys, equal runs and tables. */
  runKey: string;
}

/**
 * Alias tables: a run's table for state x is K = 2^logK slots at runBase + (x << logK), K the
 * smallest power of two that holds the run's outcomes (21 hit counts at most, or a charge's
 * hits * 5 + sixes), so small runs use small tables. A draw's top logK bits pick the slot; the
 * slot keeps its own outcome when the other 32 - logK bits are below its threshold THR, else
 * gives its alias ALI. Probabilities are multiples of 2^-32.
 */
/** THR of slot 0 when the run has no dice where it fires (no draw, no hits): no threshold exceeds 2^31. */
export const NO_DICE = 0xffffffff;

/**
 * Walker's alias table (Vose's construction, in integers) for outcomes with probabilities
 * `dist`, into thr/ali[at .. at + 2^logK). Probabilities are rounded to multiples of 2^-32 by
 * largest remainders, so each is within 2^-32 of its value and they sum to 1.
 */
export function aliasTable(dist: number[], thr: Uint32Array, ali: Uint8Array, at: number, logK = 5): void {
  const K = 1 << logK;
  const cap = 2 ** (32 - logK); // a full slot
  if (dist.length === 1) {
    thr[at] = NO_DICE;
    return; // never drawn
  }
  // (typed scratch arrays and an insertion sort: each case's tables make thousands of these)
  const rem = A_REM;
  const w = A_W;
  let total = 0;
  for (let h = 0; h < K; h++) {
    const e = (h < dist.length ? dist[h] : 0) * 2 ** 32;
    w[h] = Math.floor(e);
    rem[h] = e - w[h];
    total += w[h];
  }
  let left = 2 ** 32 - total;
  if (left > 0) {
    // the largest remainders first, ties by index: each gets one more. Slots past the outcomes
    // have remainder 0, the least, so they come last in index order: only the outcomes are sorted.
    const order = A_ORDER;
    const L = Math.min(dist.length, K);
    for (let i = 0; i < L; i++) {
      let j = i;
      for (; j > 0 && rem[order[j - 1]] < rem[i]; j--) order[j] = order[j - 1];
      order[j] = i;
    }
    for (let i = L; i < K; i++) order[i] = i;
    for (let i = 0; i < K && left > 0; i++, left--) w[order[i]]++;
  }
  const small = A_SMALL;
  const large = A_LARGE;
  let ns = 0;
  let nl = 0;
  for (let i = 0; i < K; i++) {
    if (w[i] < cap) small[ns++] = i;
    else large[nl++] = i;
    thr[at + i] = cap; // a full slot keeps its outcome whatever the draw
    ali[at + i] = i;
  }
  while (ns > 0 && nl > 0) {
    const sI = small[--ns];
    const lI = large[nl - 1];
    thr[at + sI] = w[sI];
    ali[at + sI] = lI;
    w[lI] -= cap - w[sI];
    if (w[lI] < cap) {
      nl--;
      small[ns++] = lI;
    }
  }
}
/** aliasTable's scratch: remainders, weights, the slots by remainder, the small and large stacks. */
const A_REM = new Float64Array(32);
const A_W = new Float64Array(32);
const A_ORDER = new Int32Array(32);
const A_SMALL = new Int32Array(32);
const A_LARGE = new Int32Array(32);

/** One side's state tables over its 5^n states (see the top of the file). */
export interface SideTables {
  n: number;
  apply: Uint16Array;
  nz: Uint8Array;
  sum: Uint8Array;
  max: Uint8Array;
  next: Int8Array;
  ties: Uint8Array;
  tied: Int8Array;
  mask: Uint8Array;
  /** The k strongest blocks of state x, as a state: [x * (TABLE_MAX + 1) + k], taken one by one, the first in position order among equals (stormers joining, 6.53). */
  top: Uint16Array;
  digit: Uint8Array;
}

/**
 * A side's state tables for n blocks, ties in hit order `pref` (positions). (Typed locals,
 * indexed loops and one copyWithin per state: 3125 states of a 5-block side are made in cold
 * code, before a worker's first battle.)
 */
function buildSideTables(n: number, pref: number[]): SideTables {
  const states = 5 ** n;
  const apply = new Uint16Array(states * HS);
  const nz = new Uint8Array(states);
  const sum = new Uint8Array(states);
  const max = new Uint8Array(states);
  const next = new Int8Array(states).fill(-1);
  const ties = new Uint8Array(states);
  const tied = new Int8Array(states * TABLE_MAX).fill(-1);
  const mask = new Uint8Array(states);
  const top = new Uint16Array(states * (TABLE_MAX + 1));
  const digit = new Uint8Array(states * n);
  const order = Int32Array.from(pref);
  const d = new Int32Array(n);
  for (let x = 0; x < states; x++) {
    let y = x;
    let most = 0;
    for (let j = 0; j < n; j++) {
      const v = y % 5;
      y = (y / 5) | 0;
      d[j] = v;
      digit[x * n + j] = v;
      if (v > 0) {
        nz[x]++;
        sum[x] += v;
        mask[x] |= 1 << j;
        if (v > most) most = v;
      }
    }
    max[x] = most;
    for (let j = 0; j < n; j++) if (d[j] > 0 && d[j] === most) tied[x * TABLE_MAX + ties[x]++] = j;
    // the strongest: the most steps, ties by hit order
    let best = -1;
    for (let i = 0; i < order.length; i++) {
      const j = order[i];
      if (d[j] > 0 && (best < 0 || d[j] > d[best])) best = j;
    }
    next[x] = best;
    // the strongest blocks one by one (what is left is a smaller state, its max and tied made before)
    for (let k = 1, f = x, add = 0; k <= TABLE_MAX; k++) {
      const m = max[f];
      if (m > 0) {
        const v = m * POW5[tied[f * TABLE_MAX]];
        f -= v;
        add += v;
      }
      top[x * (TABLE_MAX + 1) + k] = add;
    }
    // h hits on x: the first on its strongest, the other h - 1 on what is left (a smaller state,
    // made before); none left (x = 0): 0 whatever the hits
    apply[x * HS] = x;
    if (best >= 0) apply.copyWithin(x * HS + 1, (x - POW5[best]) * HS, (x - POW5[best]) * HS + HS - 1);
  }
  return { n, apply, nz, sum, max, next, ties, tied, mask, top, digit };
}

/** Two sides' tables in one array, side 1 after side 0 (the field path's too). */
export function joined<T extends Uint8Array | Int8Array | Uint16Array | Int32Array>(a: T, b: T): T {
  const out = new (a.constructor as new (n: number) => T)(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * Tables made so far, by what they depend on: each worker made every case's tables anew before
 * its first battle (10-60 ms, the first call in a fresh process mostly), for every point of a
 * sweep and every variant, which mostly share them. Read only once made, so shared as they are;
 * each cache bounded for a long-lived worker (the workbench).
 */
let caching = true;
const cached = <V>(cache: Map<string, V>, key: string, make: () => V, keep: number): V => cachedIn(cache, key, make, keep, caching);
/** A run's alias tables for every state of its side, [THR, ALI, logK], by the side's block count, plain or a charge, and the run's blocks' firepower and position in firing order (at most 500 kB each). */
const RUN_MADE = new Map<string, [Uint32Array, Uint8Array, number]>();
/** One side's state tables, by block count and hit order (positions). */
const SIDE_MADE = new Map<string, SideTables>();
/** Both sides' state tables joined, by both keys. */
const STATE_MADE = new Map<string, StateTables>();

/** Test hooks: forget every table made so far; make every table afresh (no cache) or not. */
export const _tableCaches = {
  clear(): void {
    RUN_MADE.clear();
    SIDE_MADE.clear();
    STATE_MADE.clear();
  },
  use(on: boolean): void {
    caching = on;
  },
};

/** One side's state tables, made once per worker (SIDE_MADE; the field paths' too). */
export function sideTables(n: number, pref: number[]): SideTables {
  return cached(SIDE_MADE, `${n}:${pref.join(',')}`, () => buildSideTables(n, pref), 16);
}

/** One more die at p on the hit distribution `dist` (a new array; the sums buildRuns has always made). */
function oneMore(dist: number[], p: number): number[] {
  const n = dist.length;
  const out = new Array<number>(n + 1);
  out[0] = dist[0] * (1 - p) + 0;
  for (let h = 1; h < n; h++) out[h] = dist[h] * (1 - p) + dist[h - 1] * p;
  out[n] = dist[n - 1] * p;
  return out;
}

/**
 * The hit distributions of a plain run of blocks with firepowers `fps`, in firing order, for
 * every combination of their steps (0-4 each; index: the steps in base 5, the first block's most
 * significant): the sum of Binomial(steps[i], fps[i] / 6), one die at a time (oneMore), in one
 * walk that shares each prefix (the same sums in the same order as one combination at a time,
 * so the same bits). Both paths' run tables are made from these (the field run path's too).
 */
export function runDists(fps: number[]): number[][] {
  const m = fps.length;
  const dists: number[][] = [];
  const walk = (i: number, dist: number[]): void => {
    if (i === m) {
      dists.push(dist);
      return;
    }
    const p = fps[i] / 6;
    for (let s = 0; s < 5; s++) {
      walk(i + 1, dist);
      if (s < 4) dist = oneMore(dist, p);
    }
  };
  walk(0, [1]);
  return dists;
}

/**
 * The run tables of blocks at positions `ps` with firepowers `fps` (one charging block when
 * `charge`) for a side of n blocks. A plain run's total hits are the sum of Binomial(steps[i],
 * fps[i] / 6) over its blocks in firing order (runDists), and each state takes its own.
 */
function makeRunTable(n: number, ps: number[], fps: number[], charge: boolean): [Uint32Array, Uint8Array, number] {
  const m = ps.length;
  const dists = charge ? Array.from({ length: 5 }, (_, s) => chargeOutcomes(s, fps[0])) : runDists(fps);
  let most = 1; // outcomes with a chance, in the largest state
  for (let j = 0; j < dists.length; j++) {
    let d = dists[j];
    if (d.length > 1 && d[d.length - 1] === 0) {
      d = d.slice();
      while (d.length > 1 && d[d.length - 1] === 0) d.pop();
      dists[j] = d;
    }
    if (d.length > most) most = d.length;
  }
  const logK = Math.max(1, Math.ceil(Math.log2(most)));
  const K = 1 << logK;
  const made = dists.map((d) => {
    const t = [new Uint32Array(K), new Uint8Array(K)] as const;
    aliasTable(d, t[0], t[1], 0, logK);
    return t;
  });
  const states = 5 ** n;
  const thr = new Uint32Array(states << logK);
  const ali = new Uint8Array(states << logK);
  for (let x = 0; x < states; x++) {
    let k = 0;
    for (let i = 0; i < m; i++) k = k * 5 + (Math.floor(x / POW5[ps[i]]) % 5);
    const t = made[k];
    thr.set(t[0], x << logK); // (a builtin copy: a loop of K here ran interpreted, before the first battle)
    ali.set(t[1], x << logK);
  }
  return [thr, ali, logK];
}

/**
 * Runs of volleys. A side's blocks that fire one after another in 6.2's order (a letter group,
 * and the side's next group when the enemy has none in between) shoot at the same enemy and
 * are not hit in between, so the run's hits are the sum of its volleys (6.31 applies them one at
 * a time to the strongest enemy block: APPLY does that for any sum). For each state x of the
 * side at the place it fires from, the run's total hits are a sum of binomials B(steps,
 * firepower / 6) over its blocks there; THR and ALI hold that distribution as an alias table, exact
 * to within 2^-32 per outcome. A knight that may charge (6.32) is a run of its own (kind 1
 * always, 2 when the enemy's strongest field block is weaker; its table draws hits * 5 + sixes,
 * runAlt its plain volley, for storms and declined charges), and so is a block with a choice to
 * make on its turn (runDecide: withdraw, harry or retreat).
 */
function buildRuns(c: CrusaderRexCompiled, ords: Int32Array[], pos: Int32Array): Runs {
  const key = new Map<string, [number, number]>();
  const run = { side: [] as number[], base: [] as number[], log: [] as number[], kind: [] as number[], alt: [] as number[], altLog: [] as number[], block: [] as number[], decide: [] as number[] };
  const chunks: [Uint32Array, Uint8Array][] = [];
  const whats: string[] = [];
  let size = 0;
  const nOf = [0, 1].map((sd) => c.side.filter((s) => s === sd).length);
  const fp = (b: number) => Math.min(6, c.fp[b]);
  /**
   * One alias table per state of side sd: [offset, logK]. `blocks` fire plainly, or `chargeB`
   * charges (then blocks is empty). Made once per worker (RUN_MADE).
   */
  const table = (name: string, sd: number, blocks: number[], chargeB: number): [number, number] => {
    const known = key.get(name);
    if (known !== undefined) return known;
    const fired = chargeB >= 0 ? [chargeB] : blocks;
    // what the tables depend on: the side's block count, the charge or not, each block's firepower and position, in firing order
    const what = `${nOf[sd]}${chargeB >= 0 ? 'c' : 'p'}${fired.map((b) => `${fp(b)}@${pos[b]}`).join(',')}`;
    const made = cached(RUN_MADE, what, () => makeRunTable(nOf[sd], fired.map((b) => pos[b]), fired.map(fp), chargeB >= 0), 32);
    const at: [number, number] = [size, made[2]];
    key.set(name, at);
    chunks.push([made[0], made[1]]);
    whats.push(what);
    size += made[0].length;
    return at;
  };
  const charges = (b: number) => c.charge > 0 && c.knight[b] === 1;
  // a choice on its turn: withdraw (6.62, only with a castle), harry (6.33), retreat (6.6)
  const decides = (b: number) => (c.withdraw === 1 && c.rating > 0) || c.retreat === 1 || (c.harry === 1 && c.harrier[b] === 1);
  const from: number[] = [];
  const to: number[] = [];
  for (const order of ords) {
    from.push(run.side.length);
    let k = 0;
    while (k < order.length) {
      const sd = c.side[order[k]];
      if (charges(order[k]) || decides(order[k])) {
        const b = order[k++];
        const own = table(`${sd}:${b}`, sd, [b], -1);
        const [base, log] = charges(b) ? table(`c${b}`, sd, [], b) : own;
        run.side.push(sd);
        run.base.push(base);
        run.log.push(log);
        run.kind.push(charges(b) ? c.charge : 0);
        run.alt.push(own[0]);
        run.altLog.push(own[1]);
        run.block.push(b);
        run.decide.push(decides(b) ? 1 : 0);
        continue;
      }
      const blocks: number[] = [];
      while (k < order.length && c.side[order[k]] === sd && !charges(order[k]) && !decides(order[k])) blocks.push(order[k++]);
      const [t, log] = table(`${sd}:${blocks.join(',')}`, sd, blocks, -1);
      run.side.push(sd);
      run.base.push(t);
      run.log.push(log);
      run.kind.push(0);
      run.alt.push(t);
      run.altLog.push(log);
      run.block.push(-1);
      run.decide.push(0);
    }
    to.push(run.side.length);
  }
  const THR = new Uint32Array(size);
  const ALI = new Uint8Array(size);
  let at = 0;
  for (const [thr, ali] of chunks) {
    THR.set(thr, at);
    ALI.set(ali, at);
    at += thr.length;
  }
  return {
    runFrom: Int32Array.from(from),
    runTo: Int32Array.from(to),
    runSide: Int32Array.from(run.side),
    runBase: Int32Array.from(run.base),
    runLog: Int32Array.from(run.log),
    runKind: Int32Array.from(run.kind),
    runAlt: Int32Array.from(run.alt),
    runAltLog: Int32Array.from(run.altLog),
    runBlock: Int32Array.from(run.block),
    runDecide: Int32Array.from(run.decide),
    plainOrder: Int32Array.from(from, (f, o) => (run.block.slice(f, to[o]).every((b) => b < 0) ? 1 : 0)),
    THR,
    ALI,
    runKey: JSON.stringify([whats, from, to, run]),
  };
}

/** Both sides' state tables (the first part of Tables), by block count and hit order (STATE_MADE). */
type StateTables = Pick<Tables, 'DIG' | 'APP' | 'NZ' | 'SUM' | 'MAXD' | 'NEXT' | 'TIES' | 'TIED' | 'MASK' | 'TOP' | 'dOff' | 'aOff' | 'zOff' | 'nSide'>;

function stateTables(n: number[], prefs: number[][]): StateTables {
  const key = `${n[0]}:${prefs[0].join(',')}|${n[1]}:${prefs[1].join(',')}`;
  return cached(STATE_MADE, key, () => {
    const [t0, t1] = [0, 1].map((sd) => sideTables(n[sd], prefs[sd]));
    return {
      DIG: joined(t0.digit, t1.digit),
      APP: joined(t0.apply, t1.apply),
      NZ: joined(t0.nz, t1.nz),
      SUM: joined(t0.sum, t1.sum),
      MAXD: joined(t0.max, t1.max),
      NEXT: joined(t0.next, t1.next),
      TIES: joined(t0.ties, t1.ties),
      TIED: joined(t0.tied, t1.tied),
      MASK: joined(t0.mask, t1.mask),
      TOP: joined(t0.top, t1.top),
      dOff: Int32Array.of(0, t0.digit.length),
      aOff: Int32Array.of(0, t0.apply.length),
      zOff: Int32Array.of(0, t0.nz.length),
      nSide: Int32Array.of(t0.n, t1.n),
    };
  }, 16);
}

/** The table path's tables for a case it applies to (tablePathApplies), over the firing orders. */
export function buildTables(c: CrusaderRexCompiled, ords: Int32Array[]): Tables {
  const pos = new Int32Array(c.nb);
  const next = [0, 0];
  for (let b = 0; b < c.nb; b++) pos[b] = next[c.side[b]]++;
  // hit order (6.31 ties): listed; protect_best: the worse initiative, then the lower firepower first
  const prefs = [0, 1].map((sd) => {
    const list: number[] = [];
    for (let b = 0; b < c.nb; b++) if (c.side[b] === sd) list.push(b);
    if (c.tieBreak === 1) list.sort((a, b) => c.letter[b] - c.letter[a] || c.fp[a] - c.fp[b] || a - b);
    return list.map((b) => pos[b]);
  });
  const states = stateTables(next, prefs);
  const F = new Int32Array(2);
  const C = new Int32Array(2);
  const pend = new Int32Array(2);
  const pendN = new Int32Array(2);
  const pendS = new Int32Array(2);
  const initialS = new Int32Array(2);
  const arrive = new Int32Array(4 * 2 * 4);
  for (let b = 0; b < c.nb; b++) {
    const sd = c.side[b];
    const v = c.steps0[b] * POW5[pos[b]];
    initialS[sd] += c.steps0[b];
    if (c.loc0[b] === FIELD) F[sd] += v;
    else if (c.loc0[b] === CASTLE) C[sd] += v;
    else if (c.loc0[b] === PENDING) {
      pend[sd] |= 1 << pos[b];
      pendN[sd]++;
      pendS[sd] += c.steps0[b];
      const k = (c.arrive[b] * 2 + sd) * 4; // a reserve arrives in R2 or R3
      arrive[k] += v;
      arrive[k + 1] |= 1 << pos[b];
      arrive[k + 2]++;
      arrive[k + 3] += c.steps0[b];
    }
  }
  return {
    ...states,
    bPos: pos,
    bHarrier: Int32Array.from(c.harrier),
    F0: F,
    C0: C,
    pend0: pend,
    pendN0: pendN,
    pendS0: pendS,
    initialS,
    ARRIVE: arrive,
    ...buildRuns(c, ords, pos),
  };
}

