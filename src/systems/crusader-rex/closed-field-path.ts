/**
 * The Crusader Rex closed field path: a field battle whose blocks are all in the field from the
 * start (no reserves on the road, so no arrivals and no 6.41 control change), with no charge, at
 * a town without a castle, with no harry or retreat choices, a fixed tie-break and an order that
 * cannot matter (closedFieldApplies; the reference battle is one). Such a battle is three rounds
 * of the same runs of volleys between two side states, then the attacker's retreat from a
 * contested field (docs/rules/crusader-rex.md 2.8, 6.2, 6.31), and this path plays exactly that:
 *
 *  - Hits go one at a time to the strongest block, ties in the side's hit order (6.31), so a
 *    side's field after H hits in all is the same whatever runs scored them: a side's state is
 *    one small number, its steps left R (its field is the R-th entry of a list made once from
 *    the side's APPLY table, table-building's sideTables), and h hits on it are R - h, floored
 *    at 0. The tables check that hits compose this way for every state they use.
 *  - A run of volleys (one side's blocks that fire one after another in 6.2's order, not hit in
 *    between: a letter group, or more) is one draw of its total hits from their exact
 *    distribution: the counts of each total among the 6^n faces of its n dice, an alias table
 *    built from them in integers (exactAliasTable) and read with one 32-bit draw (a draw whose
 *    low bits sit exactly on a slot's threshold, 1 in 2^27 or so, takes more bits to decide).
 *  - A side's last run of a round and its first of the next (the same side's state fires both:
 *    the enemy does not act in between) are one draw of the pair of totals, from the exact
 *    counts of the pairs over the 6^n faces of both runs' dice, where those fit a double's
 *    integers: the reference battle is seven draws a battle instead of nine. The hits of the
 *    pair's first run land before the round ends, the second's after.
 *  - An eliminated side is absorbing: its state is 0, every run it fires scores 0 and every hit
 *    on it leaves 0, so every trial plays all its draws without a branch on the battle's end
 *    (the draws after the end change nothing), and the rounds fought are counted from the
 *    states after each round.
 *  - What a trial adds to the accumulator is a function of its states after each round, so the
 *    loop counts those (steps in the field per round and side, the final steps per side, the
 *    rounds fought) in integer histograms and turns them into the accumulator's sums once per
 *    call (flushClosed): the sums are of integers, exact in a double, so they are the sums a
 *    per-trial addition makes.
 *
 * Its dice differ from the other paths' (one draw per run or pair of runs, from other tables);
 * its distribution is theirs: the tests hold it to the volley-by-volley path and to the exact
 * chain. With a trace (systems/types.ts) each trial is added to the accumulator as it ends, then
 * traced. Everything it reads is in its per-case object (ClosedField), made once per case.
 */
import type { CrusaderRexCompiled } from './compile.js';
import { FIELD } from './compile.js';
import type { Trace } from '../types.js';
import { A_ATT_WINS, A_BOTH_GONE, A_DEF_HOLDS, A_LOST, A_ROUNDS, OUTCOME_W, SURV, attrBase, maxAll, setOutcomes } from './layout.js';
import { fieldPathApplies } from './field-run-path.js';
import { sideTables } from './state-tables.js';
import { fmix32, nextI32 } from '../../engine/rng.js';

/** Hits one run of volleys can score: up to 5 blocks of 4 steps (the side tables' APPLY stride). */
const HS = 21;
/** Bins of each steps histogram (2^5 >= the 21 possible steps of a side), and a one-run table's slots. */
const K = 32;
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
/** The largest 6^n a pair of runs is drawn jointly over: every weight (at most slots x 6^n) stays an integer a double holds. */
const PAIR_MAX = 2 ** 50;
/**
 * The slot bits of every table the loop reads (2^7 slots: a pair's two totals fit, and the
 * loop's shifts and masks are constants); the low 25 bits of a draw decide within the slot.
 */
const SB = 7;
const SLOTS = 1 << SB;
const SLOW = (1 << (32 - SB)) - 1;

/** Test hook: play every trial again with replayClosed (the same dice: the accumulator must not change). */
export const _closedTest = { replayAll: false };
/**
 * Whether replayClosed is deciding every draw the slow way (warmClosed's scratch trials only):
 * on a slot's threshold or not, the draw takes uniformBelow's extra words of the trial's stream.
 */
let forceExact = false;
/** Whether this thread's playClosed has yet to take its replay path (warmClosed). */
let unwarmed = true;

/** Everything the closed field path reads, made once per compiled case (buildClosedField). */
export interface ClosedField {
  /** Each side's steps at the start (its state: steps left, all its blocks in the field). */
  a0: number;
  b0: number;
  /** Each side's steps in the field by state (the state itself: kept so that the flush reads one shape). */
  sum0: Uint8Array;
  sum1: Uint8Array;
  /**
   * The final steps (field, castle-less: what survives) by contested * states + state: a
   * contested field's attacker retreats (what its road slots save), the rest keep their steps.
   */
  end0: Uint8Array;
  end1: Uint8Array;
  /**
   * The draws of a battle in order (steps): the side that fires; its table for the firing
   * side's state R at base + (R << SB); the bits of the second run's total (0: one run; a draw's outcome o is
   * first total << bits2 | second total); whether a round ends after the first run (rec); where
   * its tables' 6^dice start in n. Consecutive draws are of alternate sides.
   */
  sFire: Int32Array;
  sBase: Int32Array;
  sBits2: Int32Array;
  sRec: Int32Array;
  sN: Int32Array;
  /** The same, packed for the loop: base << 4 | rec << 3 | bits2. */
  sPack: Int32Array;
  /**
   * Alias entries (SLOTS a table): threshold (of 2^(32 - SB)) << SB | (alias XOR slot); a draw
   * on a threshold is decided by rem / n (exactAliasTable).
   */
  alias: Int32Array;
  rem: Float64Array;
  /** Each alias table's 6^dice, at its step's sN + the firing side's state. */
  n: Float64Array;
  /** The histograms of the trials of the current call by steps (H_LEN), filled from sc at each flush, and of the rounds fought. */
  cnt: Int32Array;
  /**
   * The histograms of the current call by the pair of states (side 0's x side 1's count + side
   * 1's: J pairs): after round 1 at 0, after round 2 at J, at the end at 2 J. Round 3's states
   * are the final ones, and the rounds fought follow from them (flushClosed).
   */
  sc: Int32Array;
  /** The scratch generator state for a trial played again (replayClosed). */
  rs: Int32Array;
  /** The generator states of the pair of trials in play (playClosed), kept for playing one again. */
  ws: Int32Array;
  /** A trial played again: its states after rounds 1 and 2 and at the end (a1, b1, a2, b2, a, b). */
  out: Int32Array;
  /**
   * Outcome mode (Trace.outcome): the outcome row (OUTCOME_W words, layout.ts OUTCOME_SLOTS) of
   * each trial's code ((a * sum1.length + b) * 4 + rounds fought), for every code there is.
   */
  outcomes: Int32Array;
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
 * An alias table for the hit totals with `counts` (summing to n), exact, over K = 2^5 slots
 * (exactAliasTableBits with 5 bits: a draw's top 5 bits pick the slot, its low 27 decide).
 */
export function exactAliasTable(counts: ArrayLike<number>, alias: Int32Array, rem: Float64Array, at: number): void {
  exactAliasTableBits(counts, 5, alias, rem, at);
}

/**
 * An alias table for the outcomes with `counts` (summing to n), exact, over K = 2^bits slots:
 * each slot holds weight n, outcome i brings K * counts[i] (Vose's pairing in integers), so a
 * slot keeps its own outcome with probability w / n, its alias otherwise. A draw reads slot
 * u >>> (32 - bits) and keeps it when its low L = 32 - bits bits y are below floor(w 2^L / n)
 * (the entry's threshold); on y equal to it, when a uniform v in [0, n) is below (w 2^L) mod n
 * (rem): probability exactly w / n. A full slot is threshold 2^L - 1 with itself as alias. Into
 * alias/rem at `at` (K entries).
 */
export function exactAliasTableBits(counts: ArrayLike<number>, bits: number, alias: Int32Array, rem: Float64Array, at: number): void {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i];
  exactAliasOf(counts, counts.length, total, bits, alias, rem, at);
}

/** exactAliasTableBits over the first `len` counts (summing to `total`). */
function exactAliasOf(counts: ArrayLike<number>, len: number, total: number, bits: number, alias: Int32Array, rem: Float64Array, at: number): void {
  const slots = 2 ** bits;
  const lowBits = 32 - bits;
  const full = 2 ** lowBits - 1;
  // in doubles while every weight (at most K n) is an exact integer and r 8 < 2^53 below; in BigInt beyond (19 or 20 dice)
  if (total * slots > 2 ** 53 || total > PAIR_MAX) {
    exactAliasBig(Array.from({ length: len }, (_, i) => counts[i]), bits, alias, rem, at);
    return;
  }
  const n = total;
  const w = new Float64Array(slots);
  const small = new Int32Array(slots);
  const large = new Int32Array(slots);
  let ns = 0;
  let nl = 0;
  for (let i = 0; i < slots; i++) {
    w[i] = i < len ? slots * counts[i] : 0;
    if (w[i] < n) small[ns++] = i;
    else large[nl++] = i;
    alias[at + i] = (full * slots + i) | 0; // full until paired
    rem[at + i] = 0;
  }
  while (ns > 0 && nl > 0) {
    const sI = small[--ns];
    const lI = large[nl - 1];
    // floor(w 2^L / n) and (w 2^L) mod n, up to 3 bits at a time: r < n <= 2^50, so r 8 < 2^53
    // and every product below is exact; the quotient of doubles is corrected to the integer one
    let q = 0;
    let r = w[sI];
    for (let done = 0; done < lowBits; ) {
      const step = lowBits - done < 3 ? lowBits - done : 3;
      const scale = 1 << step;
      done += step;
      r *= scale;
      let d = Math.floor(r / n);
      r -= d * n;
      if (r < 0) {
        d--;
        r += n;
      } else if (r >= n) {
        d++;
        r -= n;
      }
      q = q * scale + d;
    }
    alias[at + sI] = (q * slots + lI) | 0;
    rem[at + sI] = r;
    w[lI] -= n - w[sI];
    if (w[lI] < n) {
      nl--;
      small[ns++] = lI;
    }
  }
}

/** exactAliasOf in BigInt (weights beyond 2^53). */
function exactAliasBig(counts: number[], bits: number, alias: Int32Array, rem: Float64Array, at: number): void {
  const slots = 2 ** bits;
  const lowBits = BigInt(32 - bits);
  const full = 2 ** (32 - bits) - 1;
  const n = BigInt(counts.reduce((s, x) => s + x, 0));
  const w: bigint[] = [];
  const small: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < slots; i++) {
    w.push(i < counts.length ? BigInt(slots) * BigInt(counts[i]) : 0n);
    if (w[i] < n) small.push(i);
    else large.push(i);
    alias[at + i] = (full * slots + i) | 0; // full until paired
    rem[at + i] = 0;
  }
  while (small.length > 0 && large.length > 0) {
    const sI = small.pop()!;
    const lI = large[large.length - 1];
    const scaled = w[sI] << lowBits;
    alias[at + sI] = (Number(scaled / n) * slots + lI) | 0;
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

/** The bits that number 0 .. most (at least 1). */
function bitsFor(most: number): number {
  let bits = 1;
  while (2 ** bits <= most) bits++;
  return bits;
}

/** The closed field path's tables for a case it applies to (closedFieldApplies); `ords` as buildOrders gives them. */
export function buildClosedField(c: CrusaderRexCompiled, ords: Int32Array[]): ClosedField {
  const pos = new Int32Array(c.nb);
  const count = [0, 0];
  for (let b = 0; b < c.nb; b++) pos[b] = count[c.side[b]]++;
  const t = [0, 1].map((sd) => sideTables(count[sd], hitOrder(c, sd).map((b) => pos[b])));
  const start = [0, 0];
  const initial = new Int32Array(2);
  for (let b = 0; b < c.nb; b++) {
    start[c.side[b]] += c.steps0[b] * 5 ** pos[b];
    initial[c.side[b]] += c.steps0[b];
  }
  // each side's field by steps left: the start, then one hit at a time (APPLY's first column)
  const field = [0, 1].map((sd) => {
    const T = initial[sd];
    const st = new Int32Array(T + 1);
    st[T] = start[sd];
    for (let R = T - 1; R >= 0; R--) st[R] = t[sd].apply[st[R + 1] * HS + 1];
    // h hits at once are h hits one at a time (6.31): what makes steps left the whole state
    for (let R = 0; R <= T; R++) {
      if (t[sd].sum[st[R]] !== R) throw new Error(`closed field path: side ${sd} has ${t[sd].sum[st[R]]} steps after ${T - R} hits of ${T}`);
      for (let h = 0; h < HS; h++) {
        if (t[sd].apply[st[R] * HS + h] !== st[R - h > 0 ? R - h : 0]) throw new Error(`closed field path: side ${sd}'s hits do not compose (${R} steps, ${h} hits)`);
      }
    }
    return st;
  });
  const digit = (sd: number, R: number, b: number) => t[sd].digit[field[sd][R] * t[sd].n + pos[b]];
  const att = c.attacker0;
  // the final steps: the attacker of a contested field retreats (2.8), blocks beyond its road
  // slots (6.61) in listed order are eliminated; an uncontested field keeps its steps
  const end = [0, 1].map((sd) => {
    const states = initial[sd] + 1;
    const out = new Uint8Array(2 * states);
    for (let R = 0; R < states; R++) {
      out[R] = R;
      let total = R;
      if (sd === att && c.slots[att] >= 0) {
        let used = 0;
        for (let b = 0; b < c.nb; b++) {
          if (c.side[b] !== sd) continue;
          const s = digit(sd, R, b);
          if (s === 0) continue;
          if (used < c.slots[att]) used++;
          else total -= s;
        }
      }
      out[states + R] = total;
    }
    return out;
  });
  // the runs of each round (round 1 in the Jihad order when the attacker declares one, 6.2):
  // the side, its blocks, whether the round ends after it
  const plain = ords[(1 - att) * 2];
  const first = c.jihad === 1 ? ords[(1 - att) * 2 + 1] : plain;
  const runs: { sd: number; blocks: number[]; roundEnd: boolean }[] = [];
  for (const order of [first, plain, plain]) {
    let k = 0;
    while (k < order.length) {
      const sd = c.side[order[k]];
      const blocks: number[] = [];
      while (k < order.length && c.side[order[k]] === sd) blocks.push(order[k++]);
      runs.push({ sd, blocks, roundEnd: k === order.length });
    }
  }
  const fp = (b: number) => (c.fp[b] > 6 ? 6 : c.fp[b]);
  /** The dice of a run's blocks (their firepowers, one per step) with its side at R steps. */
  const dice = (sd: number, blocks: number[], R: number): number[] => {
    const out: number[] = [];
    for (const b of blocks) for (let s = digit(sd, R, b); s > 0; s--) out.push(fp(b));
    return out;
  };
  // the draws: a round's last run and the next round's first are one draw when the same side
  // fires both and their pairs' counts fit; the draws alternate sides (playClosed swaps the
  // sides' roles after each), so where two of one side would follow each other a draw of the
  // other side that scores nothing (no blocks: one outcome, 0) goes between them
  type Run = (typeof runs)[number];
  const sFire: number[] = [];
  const sBase: number[] = [];
  const sBits2: number[] = [];
  const sRec: number[] = [];
  const sN: number[] = [];
  const aliasParts: Int32Array[] = [];
  const remParts: Float64Array[] = [];
  const nParts: number[] = [];
  let aliasLen = 0;
  const made = new Map<string, [number, number]>();
  const push = (sd: number, one: Run, two: Run | null): void => {
    if (sFire.length > 0 && sFire[sFire.length - 1] === sd) push(1 - sd, { sd: 1 - sd, blocks: [], roundEnd: false }, null);
    const T = initial[sd];
    const bits2 = two === null ? 0 : bitsFor(dice(sd, two.blocks, T).length);
    const bits = SB;
    const key = `${sd}:${one.blocks.join(',')}:${two === null ? '' : two.blocks.join(',')}`;
    let had = made.get(key);
    if (had === undefined) {
      // one table per state of the firing side: the counts of (first total, second total) over the faces of both runs' dice
      const slots = 2 ** bits;
      const alias = new Int32Array((T + 1) * slots);
      const rem = new Float64Array((T + 1) * slots);
      for (let R = 0; R <= T; R++) {
        const d1 = dice(sd, one.blocks, R);
        const c1 = hitCounts(d1);
        const d2 = two === null ? [] : dice(sd, two.blocks, R);
        const c2 = hitCounts(d2);
        const counts = new Array<number>(slots).fill(0);
        for (let h1 = 0; h1 < c1.length; h1++) for (let h2 = 0; h2 < c2.length; h2++) counts[h1 * 2 ** bits2 + h2] = c1[h1] * c2[h2];
        exactAliasOf(counts, slots, 6 ** (d1.length + d2.length), bits, alias, rem, R * slots);
        for (let slot = 0; slot < slots; slot++) alias[R * slots + slot] ^= slot; // the alias as alias XOR slot: the loop picks with one XOR
        nParts.push(6 ** (d1.length + d2.length));
      }
      had = [aliasLen, nParts.length - (T + 1)];
      made.set(key, had);
      aliasParts.push(alias);
      remParts.push(rem);
      aliasLen += alias.length;
    }
    sFire.push(sd);
    sBase.push(had[0]);
    sN.push(had[1]);
    sBits2.push(bits2);
    // a round ends after the draw's first run: a pair's first, or a single run that ends it (a
    // pair's second run never ends a round: every round has runs of both sides)
    sRec.push(two !== null || one.roundEnd ? 1 : 0);
  };
  for (let i = 0; i < runs.length; i++) {
    const one = runs[i];
    const sd = one.sd;
    const next = i + 1 < runs.length ? runs[i + 1] : null;
    const most1 = dice(sd, one.blocks, initial[sd]).length;
    let two: Run | null = null;
    if (one.roundEnd && next !== null && next.sd === sd) {
      const most2 = dice(sd, next.blocks, initial[sd]).length;
      if (bitsFor(most1) + bitsFor(most2) <= SB && 6 ** (most1 + most2) <= PAIR_MAX && 6 ** (most1 + most2) * SLOTS <= 2 ** 53) two = next;
    }
    push(sd, one, two);
    if (two !== null) i++;
  }
  const cat = <T extends Int32Array | Float64Array>(parts: T[], out: T): T => {
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  const sum0 = Uint8Array.from({ length: initial[0] + 1 }, (_, R) => R);
  const sum1 = Uint8Array.from({ length: initial[1] + 1 }, (_, R) => R);
  // every code's outcome row: what addClosedTrial adds for a trial ending on (a, b) after `rounds` rounds
  const outcomes = new Int32Array(sum0.length * sum1.length * 4 * OUTCOME_W);
  for (let a = 0; a < sum0.length; a++) {
    for (let b = 0; b < sum1.length; b++) {
      const contested = a !== 0 && b !== 0 ? 1 : 0;
      const fin0 = end[0][contested * sum0.length + a];
      const fin1 = end[1][contested * sum1.length + b];
      const attIn = contested === 0 && (att === 0 ? fin0 : fin1) > 0;
      const defIn = contested === 1 || (att === 0 ? fin1 : fin0) > 0;
      for (let rounds = 0; rounds < 4; rounds++) {
        const o = ((a * sum1.length + b) * 4 + rounds) * OUTCOME_W;
        outcomes[o + (attIn ? 0 : defIn ? 1 : 3)] = 1; // wins, holds or both gone (never goes on: the attacker retreats)
        outcomes[o + 6] = rounds;
        outcomes[o + 7] = initial[0] - fin0;
        outcomes[o + 8] = initial[1] - fin1;
      }
    }
  }
  return {
    a0: initial[0],
    b0: initial[1],
    sum0,
    sum1,
    end0: end[0],
    end1: end[1],
    sFire: Int32Array.from(sFire),
    sBase: Int32Array.from(sBase),
    sBits2: Int32Array.from(sBits2),
    sPack: Int32Array.from(sBase, (base, k) => (base << 4) | (sRec[k] << 3) | sBits2[k]),
    sRec: Int32Array.from(sRec),
    sN: Int32Array.from(sN),
    alias: cat(aliasParts, new Int32Array(aliasLen)),
    rem: cat(remParts, new Float64Array(aliasLen)),
    n: Float64Array.from(nParts),
    cnt: new Int32Array(H_LEN),
    sc: new Int32Array(3 * sum0.length * sum1.length),
    rs: new Int32Array(4),
    ws: new Int32Array(8),
    out: new Int32Array(6),
    outcomes,
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
  // outcome mode: played as untraced (the histograms), each trial's code written
  const outc = trace?.outcome;
  const rows = outc === undefined ? trace : undefined;
  if (unwarmed) warmClosed(f);
  if (rows === undefined) acc[0] += trials;
  for (let done = 0; done < trials; done += PASS) {
    const n = trials - done < PASS ? trials - done : PASS;
    playClosed(f, stream, n, acc, rows, outc, done);
    if (rows === undefined) flushClosed(f, acc);
  }
  if (outc !== undefined) setOutcomes(trace!, f.outcomes, OUTCOME_W);
}

/**
 * The first time a thread plays closed battles: WARM_TRIALS trials played on scratch, each
 * replayed and every draw of the replays decided the slow way, so that V8 has seen playClosed
 * call replayClosed (both trials' sites) and replayClosed call uniformBelow before it compiles
 * the loop. Otherwise the first real replay (one draw in 2^25 sits on a threshold: some millions
 * of trials in) meets call sites that have never run, and the compiled loop is thrown away and
 * compiled again (25-70 ms on a 20 M-battle run, and slower code after). Two trials are not
 * enough: V8 keeps no feedback for a function until it has run a while (its feedback vector is
 * made lazily). Nothing of the case's counts changes: the scratch trials' stream, accumulator
 * and codes are their own, and the histograms they fill are emptied (a call starts and ends
 * with them empty, flushClosed).
 */
const WARM_TRIALS = 64;
function warmClosed(f: ClosedField): void {
  unwarmed = false;
  forceExact = true;
  try {
    playClosed(f, Int32Array.of(1, 2, 3, 4), WARM_TRIALS, new Float64Array(0), undefined, undefined, 0, -1);
  } finally {
    forceExact = false;
    f.sc.fill(0);
  }
}

/**
 * The trial loop, two trials at a time (the second a copy of the first's play on its own dice:
 * the two chains of dependent look-ups overlap), in its own function: the histograms are
 * flushed after it returns. With an odd count the last pair's second trial is a stand-in on a
 * fixed state, drawn from nothing and counted nowhere. States are steps left (a, b: the first
 * trial's sides 0 and 1; c, d: the second's).
 */
function playClosed(f: ClosedField, g: Int32Array, trials: number, acc: Float64Array, trace: Trace | undefined, outc: Int32Array | undefined, t0: number, replay = 0): void {
  const sFire = f.sFire;
  const sPack = f.sPack;
  const steps = sFire.length;
  const f0 = sFire[0];
  const fl = sFire[steps - 1];
  const every = _closedTest.replayAll ? -1 : replay;
  const alias = f.alias;
  const rs = f.rs;
  const ws = f.ws;
  const out = f.out;
  const a0 = f.a0;
  const b0 = f.b0;
  const w1 = f.sum1.length;
  const jj = f.sum0.length * w1;
  const jj2 = 2 * jj;
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

    // p, q: the first trial's side that fires next and the other; r, s: the second trial's.
    // The draws alternate sides (buildClosedField), so the roles swap after each.
    let p = f0 === 0 ? a0 : b0;
    let q = f0 === 0 ? b0 : a0;
    let r = p;
    let s = q;
    let a1 = 0;
    let b1 = 0;
    let a2 = 0;
    let b2 = 0;
    let c1 = 0;
    let d1 = 0;
    let c2 = 0;
    let d2 = 0;
    let ri = 0;
    let onU = 0;
    let onV = 0;
    ws[0] = x0;
    ws[1] = x1;
    ws[2] = x2;
    ws[3] = x3;
    ws[4] = y0;
    ws[5] = y1;
    ws[6] = y2;
    ws[7] = y3;
    for (let k = 0; k < steps; k++) {
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
      const sp = sPack[k];
      const base = sp >>> 4;
      const bits2 = sp & 7;
      const su = u >>> (32 - SB);
      const sv = v >>> (32 - SB);
      const eu = alias[base + (p << SB) + su];
      const ev = alias[base + (r << SB) + sv];
      // below the slot's threshold: the slot's own outcome; above: its alias; on it (1 in 2^25
      // draws) the trial is played again by replayClosed, which decides such draws exactly (in
      // arithmetic, not a branch: which one it is, is a coin toss that a branch would mispredict)
      const du = (u & SLOW) - (eu >>> SB);
      const dv = (v & SLOW) - (ev >>> SB);
      const h = su ^ (eu & (SLOTS - 1) & ~(du >> 31));
      const j = sv ^ (ev & (SLOTS - 1) & ~(dv >> 31));
      onU |= (du - 1) & ~du; // negative once some du is 0
      onV |= (dv - 1) & ~dv;
      // the first run's hits, then (a pair) the round's end and the second run's: steps left floored at 0
      q -= h >>> bits2;
      q &= ~(q >> 31);
      s -= j >>> bits2;
      s &= ~(s >> 31);
      if ((sp & 8) !== 0) {
        const fire = sFire[k];
        if (ri === 0) {
          a1 = fire === 0 ? p : q;
          b1 = fire === 0 ? q : p;
          c1 = fire === 0 ? r : s;
          d1 = fire === 0 ? s : r;
        } else if (ri === 1) {
          a2 = fire === 0 ? p : q;
          b2 = fire === 0 ? q : p;
          c2 = fire === 0 ? r : s;
          d2 = fire === 0 ? s : r;
        }
        ri++;
        const mask2 = (1 << bits2) - 1;
        q -= h & mask2;
        q &= ~(q >> 31);
        s -= j & mask2;
        s &= ~(s >> 31);
      }
      const tp = p;
      p = q;
      q = tp;
      const tr = r;
      r = s;
      s = tr;
    }
    // after the last draw p holds the side that did not fire it
    let a = fl === 0 ? q : p;
    let b = fl === 0 ? p : q;
    let c = fl === 0 ? s : r;
    let d = fl === 0 ? r : s;
    if ((onU | every) < 0) {
      replayClosed(f, ws, 0);
      a1 = out[0];
      b1 = out[1];
      a2 = out[2];
      b2 = out[3];
      a = out[4];
      b = out[5];
    }
    if ((onV | every) < 0 && two) {
      replayClosed(f, ws, 4);
      c1 = out[0];
      d1 = out[1];
      c2 = out[2];
      d2 = out[3];
      c = out[4];
      d = out[5];
    }
    if (trace !== undefined) {
      addClosedTrial(f, acc, a1, b1, a2, b2, a, b, fought0 + (a1 !== 0 && b1 !== 0 ? 1 : 0) + (a2 !== 0 && b2 !== 0 ? 1 : 0), a !== 0 && b !== 0 ? 1 : 0);
      for (let p = 0; p < ns; p++) trace.out[(t0 + i) * ns + p] = acc[slots[p]];
      if (two) {
        addClosedTrial(f, acc, c1, d1, c2, d2, c, d, fought0 + (c1 !== 0 && d1 !== 0 ? 1 : 0) + (c2 !== 0 && d2 !== 0 ? 1 : 0), c !== 0 && d !== 0 ? 1 : 0);
        for (let p = 0; p < ns; p++) trace.out[(t0 + i + 1) * ns + p] = acc[slots[p]];
      }
    } else {
      sc[a1 * w1 + b1]++;
      sc[jj + a2 * w1 + b2]++;
      sc[jj2 + a * w1 + b]++;
      if (two) {
        sc[c1 * w1 + d1]++;
        sc[jj + c2 * w1 + d2]++;
        sc[jj2 + c * w1 + d]++;
      }
      if (outc !== undefined) {
        // the trial's code: its end states and the rounds it fought (ClosedField.outcomes)
        outc[t0 + i] = (a * w1 + b) * 4 + fought0 + (a1 !== 0 && b1 !== 0 ? 1 : 0) + (a2 !== 0 && b2 !== 0 ? 1 : 0);
        if (two) outc[t0 + i + 1] = (c * w1 + d) * 4 + fought0 + (c1 !== 0 && d1 !== 0 ? 1 : 0) + (c2 !== 0 && d2 !== 0 ? 1 : 0);
      }
    }
  }
}

/**
 * One trial played again from its generator state (ws at `from`), draw by draw as playClosed
 * plays it, with the draws on a slot's threshold decided exactly: the slot's own outcome with
 * the rest of its exact weight, from more of the trial's stream (a uniform below the table's
 * 6^dice against the slot's remainder). Its states after rounds 1 and 2 and at the end go to
 * f.out (a1, b1, a2, b2, a, b). A trial with no draw on a threshold plays the same here as in
 * playClosed, so playing again only those that had one gives every trial this function's play.
 */
function replayClosed(f: ClosedField, ws: Int32Array, from: number): void {
  const rs = f.rs;
  for (let w = 0; w < 4; w++) rs[w] = ws[from + w];
  const out = f.out;
  let a = f.a0;
  let b = f.b0;
  let ri = 0;
  for (let k = 0; k < f.sFire.length; k++) {
    const u = nextI32(rs);
    const fire = f.sFire[k];
    const R = fire === 0 ? a : b;
    const at = f.sBase[k] + (R << SB);
    const slot = u >>> (32 - SB);
    const e = f.alias[at + slot];
    const y = u & SLOW;
    const other = (e & (SLOTS - 1)) ^ slot;
    let h = y < e >>> SB ? slot : other;
    if (y === e >>> SB || forceExact) h = uniformBelow(rs, f.n[f.sN[k] + R]) < f.rem[at + slot] ? slot : other;
    const bits2 = f.sBits2[k];
    for (let part = 0; part < 2; part++) {
      const hits = part === 0 ? h >>> bits2 : h & ((1 << bits2) - 1);
      if (fire === 0) b = b - hits > 0 ? b - hits : 0;
      else a = a - hits > 0 ? a - hits : 0;
      if (part === 0 && f.sRec[k] === 1) {
        if (ri < 2) {
          out[2 * ri] = a;
          out[2 * ri + 1] = b;
        }
        ri++;
      }
    }
  }
  out[4] = a;
  out[5] = b;
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
  const s1 = f.sum1.length;
  const J = s0 * s1;
  // the pairs' histograms as each side's steps' (round 3's from the final states), and the
  // rounds fought: a trial fought round 2 when both sides were left after round 1, round 3 when
  // after round 2 (an eliminated side stays so: one implies the other), round 1 when both started
  let trials = 0;
  let after1 = 0;
  let after2 = 0;
  for (let A = 0; A < s0; A++) {
    for (let B = 0; B < s1; B++) {
      const x = A * s1 + B;
      const both = A !== 0 && B !== 0;
      const n1 = sc[x];
      const n2 = sc[J + x];
      const n3 = sc[2 * J + x];
      cnt[f.sum0[A]] += n1;
      cnt[K + f.sum1[B]] += n1;
      cnt[2 * K + f.sum0[A]] += n2;
      cnt[3 * K + f.sum1[B]] += n2;
      cnt[4 * K + f.sum0[A]] += n3;
      cnt[5 * K + f.sum1[B]] += n3;
      const contested = both ? 1 : 0;
      cnt[H_FINAL + contested * 2 * K + f.end0[contested * s0 + A]] += n3;
      cnt[H_FINAL + (contested * 2 + 1) * K + f.end1[contested * s1 + B]] += n3;
      trials += n3;
      if (both) {
        after1 += n1;
        after2 += n2;
      }
    }
  }
  if (f.a0 !== 0 && f.b0 !== 0) {
    cnt[H_ROUNDS + 1] += trials - after1;
    cnt[H_ROUNDS + 2] += after1 - after2;
    cnt[H_ROUNDS + 3] += after2;
  } else cnt[H_ROUNDS] += trials;
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
