/**
 * The Crusader Rex closed field path: a field battle whose blocks are all in the field from the
 * start (no reserves on the road, so no arrivals and no 6.41 control change), with no charge, at
 * a town without a castle, with no harry or retreat choices, a fixed tie-break and an order that
 * cannot matter (closedFieldApplies; the reference battle is one). Such a battle is three rounds
 * of the same runs of volleys between two side states, then the attacker's retreat from a
 * contested field (docs/rules/crusader-rex.md 2.8, 6.2, 6.31), and this path plays exactly that:
 *
 *  - A side's field is one number, its blocks' steps as base-5 digits; h hits on the strongest
 *    blocks in turn (6.31, ties in the side's hit order) is one look-up in the side's APPLY table
 *    (table-building's sideTables, the field and table paths' tables too).
 *  - A run of volleys (one side's blocks that fire one after another in 6.2's order, not hit in
 *    between: a letter group, or more) is one draw of its total hits from their exact
 *    distribution: the counts of each total among the 6^n faces of its n dice, an alias table
 *    built from them in integers (exactAliasTable) and read with one 32-bit draw (a draw whose
 *    27 low bits sit exactly on a slot's threshold, 1 in 2^27, takes more bits to decide).
 *  - An eliminated side is absorbing: its state is 0, every run it fires scores 0 and every hit
 *    on it leaves 0, so every trial plays all its runs without a branch on the battle's end
 *    (the draws after the end change nothing), and the rounds fought are counted from the
 *    states after each round.
 *  - What a trial adds to the accumulator is a function of its states after each round, so the
 *    loop counts those (steps in the field per round and side, the final steps per side, the
 *    rounds fought) in integer histograms and turns them into the accumulator's sums once per
 *    call (flushClosed): the sums are of integers, exact in a double, so they are the sums a
 *    per-trial addition makes.
 *
 * Its dice differ from the other paths' (one draw per run, from other tables); its distribution
 * is theirs: the tests hold it to the volley-by-volley path and to the exact chain. With a trace
 * (systems/types.ts) each trial is added to the accumulator as it ends, then traced.
 * Everything it reads is in its per-case object (ClosedField), made once per case.
 */
import type { CrusaderRexCompiled } from './compile.js';
import { FIELD } from './compile.js';
import type { Trace } from '../types.js';
import { A_ATT_WINS, A_BOTH_GONE, A_DEF_HOLDS, A_LOST, A_ROUNDS, SURV, attrBase, maxAll } from './layout.js';
import { fieldPathApplies } from './field-run-path.js';
import { sideTables, type SideTables } from './state-tables.js';
import { cached } from './cache.js';
import { fmix32, nextI32 } from '../../engine/rng.js';

/** Hits one run of volleys can score: up to 5 blocks of 4 steps (the side tables' APPLY stride). */
const HS = 21;
/** Slots of an alias table (2^5 >= the 21 possible hit counts of a run). */
const K = 32;
const LOW = 0x7ffffff; // a draw's low 27 bits decide within its slot (its top 5 pick the slot)
/** nextTrialState's mixing words (engine/rng.ts), for the inlined copy in the loop. */
const MIX0 = 0x9e3779b9 | 0;
const MIX1 = 0x7f4a7c15 | 0;
const MIX2 = 0x6a09e667 | 0;
const MIX3 = 0x3c6ef372 | 0;
/** Histogram layout (ClosedField.cnt): per round and side the field's steps, the final steps, the rounds fought. */
const H_FINAL = 3 * 2 * K;
const H_ROUNDS = H_FINAL + 2 * 2 * K;
const H_LEN = H_ROUNDS + 4;
/** The most trials one pass counts before flushing (int32 counters). */
const PASS = 1 << 30;

/** Everything the closed field path reads, made once per compiled case (buildClosedField). */
export interface ClosedField {
  /** Each side's state at the start (all its blocks in the field). */
  a0: number;
  b0: number;
  /** Each side's APPLY table: state * HS + hits -> state. */
  app0: Uint16Array;
  app1: Uint16Array;
  /** Each side's steps in the field by state. */
  sum0: Uint8Array;
  sum1: Uint8Array;
  /**
   * The final steps (field, castle-less: what survives) by contested * states + state: a
   * contested field's attacker retreats (what its road slots save), the rest keep their steps.
   */
  end0: Uint8Array;
  end1: Uint8Array;
  /** The runs of the three rounds in firing order: round r's are roundEnd[r - 1] .. roundEnd[r] - 1. */
  runSide: Int32Array;
  /** Run k's alias table for its side's state x is at runBase[k] + x * K. */
  runBase: Int32Array;
  roundEnd: Int32Array;
  /** Alias entries: threshold (of 2^27) << 5 | alias; a draw on a threshold is decided by rem / n (exactAliasTable). */
  alias: Int32Array;
  rem: Float64Array;
  /** Each alias table's 6^dice, by offset / K. */
  n: Float64Array;
  /** The histograms of the trials of the current call by steps (H_LEN), filled from sc at each flush, and of the rounds fought. */
  cnt: Int32Array;
  /**
   * The histograms of the current call by state (S = both sides' state counts; side 1's states
   * after side 0's): rounds 1 and 2's states at 0 and S, the final states at 2 S + contested S.
   * Counting states spares the loop the look-ups of their steps; round 3's states are the final
   * ones, so they are not counted twice.
   */
  sc: Int32Array;
  /** The scratch generator state for a draw on a threshold. */
  rs: Int32Array;
  att: number;
  initial: Int32Array;
  histN: number;
  attrB: number;
  turns: number;
}

/**
 * The closed field path applies: the field path's battles (no castle, no harry or retreat
 * choices, a fixed tie-break, an order that cannot matter, at most 5 blocks a side) with every
 * block in the field at the start and no knight that charges.
 */
export function closedFieldApplies(c: CrusaderRexCompiled): boolean {
  if (!fieldPathApplies(c)) return false;
  for (let b = 0; b < c.nb; b++) {
    if (c.loc0[b] !== FIELD) return false;
    if (c.charge !== 0 && c.knight[b] === 1) return false;
  }
  return true;
}

/**
 * The counts of each total of hits of dice with `fps` (firepower per die, capped at 6) among
 * their 6^n faces: the product of ((6 - f) + f x) over the dice. Exact: every count is at most
 * 6^20 < 2^53.
 */
export function hitCounts(fps: number[]): number[] {
  let out = [1];
  for (const f of fps) {
    const next = new Array<number>(out.length + 1).fill(0);
    for (let h = 0; h < out.length; h++) {
      next[h] += out[h] * (6 - f);
      next[h + 1] += out[h] * f;
    }
    out = next;
  }
  return out;
}

/**
 * An alias table for the hit totals with `counts` (summing to n), exact: each slot of K holds
 * weight n, outcome i brings K * counts[i] (Vose's pairing in integers), so a slot keeps its
 * own outcome with probability w / n, its alias otherwise. A draw reads slot u >>> 27 and keeps
 * it when its low 27 bits y are below floor(w 2^27 / n) (the entry's threshold); on y equal to
 * it, when a uniform v in [0, n) is below (w 2^27) mod n (rem): probability exactly w / n. A
 * full slot is threshold 2^27 - 1 with itself as alias. Into alias/rem at `at`.
 */
export function exactAliasTable(counts: ArrayLike<number>, alias: Int32Array, rem: Float64Array, at: number): void {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i];
  exactAliasOf(counts, counts.length, total, alias, rem, at);
}

/** exactAliasTable over the first `len` counts (summing to `total`). */
function exactAliasOf(counts: ArrayLike<number>, len: number, total: number, alias: Int32Array, rem: Float64Array, at: number): void {
  // in doubles while every weight (at most K n) is an exact integer; in BigInt beyond (19 or 20 dice)
  if (total * K > 2 ** 53) {
    exactAliasBig(Array.from({ length: len }, (_, i) => counts[i]), alias, rem, at);
    return;
  }
  const n = total;
  const w = EA_W;
  const small = EA_SMALL;
  const large = EA_LARGE;
  let ns = 0;
  let nl = 0;
  for (let i = 0; i < K; i++) {
    w[i] = i < len ? K * counts[i] : 0;
    if (w[i] < n) small[ns++] = i;
    else large[nl++] = i;
    alias[at + i] = ((LOW * K) | i) | 0; // full until paired
    rem[at + i] = 0;
  }
  while (ns > 0 && nl > 0) {
    const sI = small[--ns];
    const lI = large[nl - 1];
    // floor(w 2^27 / n) and (w 2^27) mod n, 3 bits at a time: r < n <= 2^48, so r 8 < 2^51 and
    // every product below is exact; the quotient of doubles is corrected to the integer one
    let q = 0;
    let r = w[sI];
    for (let bits = 0; bits < 27; bits += 3) {
      r *= 8;
      let d = Math.floor(r / n);
      r -= d * n;
      if (r < 0) {
        d--;
        r += n;
      } else if (r >= n) {
        d++;
        r -= n;
      }
      q = q * 8 + d;
    }
    alias[at + sI] = (q * K + lI) | 0;
    rem[at + sI] = r;
    w[lI] -= n - w[sI];
    if (w[lI] < n) {
      nl--;
      small[ns++] = lI;
    }
  }
}
/** exactAliasTable's scratch: the weights, the small and large stacks. */
const EA_W = new Float64Array(K);
const EA_SMALL = new Int32Array(K);
const EA_LARGE = new Int32Array(K);

/** exactAliasTable in BigInt (weights beyond 2^53). */
function exactAliasBig(counts: number[], alias: Int32Array, rem: Float64Array, at: number): void {
  const n = BigInt(counts.reduce((s, x) => s + x, 0));
  const w: bigint[] = [];
  const small: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < K; i++) {
    w.push(i < counts.length ? BigInt(K) * BigInt(counts[i]) : 0n);
    if (w[i] < n) small.push(i);
    else large.push(i);
    alias[at + i] = ((LOW * K) | i) | 0; // full until paired
    rem[at + i] = 0;
  }
  while (small.length > 0 && large.length > 0) {
    const sI = small.pop()!;
    const lI = large[large.length - 1];
    const scaled = w[sI] << 27n;
    alias[at + sI] = (Number(scaled / n) * K + lI) | 0;
    rem[at + sI] = Number(scaled % n);
    w[lI] -= n - w[sI];
    if (w[lI] < n) {
      large.pop();
      small.push(lI);
    }
  }
}

/** A uniform integer in [0, n) (n < 2^53) from 53 bits of `s`, by rejection: exact. */
function uniformBelow(s: Int32Array, n: number): number {
  const lim = Math.floor(9007199254740992 / n) * n;
  for (;;) {
    const x = (nextI32(s) >>> 11) * 4294967296 + (nextI32(s) >>> 0);
    if (x < lim) return x % n;
  }
}

/** A side's blocks in hit order (most steps first is decided by the tables; ties by this order). */
function hitOrder(c: CrusaderRexCompiled, side: number): number[] {
  const list: number[] = [];
  for (let b = 0; b < c.nb; b++) if (c.side[b] === side) list.push(b);
  // protect_best: among tied blocks the hit goes to the worse initiative, then firepower
  if (c.tieBreak === 1) list.sort((a, b) => c.letter[b] - c.letter[a] || c.fp[a] - c.fp[b] || a - b);
  return list;
}

/** A run's alias tables for every state of its side (K entries each), their remainders and each table's 6^dice. */
interface RunTables {
  alias: Int32Array;
  rem: Float64Array;
  n: Float64Array;
}
/**
 * Run tables made so far in this thread, by the side's block count and the run's blocks'
 * positions and firepowers: read only once made, so the cases of a sweep share them.
 */
const RUN_MADE = new Map<string, RunTables>();
const RUN_KEEP = 64;

/**
 * The alias tables of a run of blocks at positions `ps` with firepowers `fps` for each state of
 * a side (tables `t`, `states` states): one table per combination of the run's blocks' steps
 * (exactAliasTable over the counts of their dice), copied to each state that has it, so a draw
 * reads the table at its state's offset with no look-up in between.
 */
function makeRunTables(t: SideTables, states: number, ps: number[], fps: number[]): RunTables {
  const m = ps.length;
  const subs = 5 ** m;
  const al = new Int32Array(subs * K);
  const rm = new Float64Array(subs * K);
  const nDice = new Int32Array(subs);
  // the counts of every combination of the run's steps (sub-index: the steps in base 5, the first
  // block's most significant), one walk sharing each prefix: level i holds the counts of the
  // first i blocks' dice, and one more die multiplies by ((6 - f) + f x)
  const level = Array.from({ length: m + 1 }, () => new Float64Array(HS + 1));
  const total = new Float64Array(m + 1);
  level[0][0] = 1;
  total[0] = 1;
  let sub = 0;
  const walk = (i: number, dice: number): void => {
    if (i === m) {
      exactAliasOf(level[m], dice + 1, total[m], al, rm, sub * K);
      nDice[sub++] = dice;
      return;
    }
    const f = fps[i];
    const from = level[i];
    const to = level[i + 1];
    for (let h = 0; h <= dice; h++) to[h] = from[h];
    total[i + 1] = total[i];
    for (let s = 0; s < 5; s++) {
      walk(i + 1, dice + s);
      if (s === 4) break;
      // one more die on level i + 1 (its first dice + s dice so far): the product with ((6 - f) + f x)
      const top = dice + s;
      to[top + 1] = to[top] * f;
      for (let h = top; h > 0; h--) to[h] = to[h] * (6 - f) + to[h - 1] * f;
      to[0] *= 6 - f;
      total[i + 1] *= 6;
    }
  };
  walk(0, 0);
  const alias = new Int32Array(states * K);
  const rem = new Float64Array(states * K);
  const n = new Float64Array(states);
  for (let x = 0; x < states; x++) {
    let r = 0;
    for (let i = 0; i < m; i++) r = r * 5 + t.digit[x * t.n + ps[i]];
    for (let j = 0; j < K; j++) {
      alias[x * K + j] = al[r * K + j];
      rem[x * K + j] = rm[r * K + j];
    }
    n[x] = 6 ** nDice[r];
  }
  return { alias, rem, n };
}

/** The closed field path's tables for a case it applies to (closedFieldApplies); `ords` as buildOrders gives them. */
export function buildClosedField(c: CrusaderRexCompiled, ords: Int32Array[]): ClosedField {
  const pos = new Int32Array(c.nb);
  const count = [0, 0];
  for (let b = 0; b < c.nb; b++) pos[b] = count[c.side[b]]++;
  const weight = (b: number) => 5 ** pos[b];
  const t = [0, 1].map((sd) => sideTables(count[sd], hitOrder(c, sd).map((b) => pos[b])));
  const states = [5 ** count[0], 5 ** count[1]];
  const start = [0, 0];
  const initial = new Int32Array(2);
  for (let b = 0; b < c.nb; b++) {
    start[c.side[b]] += c.steps0[b] * weight(b);
    initial[c.side[b]] += c.steps0[b];
  }
  const att = c.attacker0;
  // the final steps: the attacker of a contested field retreats (2.8), blocks beyond its road
  // slots (6.61) in listed order are eliminated; an uncontested field keeps its steps
  const end = [0, 1].map((sd) => {
    const out = new Uint8Array(2 * states[sd]);
    for (let x = 0; x < states[sd]; x++) {
      out[x] = t[sd].sum[x];
      let total = t[sd].sum[x];
      if (sd === att && c.slots[att] >= 0) {
        let used = 0;
        for (let b = 0; b < c.nb; b++) {
          if (c.side[b] !== sd) continue;
          const s = t[sd].digit[x * t[sd].n + pos[b]];
          if (s === 0) continue;
          if (used < c.slots[att]) used++;
          else total -= s;
        }
      }
      out[states[sd] + x] = total;
    }
    return out;
  });
  // the runs of each round: round 1 in the Jihad order when the attacker declares one (6.2)
  const plain = ords[(1 - att) * 2];
  const first = c.jihad === 1 ? ords[(1 - att) * 2 + 1] : plain;
  const runSide: number[] = [];
  const runBase: number[] = [];
  const roundEnd: number[] = [];
  const aliasParts: Int32Array[] = [];
  const remParts: Float64Array[] = [];
  const nParts: number[] = [];
  let aliasLen = 0;
  const made = new Map<string, number>();
  const fp = (b: number) => (c.fp[b] > 6 ? 6 : c.fp[b]);
  const runTable = (sd: number, blocks: number[]): number => {
    const key = `${sd}:${blocks.join(',')}`;
    const had = made.get(key);
    if (had !== undefined) return had;
    const tables = cached(RUN_MADE, `${count[sd]}|${blocks.map((b) => `${pos[b]}:${fp(b)}`).join(',')}`, () => makeRunTables(t[sd], states[sd], blocks.map((b) => pos[b]), blocks.map(fp)), RUN_KEEP);
    const at = aliasLen;
    aliasParts.push(tables.alias);
    remParts.push(tables.rem);
    for (const x of tables.n) nParts.push(x);
    aliasLen += tables.alias.length;
    made.set(key, at);
    return at;
  };
  for (const order of [first, plain, plain]) {
    let k = 0;
    while (k < order.length) {
      const sd = c.side[order[k]];
      const blocks: number[] = [];
      while (k < order.length && c.side[order[k]] === sd) blocks.push(order[k++]);
      runSide.push(sd);
      runBase.push(runTable(sd, blocks));
    }
    roundEnd.push(runSide.length);
  }
  const cat = <T extends Int32Array | Float64Array>(parts: T[], out: T): T => {
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  return {
    a0: start[0],
    b0: start[1],
    app0: t[0].apply,
    app1: t[1].apply,
    sum0: t[0].sum,
    sum1: t[1].sum,
    end0: end[0],
    end1: end[1],
    runSide: Int32Array.from(runSide),
    runBase: Int32Array.from(runBase),
    roundEnd: Int32Array.from(roundEnd),
    alias: cat(aliasParts, new Int32Array(aliasLen)),
    rem: cat(remParts, new Float64Array(aliasLen)),
    n: Float64Array.from(nParts),
    cnt: new Int32Array(H_LEN),
    sc: new Int32Array(4 * (t[0].sum.length + t[1].sum.length)),
    rs: new Int32Array(4),
    att,
    initial,
    histN: maxAll(c) + 1,
    attrB: attrBase(c),
    turns: c.turns,
  };
}

/**
 * Run `trials` closed field battles into acc. Each trial's generator state is nextTrialState's
 * (four draws of the chunk stream, each mixed), inlined here with the trial's own xoshiro128**
 * in locals (engine/rng.ts: the same bits).
 */
export function runClosedField(f: ClosedField, stream: Int32Array, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  if (trace === undefined) acc[0] += trials;
  for (let done = 0; done < trials; done += PASS) {
    const n = trials - done < PASS ? trials - done : PASS;
    playClosed(f, stream, n, acc, trace, done);
    if (trace === undefined) flushClosed(f, acc);
  }
}

/**
 * The trial loop, two trials at a time (the second a copy of the first's play on its own dice:
 * the two chains of dependent look-ups overlap), in its own function: the histograms are
 * flushed after it returns. With an odd count the last pair's second trial is a stand-in on a
 * fixed state, drawn from nothing and counted nowhere.
 */
function playClosed(f: ClosedField, g: Int32Array, trials: number, acc: Float64Array, trace: Trace | undefined, t0: number): void {
  const app0 = f.app0;
  const app1 = f.app1;
  const runSide = f.runSide;
  const runBase = f.runBase;
  const alias = f.alias;
  const cnt = f.cnt;
  const rs = f.rs;
  const e1 = f.roundEnd[0];
  const e2 = f.roundEnd[1];
  const e3 = f.roundEnd[2];
  const a0 = f.a0;
  const b0 = f.b0;
  const s0 = f.sum0.length;
  const ss = s0 + f.sum1.length;
  const ss2 = 2 * ss;
  const sc = f.sc;
  const fought0 = a0 !== 0 && b0 !== 0 ? 1 : 0;
  const slots = trace === undefined ? rs : trace.slots;
  const ns = trace === undefined ? 0 : slots.length;
  for (let i = 0; i < trials; i += 2) {
    const two = i + 1 < trials;
    // nextTrialState (engine/rng.ts) for each trial: four draws of the chunk stream, each mixed
    let g0 = g[0] | 0;
    let g1 = g[1] | 0;
    let g2 = g[2] | 0;
    let g3 = g[3] | 0;
    let m = 0;
    let t = 0;
    let n2 = 0;
    let n3 = 0;
    let x0 = 0;
    let x1 = 0;
    let x2 = 0;
    let x3 = 0;
    let y0 = 1;
    let y1 = 0;
    let y2 = 0;
    let y3 = 0;
    m = Math.imul(g1, 5);
    x0 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX0);
    t = g1 << 9;
    n2 = g2 ^ g0;
    n3 = g3 ^ g1;
    g1 ^= n2;
    g0 ^= n3;
    g2 = n2 ^ t;
    g3 = (n3 << 11) | (n3 >>> 21);
    m = Math.imul(g1, 5);
    x1 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX1);
    t = g1 << 9;
    n2 = g2 ^ g0;
    n3 = g3 ^ g1;
    g1 ^= n2;
    g0 ^= n3;
    g2 = n2 ^ t;
    g3 = (n3 << 11) | (n3 >>> 21);
    m = Math.imul(g1, 5);
    x2 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX2);
    t = g1 << 9;
    n2 = g2 ^ g0;
    n3 = g3 ^ g1;
    g1 ^= n2;
    g0 ^= n3;
    g2 = n2 ^ t;
    g3 = (n3 << 11) | (n3 >>> 21);
    m = Math.imul(g1, 5);
    x3 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX3);
    t = g1 << 9;
    n2 = g2 ^ g0;
    n3 = g3 ^ g1;
    g1 ^= n2;
    g0 ^= n3;
    g2 = n2 ^ t;
    g3 = (n3 << 11) | (n3 >>> 21);
    if ((x0 | x1 | x2 | x3) === 0) x0 = 1;
    if (two) {
      m = Math.imul(g1, 5);
      y0 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX0);
      t = g1 << 9;
      n2 = g2 ^ g0;
      n3 = g3 ^ g1;
      g1 ^= n2;
      g0 ^= n3;
      g2 = n2 ^ t;
      g3 = (n3 << 11) | (n3 >>> 21);
      m = Math.imul(g1, 5);
      y1 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX1);
      t = g1 << 9;
      n2 = g2 ^ g0;
      n3 = g3 ^ g1;
      g1 ^= n2;
      g0 ^= n3;
      g2 = n2 ^ t;
      g3 = (n3 << 11) | (n3 >>> 21);
      m = Math.imul(g1, 5);
      y2 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX2);
      t = g1 << 9;
      n2 = g2 ^ g0;
      n3 = g3 ^ g1;
      g1 ^= n2;
      g0 ^= n3;
      g2 = n2 ^ t;
      g3 = (n3 << 11) | (n3 >>> 21);
      m = Math.imul(g1, 5);
      y3 = fmix32(Math.imul((m << 7) | (m >>> 25), 9) ^ MIX3);
      t = g1 << 9;
      n2 = g2 ^ g0;
      n3 = g3 ^ g1;
      g1 ^= n2;
      g0 ^= n3;
      g2 = n2 ^ t;
      g3 = (n3 << 11) | (n3 >>> 21);
      if ((y0 | y1 | y2 | y3) === 0) y0 = 1;
    }
    g[0] = g0;
    g[1] = g1;
    g[2] = g2;
    g[3] = g3;

    let a = a0;
    let b = b0;
    let c = a0;
    let d = b0;
    let a1 = 0;
    let b1 = 0;
    let a2 = 0;
    let b2 = 0;
    let c1 = 0;
    let d1 = 0;
    let c2 = 0;
    let d2 = 0;
    let k = 0;
    for (let r = 0; r < 3; r++) {
      const end = r === 0 ? e1 : r === 1 ? e2 : e3;
      for (; k < end; k++) {
        // one draw of each trial's xoshiro128** (engine/rng.ts nextI32)
        m = Math.imul(x1, 5);
        const u = Math.imul((m << 7) | (m >>> 25), 9);
        t = x1 << 9;
        n2 = x2 ^ x0;
        n3 = x3 ^ x1;
        x1 ^= n2;
        x0 ^= n3;
        x2 = n2 ^ t;
        x3 = (n3 << 11) | (n3 >>> 21);
        m = Math.imul(y1, 5);
        const v = Math.imul((m << 7) | (m >>> 25), 9);
        t = y1 << 9;
        n2 = y2 ^ y0;
        n3 = y3 ^ y1;
        y1 ^= n2;
        y0 ^= n3;
        y2 = n2 ^ t;
        y3 = (n3 << 11) | (n3 >>> 21);
        const base = runBase[k];
        if (runSide[k] === 0) {
          const at = base + a * K;
          const bt = base + c * K;
          let h = (u & LOW) < alias[at + (u >>> 27)] >>> 5 ? u >>> 27 : alias[at + (u >>> 27)] & 31;
          if ((u & LOW) === alias[at + (u >>> 27)] >>> 5) {
            // on the threshold: decided by the rest of the slot's exact weight (1 in 2^27 draws)
            rs[0] = x0;
            rs[1] = x1;
            rs[2] = x2;
            rs[3] = x3;
            h = onThreshold(f, rs, at, u >>> 27);
            x0 = rs[0];
            x1 = rs[1];
            x2 = rs[2];
            x3 = rs[3];
          }
          let j = (v & LOW) < alias[bt + (v >>> 27)] >>> 5 ? v >>> 27 : alias[bt + (v >>> 27)] & 31;
          if ((v & LOW) === alias[bt + (v >>> 27)] >>> 5) {
            // on the threshold: decided by the rest of the slot's exact weight (1 in 2^27 draws)
            rs[0] = y0;
            rs[1] = y1;
            rs[2] = y2;
            rs[3] = y3;
            j = onThreshold(f, rs, bt, v >>> 27);
            y0 = rs[0];
            y1 = rs[1];
            y2 = rs[2];
            y3 = rs[3];
          }
          b = app1[b * HS + h];
          d = app1[d * HS + j];
        } else {
          const at = base + b * K;
          const bt = base + d * K;
          let h = (u & LOW) < alias[at + (u >>> 27)] >>> 5 ? u >>> 27 : alias[at + (u >>> 27)] & 31;
          if ((u & LOW) === alias[at + (u >>> 27)] >>> 5) {
            // on the threshold: decided by the rest of the slot's exact weight (1 in 2^27 draws)
            rs[0] = x0;
            rs[1] = x1;
            rs[2] = x2;
            rs[3] = x3;
            h = onThreshold(f, rs, at, u >>> 27);
            x0 = rs[0];
            x1 = rs[1];
            x2 = rs[2];
            x3 = rs[3];
          }
          let j = (v & LOW) < alias[bt + (v >>> 27)] >>> 5 ? v >>> 27 : alias[bt + (v >>> 27)] & 31;
          if ((v & LOW) === alias[bt + (v >>> 27)] >>> 5) {
            // on the threshold: decided by the rest of the slot's exact weight (1 in 2^27 draws)
            rs[0] = y0;
            rs[1] = y1;
            rs[2] = y2;
            rs[3] = y3;
            j = onThreshold(f, rs, bt, v >>> 27);
            y0 = rs[0];
            y1 = rs[1];
            y2 = rs[2];
            y3 = rs[3];
          }
          a = app0[a * HS + h];
          c = app0[c * HS + j];
        }
      }
      if (r === 0) {
        a1 = a;
        b1 = b;
        c1 = c;
        d1 = d;
      } else if (r === 1) {
        a2 = a;
        b2 = b;
        c2 = c;
        d2 = d;
      }
    }
    if (trace !== undefined) {
      addClosedTrial(f, acc, a1, b1, a2, b2, a, b, fought0 + (a1 !== 0 && b1 !== 0 ? 1 : 0) + (a2 !== 0 && b2 !== 0 ? 1 : 0), a !== 0 && b !== 0 ? 1 : 0);
      for (let p = 0; p < ns; p++) trace.out[(t0 + i) * ns + p] = acc[slots[p]];
      if (two) {
        addClosedTrial(f, acc, c1, d1, c2, d2, c, d, fought0 + (c1 !== 0 && d1 !== 0 ? 1 : 0) + (c2 !== 0 && d2 !== 0 ? 1 : 0), c !== 0 && d !== 0 ? 1 : 0);
        for (let p = 0; p < ns; p++) trace.out[(t0 + i + 1) * ns + p] = acc[slots[p]];
      }
    } else {
      const rounds = fought0 + (a1 !== 0 && b1 !== 0 ? 1 : 0) + (a2 !== 0 && b2 !== 0 ? 1 : 0);
      const contested = a !== 0 && b !== 0 ? 1 : 0;
      const fa = ss2 + contested * ss;
      sc[a1]++;
      sc[s0 + b1]++;
      sc[ss + a2]++;
      sc[ss + s0 + b2]++;
      sc[fa + a]++;
      sc[fa + s0 + b]++;
      cnt[H_ROUNDS + rounds]++;
      if (two) {
        const roundsB = fought0 + (c1 !== 0 && d1 !== 0 ? 1 : 0) + (c2 !== 0 && d2 !== 0 ? 1 : 0);
        const contestedB = c !== 0 && d !== 0 ? 1 : 0;
        const fc = ss2 + contestedB * ss;
        sc[c1]++;
        sc[s0 + d1]++;
        sc[ss + c2]++;
        sc[ss + s0 + d2]++;
        sc[fc + c]++;
        sc[fc + s0 + d]++;
        cnt[H_ROUNDS + roundsB]++;
      }
    }
  }
}

/** A draw on its slot's threshold (alias table at `at`, slot `slot`): the slot's own outcome with the rest of its exact weight, from `rs`. */
function onThreshold(f: ClosedField, rs: Int32Array, at: number, slot: number): number {
  return uniformBelow(rs, f.n[at >>> 5]) < f.rem[at + slot] ? slot : f.alias[at + slot] & 31;
}

/** Σ steps and Σ steps² of `count` trials with `steps` into the attrition record at k. */
function addSteps(acc: Float64Array, k: number, count: number, steps: number): void {
  acc[k] += count * steps;
  acc[k + 1] += count * steps * steps;
}

/**
 * `count` trials whose final steps of side sd are `total` (its field's: 0 for a contested
 * field's attacker, which retreated): the end-of-turn records of every turn, survivors, steps lost.
 */
function addFinal(f: ClosedField, acc: Float64Array, sd: number, contested: number, total: number, count: number): void {
  const field = contested === 1 && sd === f.att ? 0 : total;
  const k = f.attrB + sd * 6;
  addSteps(acc, k + 3 * 12, count, field);
  for (let turn = 2; turn <= f.turns; turn++) for (let s2 = 0; s2 < 4; s2++) addSteps(acc, k + ((turn - 1) * 4 + s2) * 12, count, field);
  acc[SURV + sd * f.histN + total] += count;
  const lost = f.initial[sd] - total;
  acc[A_LOST + 2 * sd] += count * lost;
  acc[A_LOST + 2 * sd + 1] += count * lost * lost;
}

/** One trial straight into the accumulator (with a trace): what flushClosed adds for it. */
function addClosedTrial(f: ClosedField, acc: Float64Array, a1: number, b1: number, a2: number, b2: number, a: number, b: number, rounds: number, contested: number): void {
  acc[0] += 1;
  const k = f.attrB;
  addSteps(acc, k, 1, f.sum0[a1]);
  addSteps(acc, k + 6, 1, f.sum1[b1]);
  addSteps(acc, k + 12, 1, f.sum0[a2]);
  addSteps(acc, k + 18, 1, f.sum1[b2]);
  addSteps(acc, k + 24, 1, f.sum0[a]);
  addSteps(acc, k + 30, 1, f.sum1[b]);
  const fin0 = f.end0[contested * f.sum0.length + a];
  const fin1 = f.end1[contested * f.sum1.length + b];
  addFinal(f, acc, 0, contested, fin0, 1);
  addFinal(f, acc, 1, contested, fin1, 1);
  const attIn = contested === 0 && (f.att === 0 ? fin0 : fin1) > 0;
  const defIn = contested === 1 || (f.att === 0 ? fin1 : fin0) > 0;
  if (attIn) acc[A_ATT_WINS] += 1;
  else if (defIn) acc[A_DEF_HOLDS] += 1;
  else acc[A_BOTH_GONE] += 1;
  acc[A_ROUNDS] += rounds;
  acc[A_ROUNDS + 1] += rounds * rounds;
}

/** The histograms of the trials played into the accumulator (integer sums: exact), then cleared. */
function flushClosed(f: ClosedField, acc: Float64Array): void {
  const cnt = f.cnt;
  const sc = f.sc;
  const s0 = f.sum0.length;
  const ss = s0 + f.sum1.length;
  // the states' histograms as the steps' (round 3's from the final states)
  for (let sd = 0; sd < 2; sd++) {
    const sum = sd === 0 ? f.sum0 : f.sum1;
    const end = sd === 0 ? f.end0 : f.end1;
    const states = sum.length;
    const off = sd === 0 ? 0 : s0;
    for (let x = 0; x < states; x++) {
      cnt[sd * K + sum[x]] += sc[off + x];
      cnt[(2 + sd) * K + sum[x]] += sc[ss + off + x];
      for (let contested = 0; contested < 2; contested++) {
        const count = sc[2 * ss + contested * ss + off + x];
        cnt[(4 + sd) * K + sum[x]] += count;
        cnt[H_FINAL + (contested * 2 + sd) * K + end[contested * states + x]] += count;
      }
    }
  }
  sc.fill(0);
  for (let r = 0; r < 3; r++) {
    for (let sd = 0; sd < 2; sd++) {
      for (let v = 0; v < K; v++) {
        const count = cnt[(r * 2 + sd) * K + v];
        if (count !== 0) addSteps(acc, f.attrB + r * 12 + sd * 6, count, v);
      }
    }
  }
  const att = f.att;
  const def = 1 - att;
  let bothGone = 0;
  for (let contested = 0; contested < 2; contested++) {
    for (let sd = 0; sd < 2; sd++) {
      for (let v = 0; v < K; v++) {
        const count = cnt[H_FINAL + (contested * 2 + sd) * K + v];
        if (count === 0) continue;
        addFinal(f, acc, sd, contested, v, count);
        // a contested field: the attacker retreated, the defender holds; otherwise at most one side is left
        if (contested === 1) {
          if (sd === def) acc[A_DEF_HOLDS] += count;
        } else if (v > 0) {
          acc[sd === att ? A_ATT_WINS : A_DEF_HOLDS] += count;
          if (sd === def) bothGone -= count;
        } else if (sd === att) bothGone += count;
      }
    }
  }
  acc[A_BOTH_GONE] += bothGone;
  for (let r = 0; r < 4; r++) {
    const count = cnt[H_ROUNDS + r];
    acc[A_ROUNDS] += count * r;
    acc[A_ROUNDS + 1] += count * r * r;
  }
  cnt.fill(0);
}
