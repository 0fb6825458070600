/**
 * The Crusader Rex table path, its trial play (its tables are built in state-tables.ts): every
 * battle and siege with at most TABLE_MAX blocks a side and the listed firing order, or a
 * strongest-first order that cannot change the outcome (order.ts fireOrderMatters; larger
 * battles and the other strongest-first ones take the volley path, volley-path.ts).
 * The same rules as the volley path, step for step (battleTurn there and here follow
 * docs/rules/crusader-rex.md 6.5 in the same order), on a different representation:
 *
 *  - Each side's blocks are base-5 digits (a block's steps, 0 when not there), one number per
 *    place: F (the field: plain and sallying blocks), C (the castle), S (storming). A block is in
 *    one place at a time, so moving blocks between places is adding and subtracting digits, and
 *    "the field" of 1.4 is F + S. Blocks in the field, their steps, the strongest, the digits are
 *    look-ups (NZ, SUM, MAXD, DIG); h hits on the strongest blocks in turn (6.31, ties in the
 *    side's hit order) is one look-up, APPLY[x * HS + h]. Sallying blocks are a bit mask by
 *    position (SAL), blocks on the road another (PEND).
 *  - A run of volleys by one side (buildRuns: blocks of that side that fire one after another
 *    in 6.2's order, not hit in between) is one draw of its total hits from their exact
 *    distribution, through an alias table keyed by the side's state at the place it fires from
 *    (F in a field round, C or S in a storm). A charging knight (6.32) is a run of its own whose
 *    draw also gives its sixes (self-hits); a block with a choice to make (withdraw, harry,
 *    retreat) is a run of its own, decided before it fires.
 *  - A round of plain volleys (every run plain, ties by hit order) is one draw of its end state
 *    from a table made the first time its start is met (round-tables.ts): the run-by-run loop
 *    below is for rounds with a charge or a choice, and for the random tie-break. A case whose
 *    every round is such a draw (every bundled castle file) plays its trials as a walk from
 *    draw to draw (playWalk): the same steps and draws as playTrials and battleTurn, each stretch
 *    between two draws played once (slot) and kept.
 *  - Double defense (1.5, 6.54): a half-hit first on the strongest (NEXT gives the block), the
 *    next hit on the same block; with the fixed tie-break two hits are one APPLY hit. The random
 *    tie-break (6.31): hits one at a time, each on one of the TIES tied blocks, uniformly.
 *  - Attrition (6.57): the subset of castle blocks that lose a step is one draw.
 *
 * So a battle is a few dozen look-ups and a handful of draws: the dice differ from the general
 * path's (a run is one draw, not one per block), the distribution is the same. The tests hold
 * the two paths to each other statistically and both to the exact chain.
 */
import { nextI32, nextTrialState, type RngState } from '../../engine/rng.js';
import { writeTrace } from '../trace.js';
import type { Trace } from '../types.js';
import { rollDie } from '../../engine/dice.js';
import type { CrusaderRexCompiled } from './compile.js';
import { A_ATT_WINS, A_BOTH_GONE, A_CONTINUES, A_DEF_HOLDS, A_FALLS, A_LIFTED, A_LOST, A_ROUNDS, SURV, attrBase, maxAll, setOutcomes } from './layout.js';

import { HS, NO_DICE, POW5, TABLE_MAX, aliasTable, type Tables } from './state-tables.js';
import { B_SHIFT, H_SHIFT, roundCacheFor, roundKey, roundTable, type RoundCache } from './round-tables.js';


// The case's tables and the trial's scalars are module `var`s, not `let`s: every read of a
// module-level `let` is checked for its temporal dead zone, and dropping those checks made the
// table path 10-25% faster (in-process CPU-time pairs, storm-or-starve and the reference battle).
var DIG: Uint8Array = new Uint8Array(0);
var APP: Uint16Array = new Uint16Array(0);
var NZ: Uint8Array = new Uint8Array(0);
var SUM: Uint8Array = new Uint8Array(0);
var MAXD: Uint8Array = new Uint8Array(0);
var NEXT: Int8Array = new Int8Array(0);
var TIES: Uint8Array = new Uint8Array(0);
var TIED: Int8Array = new Int8Array(0);
var MASK: Uint8Array = new Uint8Array(0);
var TOP: Uint16Array = new Uint16Array(0);
var dOff: Int32Array = new Int32Array(2);
var aOff: Int32Array = new Int32Array(2);
var zOff: Int32Array = new Int32Array(2);
var nSide: Int32Array = new Int32Array(2);
var bPos: Int32Array = new Int32Array(0);
var bHarrier: Int32Array = new Int32Array(0);
var F0: Int32Array = new Int32Array(2);
var C0: Int32Array = new Int32Array(2);
var pend0: Int32Array = new Int32Array(2);
var pendN0: Int32Array = new Int32Array(2);
var pendS0: Int32Array = new Int32Array(2);
var initialS: Int32Array = new Int32Array(2);
var ARRIVE: Int32Array = new Int32Array(32);
var runFrom: Int32Array = new Int32Array(4);
var runTo: Int32Array = new Int32Array(4);
var runSide: Int32Array = new Int32Array(0);
var runBase: Int32Array = new Int32Array(0);
var runLog: Int32Array = new Int32Array(0);
var runKind: Int32Array = new Int32Array(0);
var runAlt: Int32Array = new Int32Array(0);
var runAltLog: Int32Array = new Int32Array(0);
var runBlock: Int32Array = new Int32Array(0);
var runDecide: Int32Array = new Int32Array(0);
var plainOrder: Int32Array = new Int32Array(4);
var THR: Uint32Array = new Uint32Array(0);
var ALI: Uint8Array = new Uint8Array(0);

/** The case's round tables (round-tables.ts: a round of plain volleys as one draw) and its Tables. */
var RC: RoundCache | null = null;
var TAB: Tables | null = null;

/** Side 1's offsets in the state tables (side 0's are 0): zOff[1], dOff[1], aOff[1]. */
var Z1 = 0;
var D1 = 0;
var A1 = 0;

/** The case the table path runs next. */
export function useTables(t: Tables): void {
  ({ DIG, APP, NZ, SUM, MAXD, NEXT, TIES, TIED, MASK, TOP, dOff, aOff, zOff, nSide, bPos, bHarrier } = t);
  ({ F0, C0, pend0, pendN0, pendS0, initialS, ARRIVE, runFrom, runTo, runSide, runBase, runLog, runKind, runAlt, runAltLog, runBlock, runDecide, plainOrder, THR, ALI } = t);
  Z1 = zOff[1];
  D1 = dOff[1];
  A1 = aOff[1];
  TAB = t;
  RC = roundCacheFor(t);
  plainCase = plainOrder.every((p) => p === 1);
}

/** Every order's runs are plain volleys: with ties by hit order every round is one table draw (playWalk). */
var plainCase = false;

/** Tests only: play a plain case round by round (playTrials) too, to hold playWalk to it draw for draw. */
var plainOff = false;
export function _setPlainOff(off: boolean): void {
  plainOff = off;
}
/** Tests only: whether the tables in use make a case plain (playWalk's cases). */
export function _plainCase(): boolean {
  return plainCase;
}

/**
 * The end of a round of plain volleys from start (a, b, half) of order o (storm 1: a storm, a
 * the castle, b the stormers; storm 0: a field round, a and b the two sides' fields), drawn in
 * one: the packed end state (round-tables.ts).
 */
function roundEnd(rng: RngState, storm: number, o: number, a: number, b: number, hf: number): number {
  const r = RC!;
  const v = roundTable(r, TAB!, storm, o, a, b, hf);
  const log = v & 31;
  const e = v >>> 5;
  const P = r.POOL;
  if (log === 0) return P[e + 1];
  // inversion: the first outcome whose cumulative count passes u (counts kept ^ 2^31, so a
  // signed comparison orders them as unsigned), from the guide's entry for u's top bits
  const u = nextI32(rng);
  const us = u ^ 0x80000000;
  let j = e + (1 << log) + 2 * P[e + (u >>> (32 - log))];
  while (P[j] < us) j += 2;
  return P[j + 1];
}

/** A charge's outcome o = hits * 5 + sixes. */
const CHARGE_HITS = Int32Array.from({ length: 32 }, (_, o) => (o / 5) | 0);
const CHARGE_SIXES = Int32Array.from({ length: 32 }, (_, o) => o % 5);

// === one trial's state ========================================================================

const F = new Int32Array(2); // the field (plain and sallying blocks)
const C = new Int32Array(2); // the castle
const S = new Int32Array(2); // storming
const SAL = new Int32Array(2); // sallying positions
const PEND = new Int32Array(2); // positions on the road
const pendN = new Int32Array(2);
const pendS = new Int32Array(2);
const leftS = new Int32Array(2); // steps that left by road (6.6)
const used = new Int32Array(2); // road slots used in this game turn's battle
var att = 0; // the field attacker (roles change: 6.41, 6.56, 4.4)
var own = -1; // the castle's owner
var half = -1; // position of the castle block carrying a half-hit (1.5)
var fell = false;
var ever = false; // the castle was occupied at the start of some round
var rounds = 0;
var arrived = 1; // the last round whose reserves have arrived
var random = false; // the random tie-break (6.31)

const nz = (sd: number, x: number) => NZ[sd * Z1 + x];
const sum = (sd: number, x: number) => SUM[sd * Z1 + x];
const digit = (sd: number, x: number, p: number) => DIG[sd * D1 + x * nSide[sd] + p];
/**
 * Whether a side has blocks in the field (1.4: plain, sallying and storming), in the castle, in
 * the town. A place's state is 0 exactly when nobody is there, so these need no look-up.
 */
const inField = (sd: number) => (F[sd] | S[sd]) !== 0;
const fieldSteps = (sd: number) => sum(sd, F[sd]) + sum(sd, S[sd]);
const occupied = () => own >= 0 && C[own] !== 0;
const contested = () => (F[0] | S[0]) !== 0 && (F[1] | S[1]) !== 0;
const inTown = (sd: number) => (F[sd] | C[sd] | S[sd]) !== 0;
/** Road slots per side for this case (-1 unlimited), and whether a block of side sd may still leave by road (6.61). */
const SLOTS = new Int32Array(2);
const canRetreat = (sd: number) => SLOTS[sd] < 0 || used[sd] < SLOTS[sd];

/** One alias draw from the table of 2^logK slots at `at`: the outcome index. */
function draw(rng: RngState, at: number, logK: number): number {
  const u = nextI32(rng);
  const i = u >>> (32 - logK);
  return (u & (0x7fffffff >>> (logK - 1))) < THR[at + i] ? i : ALI[at + i];
}

/** rollDie's rejection thresholds for a uniform choice among 2-5 tied blocks. */
const TIE_REJECT = Int32Array.from({ length: TABLE_MAX + 1 }, (_, t) => (t > 0 ? 4294967296 % t : 0));

/** With the random tie-break: the position of a uniformly chosen block among the strongest of state x. */
function tiedAt(rng: RngState, sd: number, x: number): number {
  const z = sd * Z1 + x;
  const t = TIES[z];
  if (t === 1) return NEXT[z];
  return TIED[z * TABLE_MAX + rollDie(rng, t, TIE_REJECT[t]) - 1];
}

/** h full hits on state x of side sd, one at a time on the strongest (6.31). */
function hitState(rng: RngState, sd: number, x: number, h: number): number {
  if (!random) return APP[sd * A1 + x * HS + h];
  for (let k = 0; k < h && x !== 0; k++) x -= POW5[tiedAt(rng, sd, x)];
  return x;
}

/**
 * h hits on the castle (1.5, 6.54): a half-hit on the strongest block, the next hit on the same
 * block. With the fixed tie-break two hits are one full hit on the strongest (NEXT, as APPLY
 * takes it), so after completing a carried half-hit the rest is one look-up: h >> 1 full hits,
 * and an odd last hit a half-hit on the strongest of what is left.
 */
function hitCastle(rng: RngState, h: number): void {
  let x = C[own];
  if (!random) {
    if (h === 0) return;
    if (half >= 0) {
      x -= POW5[half];
      half = -1;
      h--;
    }
    const row = own * Z1;
    x = APP[own * A1 + x * HS + (h >> 1)];
    if ((h & 1) !== 0 && x !== 0) half = NEXT[row + x];
    C[own] = x;
    return;
  }
  for (let k = 0; k < h; k++) {
    if (half >= 0) {
      x -= POW5[half];
      half = -1;
    } else if (x === 0) break;
    else half = random ? tiedAt(rng, own, x) : NEXT[own * Z1 + x];
  }
  C[own] = x;
}

/** Block b (side sd, position p, d steps, in the field) leaves by road (6.6); the caller checked the slot. */
function leave(sd: number, p: number, d: number): void {
  F[sd] -= d * POW5[p];
  SAL[sd] &= ~(1 << p);
  leftS[sd] += d;
  used[sd]++;
}

/**
 * Blocks on the road due by round r join the field (6.41, 6.42). Who arrives in R2 and R3 is
 * fixed by the case (ARRIVE: per round and side, the field state added, the positions, the
 * blocks and steps), so this adds the rounds not yet done.
 */
function arrive(r: number): void {
  for (let rr = arrived + 1; rr <= r && rr <= 3; rr++) {
    for (let sd = 0; sd < 2; sd++) {
      const k = (rr * 2 + sd) * 4;
      if (ARRIVE[k + 2] === 0) continue;
      F[sd] += ARRIVE[k];
      PEND[sd] &= ~ARRIVE[k + 1];
      pendN[sd] -= ARRIVE[k + 2];
      pendS[sd] -= ARRIVE[k + 3];
    }
  }
  if (r > arrived) arrived = r;
}

/**
 * The attrition curve (layout.ts: per game turn and slot, each side's steps in the field, the
 * castle and on the road, Σ and Σ²). Every trial records every slot once, in order, and a value
 * holds until it changes: so the curve is kept as changes, DELTA[slot * 12 + j] += v - last and
 * v² - last², and a slot's sum over the call's trials is the running sum of the changes up to
 * it (flushRecords, once per call). Only the places that moved cost anything; the slots after
 * the battle has ended cost nothing. Integers all, so the sums are exact: the same accumulator.
 */
var DELTA = new Float64Array(0);
/** The steps of the last record, per side and place (field, castle, road); 0 at a trial's start. */
var vf0 = 0;
var vc0 = 0;
var vr0 = 0;
var vf1 = 0;
var vc1 = 0;
var vr1 = 0;

/** Steps per side in the field, the castle and on the road now, at slot offset `at` (the game turn's base + slot * 12). */
function record(at: number): void {
  recordPlaces(at, F[0] + S[0], C[0], pendS[0], F[1] + S[1], C[1], pendS[1]);
}

/**
 * The record of each side's field (x: F + S), castle (q) and steps on the road (r), as states
 * (the road as steps), at slot offset `at`.
 */
function recordPlaces(at: number, x0: number, q0: number, r0: number, x1: number, q1: number, r1: number): void {
  // module vars read once into locals: each read of one is a context load with its checks
  const d = DELTA;
  // a side's three places packed (field F + S, castle, road steps): unchanged since the last
  // record, its values are too, and nothing is looked up
  const raw0 = x0 | (q0 << 12) | (r0 << 24);
  if (raw0 !== lastRaw0) {
    lastRaw0 = raw0;
    const sums = SUM;
    // the field is F + S: a block is in one place at a time, so their digits add (one look-up)
    const f0 = sums[x0];
    const c0 = sums[q0];
    let v = vf0;
    if (f0 !== v) {
      d[at] += f0 - v;
      d[at + 1] += f0 * f0 - v * v;
      vf0 = f0;
    }
    v = vc0;
    if (c0 !== v) {
      d[at + 2] += c0 - v;
      d[at + 3] += c0 * c0 - v * v;
      vc0 = c0;
    }
    v = vr0;
    if (r0 !== v) {
      d[at + 4] += r0 - v;
      d[at + 5] += r0 * r0 - v * v;
      vr0 = r0;
    }
  }
  // side 1: the same, on its own last values (written out twice rather than through a helper,
  // so that each side's values stay plain variables in this per-trial path)
  const raw1 = x1 | (q1 << 12) | (r1 << 24);
  if (raw1 !== lastRaw1) {
    lastRaw1 = raw1;
    const sums = SUM;
    const z1 = Z1;
    const f1 = sums[z1 + x1];
    const c1 = sums[z1 + q1];
    let v = vf1;
    if (f1 !== v) {
      d[at + 6] += f1 - v;
      d[at + 7] += f1 * f1 - v * v;
      vf1 = f1;
    }
    v = vc1;
    if (c1 !== v) {
      d[at + 8] += c1 - v;
      d[at + 9] += c1 * c1 - v * v;
      vc1 = c1;
    }
    v = vr1;
    if (r1 !== v) {
      d[at + 10] += r1 - v;
      d[at + 11] += r1 * r1 - v * v;
      vr1 = r1;
    }
  }
}
/** Each side's places at the last record, packed as in record (-1 at a trial's start: the first record looks). */
var lastRaw0 = -1;
var lastRaw1 = -1;

/** The call's curve into the accumulator at `base` (n values): running sums of the changes, DELTA cleared. */
function flushRecords(acc: Float64Array, base: number, n: number): void {
  for (let j = 0; j < 12; j++) {
    let run = 0;
    for (let k = j; k < n; k += 12) {
      run += DELTA[k];
      DELTA[k] = 0;
      if (run !== 0) acc[base + k] += run;
    }
  }
}

// === the field round (2.3, 2.7) ===============================================================

/** A field round is over (2.7): a defending main force gone with reserves coming hands over the field (6.41). */
function fieldEnd(c: CrusaderRexCompiled, r: number): void {
  const def = 1 - att;
  if (!inField(def) && inField(att) && pendN[def] > 0 && (c.controlChangeAnyRound === 1 || r === 1)) {
    att = def;
    if (own >= 0 && C[own] === 0) own = 1 - att; // the new defender holds the empty castle
  }
}

function fieldRound(c: CrusaderRexCompiled, rng: RngState, r: number, jihad: boolean): void {
  const o = (1 - att) * 2 + (jihad ? 1 : 0);
  const end = runTo[o];
  if (plainOrder[o] === 1 && !random) {
    // plain volleys only, ties by hit order: the round's end is one draw (round-tables.ts)
    const e = roundEnd(rng, 0, o, F[0], F[1], -1);
    const f0 = e & 0xfff;
    const f1 = (e >>> B_SHIFT) & 0xfff;
    F[0] = f0;
    F[1] = f1;
    // (a side's field emptied stops the round, as below)
    if (f0 === 0 || f1 === 0 || !contested()) fieldEnd(c, r);
    return;
  }
  if (plainOrder[o] === 1) {
    // plain volleys only: the two field states in locals, no block to look at
    let f0 = F[0];
    let f1 = F[1];
    let k = runFrom[o];
    for (; k < end && f0 !== 0 && f1 !== 0; k++) {
      const log = runLog[k];
      if (runSide[k] === 0) {
        const at = runBase[k] + (f0 << log);
        if (THR[at] !== NO_DICE) f1 = hitState(rng, 1, f1, draw(rng, at, log));
      } else {
        const at = runBase[k] + (f1 << log);
        if (THR[at] !== NO_DICE) f0 = hitState(rng, 0, f0, draw(rng, at, log));
      }
    }
    F[0] = f0;
    F[1] = f1;
    if (k < end || !contested()) fieldEnd(c, r); // (k < end: stopped early, a side's field empty)
    return;
  }
  for (let k = runFrom[o]; k < end; k++) {
    // contested (no stormers in a field round: a storm is declared only into an uncontested
    // field, and a relief force arriving cancels it)
    if (F[0] === 0 || F[1] === 0) return fieldEnd(c, r);
    const sd = runSide[k];
    const en = 1 - sd;
    let at = runBase[k];
    let log = runLog[k];
    let kind = runKind[k];
    const b = runBlock[k];
    let p = 0;
    if (b >= 0) {
      p = bPos[b];
      const d = digit(sd, F[sd], p);
      if (d === 0) continue; // not in the field
      if (runDecide[k] === 1) {
        const sallying = (SAL[sd] >> p) & 1;
        const weaker = fieldSteps(sd) < fieldSteps(en);
        // 6.62: the castle owner's field block (when defending) or a sallying block withdraws inside
        if (c.withdraw === 1 && sd === own && (sallying === 1 || sd !== att) && weaker) {
          if (sallying === 1 || nz(sd, C[sd]) + popcount(SAL[sd] & MASK[sd * Z1 + F[sd]]) < c.rating) {
            F[sd] -= d * POW5[p];
            C[sd] += d * POW5[p];
            SAL[sd] &= ~(1 << p);
            continue;
          }
        }
        if (c.harry === 1 && bHarrier[b] === 1 && sallying === 0 && canRetreat(sd)) {
          // 6.33: fire (plainly), then leave by road
          const h = draw(rng, runAlt[k] + (F[sd] << runAltLog[k]), runAltLog[k]);
          F[en] = hitState(rng, en, F[en], h);
          leave(sd, p, d);
          continue;
        }
        if (c.retreat === 1 && sallying === 0 && canRetreat(sd) && weaker) {
          leave(sd, p, d); // 6.6: retreat instead of firing
          continue;
        }
      }
      if (kind === 2 && MAXD[en * Z1 + F[en]] >= d) {
        at = runAlt[k]; // the enemy's strongest is not weaker: no charge
        log = runAltLog[k];
        kind = 0;
      }
    }
    at += F[sd] << log;
    if (THR[at] === NO_DICE) continue; // nobody of the run in the field
    let h = draw(rng, at, log);
    if (kind !== 0) {
      F[sd] -= CHARGE_SIXES[h] * POW5[p]; // 6.32: each six a step off the charger
      h = CHARGE_HITS[h];
    }
    F[en] = hitState(rng, en, F[en], h);
  }
  if (!contested()) fieldEnd(c, r);
}

function popcount(m: number): number {
  let n = 0;
  for (; m !== 0; m &= m - 1) n++;
  return n;
}

// === storms (4.4) =============================================================================

/** The storm is over: the castle emptied (it falls, or with relief coming changes hands) or no stormer left. */
function stormEnd(): boolean {
  const bes = 1 - own;
  if (C[own] === 0) {
    if (pendN[own] > 0) {
      att = own; // the besieged's reserves will attack; the besieger holds the empty castle
      own = bes;
    } else fell = true;
    F[bes] += S[bes];
    S[bes] = 0;
    half = -1;
    return true;
  }
  if (S[bes] === 0) {
    half = -1; // storming repulsed: the half-hit is lost
    return true;
  }
  return false;
}

function stormRound(c: CrusaderRexCompiled, rng: RngState, jihad: boolean): void {
  const bes = 1 - own;
  att = bes; // 4.4: the besieger attacks in a storm
  const o = own * 2 + (jihad ? 1 : 0);
  const end = runTo[o];
  if (plainOrder[o] === 1 && !random) {
    // plain volleys only, ties by hit order: the round's end is one draw (round-tables.ts)
    const e = roundEnd(rng, 1, o, C[own], S[bes], half);
    C[own] = e & 0xfff;
    S[bes] = (e >>> B_SHIFT) & 0xfff;
    half = (e >>> H_SHIFT) - 1;
    stormEnd();
    return;
  }
  if (plainOrder[o] === 1) {
    // plain volleys only (as fieldRound): the castle and the stormers in locals, no block to look at
    const ow = own;
    let cx = C[ow];
    let sx = S[bes];
    for (let k = runFrom[o]; k < end && cx !== 0 && sx !== 0; k++) {
      const log = runAltLog[k];
      if (runSide[k] === ow) {
        const at = runAlt[k] + (cx << log);
        if (THR[at] !== NO_DICE) sx = hitState(rng, bes, sx, draw(rng, at, log));
      } else {
        const at = runAlt[k] + (sx << log);
        if (THR[at] === NO_DICE) continue;
        C[ow] = cx;
        hitCastle(rng, draw(rng, at, log));
        cx = C[ow];
      }
    }
    C[ow] = cx;
    S[bes] = sx;
    stormEnd(); // (once, as the loop below: it ends the storm when either place is empty)
    return;
  }
  for (let k = runFrom[o]; k < end; k++) {
    if (stormEnd()) return;
    const sd = runSide[k];
    const x = sd === own ? C[sd] : S[sd];
    const b = runBlock[k];
    if (b >= 0) {
      const p = bPos[b];
      const d = digit(sd, x, p);
      if (d === 0) continue; // not in this storm
      if (sd === bes && c.withdraw === 1 && sum(bes, S[bes]) < 2 * sum(own, C[own])) {
        S[bes] -= d * POW5[p]; // 6.62: a stormer withdraws to the field
        F[bes] += d * POW5[p];
        continue;
      }
    }
    const log = runAltLog[k];
    const at = runAlt[k] + (x << log); // no charge in a storm (6.32)
    if (THR[at] === NO_DICE) continue;
    const h = draw(rng, at, log);
    if (sd === own) S[bes] = hitState(rng, bes, S[bes], h);
    else hitCastle(rng, h);
  }
  stormEnd();
}

// === declarations (4.3, 4.5) ==================================================================

/** 6.53, 6.54: stormers keep storming; the strongest field blocks join up to the castle limit, by the policy. */
function declareStorm(c: CrusaderRexCompiled): boolean {
  // module vars and the case's scalars read once (each read of a module var is a context load with its checks)
  const o = own;
  const bes = 1 - o;
  const sums = SUM;
  const z1 = Z1;
  const stormers = S[bes];
  const policy = c.storm;
  const enough = c.stormRatio * 2 * sums[o * z1 + C[o]];
  if (stormers === 0) {
    if (policy === 0) return false;
    // when stronger: even the whole field would not be strong enough (the stormers are a part of it)
    if (policy === 2 && sums[bes * z1 + F[bes]] < enough) return false;
  }
  const storming = NZ[bes * z1 + stormers];
  const rating = c.rating;
  const row = bes * z1;
  let f = F[bes];
  let add = 0;
  let addSteps = 0;
  for (let k = storming; k < rating; k++) {
    // the strongest field block, the first in position order among equals (TIED's first)
    const most = MAXD[row + f];
    if (most === 0) break;
    const best = TIED[(row + f) * TABLE_MAX];
    f -= most * POW5[best];
    add += most * POW5[best];
    addSteps += most;
  }
  // policy.storm_top_up: a storm under way takes them untested (always), or by the test (retest)
  if ((storming > 0 && c.stormTopUpRetest === 0) || policy === 1 || sums[bes * z1 + stormers] + addSteps >= enough) {
    F[bes] -= add;
    S[bes] = stormers + add;
    return stormers + add !== 0;
  }
  return stormers !== 0;
}

/** 6.55: the castle's blocks all sally, by the policy. */
function declareSally(c: CrusaderRexCompiled): boolean {
  const policy = c.sally;
  const o = own;
  if (policy === 0 || o < 0) return false;
  const sums = SUM;
  const z1 = Z1;
  const x = C[o];
  const inside = sums[o * z1 + x];
  if (inside === 0) return false;
  if (policy === 2) {
    const e = 1 - o;
    if (inside + sums[o * z1 + F[o]] + sums[o * z1 + S[o]] < c.sallyRatio * (sums[e * z1 + F[e]] + sums[e * z1 + S[e]])) return false;
  }
  SAL[o] |= MASK[o * z1 + x];
  F[o] += x;
  C[o] = 0;
  return true;
}

// === one game turn (6.5) =======================================================================

/** Game turn `turn`; its attrition curve's records start at DELTA[base]. */
function battleTurn(c: CrusaderRexCompiled, rng: RngState, turn: number, base: number): void {
  const existing = turn > 1 || c.existing === 1;
  used[0] = 0;
  used[1] = 0;
  let slot = 0;
  let toAttrition = false;
  for (let r = 1; r <= 3; r++) {
    slot = r - 1;
    if (turn === 1 && r > 1 && pendN[0] + pendN[1] > 0) {
      const before = contested();
      arrive(r);
      if (!before && contested() && occupied()) {
        // a relief force arrives (3.2, 6.56): the storm is cancelled and the besieged attack
        const bes = 1 - own;
        F[bes] += S[bes];
        S[bes] = 0;
        half = -1;
        att = own;
      }
    }
    const occ = occupied();
    if (occ) ever = true;
    const bes = occ ? 1 - own : -1;
    const fighting = contested();
    if (r === 1 && occ && !fighting && !inField(bes) && pendN[bes] > 0) {
      record(base); // R1 skipped: the besieger's main force is not there yet
      continue;
    }
    const jihad = c.jihad === 1 && turn === 1 && r === 1;
    if (fighting) {
      rounds++;
      if (occ && (r > 1 || existing)) declareSally(c); // 6.55
      fieldRound(c, rng, r, jihad && att === c.attacker0);
    } else if (occ && inField(bes)) {
      // a siege round (6.53): storm, else sally, else both pass
      if (declareStorm(c)) {
        rounds++;
        stormRound(c, rng, jihad && bes === c.attacker0);
      } else if (declareSally(c)) {
        rounds++;
        att = own; // a sally into an uncontested field attacks
        fieldRound(c, rng, r, false);
      } else if (!(pendN[own] > 0 || (c.declinedSallyAttrition === 0 && pendN[bes] > 0))) toAttrition = true;
    } else if (pendN[0] + pendN[1] === 0) {
      record(base + slot * 12); // nobody to fight and nobody coming
      break;
    }
    record(base + slot * 12);
    if (fell || toAttrition) break;
    if (!inTown(0) && pendN[0] === 0) break;
    if (!inTown(1) && pendN[1] === 0) break;
  }
  // rounds not fought: the reserves still arrive on time, for the record (else nothing moved)
  if (turn === 1)
    for (let s = slot + 1; s < 3; s++)
      if (pendN[0] + pendN[1] > 0) {
        arrive(s + 1);
        record(base + s * 12);
      }
  // After R3 (2.8): sallies go back in, stormers come out, the half-hit is lost, late reserves join.
  for (let sd = 0; sd < 2; sd++) {
    if (SAL[sd] !== 0) {
      // the sallying blocks still in the field, digit by digit (one's digit leaves the others' as they are)
      const x = F[sd];
      const row = sd * D1 + x * nSide[sd];
      let v = 0;
      for (let back = SAL[sd] & MASK[sd * Z1 + x]; back !== 0; back &= back - 1) {
        const p = 31 - Math.clz32(back & -back);
        v += DIG[row + p] * POW5[p];
      }
      F[sd] = x - v;
      C[sd] += v;
      SAL[sd] = 0;
    }
    if (S[sd] !== 0) {
      F[sd] += S[sd];
      S[sd] = 0;
    }
  }
  if (pendN[0] + pendN[1] > 0) arrive(4);
  half = -1;
  if (!fell && contested()) retreatAll(att); // the field attacker retreats every field block (a relief force too)
  if (!fell && occupied()) {
    const bes = 1 - own;
    if (c.besiegerRetreats === 1 && inField(bes)) retreatAll(bes);
    if (inField(bes)) attrition(rng, bes); // 6.57: once per game turn
  }
  record(base + 3 * 12);
}

/**
 * 6.57 as one draw: each castle block loses a step on attritionOn or less, independently, so
 * which blocks lose one is a subset of the castle's blocks (its mask of positions) with chance
 * q^k (1 - q)^(n - k): one alias draw per castle mask (32 slots a mask, ATT_THR / ATT_ALI for
 * attritionOn = attOn), the steps off as SUBSET_POW5. A function of its own, once a game turn:
 * inlined into battleTurn, it used up inlining budget the round loop's calls need.
 */
function attrition(rng: RngState, bes: number): void {
  const o = own;
  let x = C[o];
  const m = MASK[o * Z1 + x];
  if (m !== 0) {
    const u = nextI32(rng);
    const i = u >>> 27;
    const at = (m << 5) + i;
    x -= SUBSET_POW5[(u & 0x7ffffff) < ATT_THR[at] ? i : ATT_ALI[at]];
  }
  C[o] = x;
  if (x === 0 && inTown(bes)) fell = true;
}

/** Σ POW5[p] over the positions p of a subset (the steps attrition takes off). */
const SUBSET_POW5 = Int32Array.from({ length: 32 }, (_, s) => {
  let v = 0;
  for (let p = 0; p < 5; p++) if ((s >> p) & 1) v += POW5[p];
  return v;
});
var ATT_THR: Uint32Array = new Uint32Array(32 * 32);
var ATT_ALI: Uint8Array = new Uint8Array(32 * 32);
var attOn = -1;
const ATT_MADE = new Map<number, [Uint32Array, Uint8Array]>();

/** The attrition tables for a loss on `on` or less (made once per value, at most six). */
function useAttrition(on: number): void {
  if (on === attOn) return;
  let t = ATT_MADE.get(on);
  if (t === undefined) {
    t = [new Uint32Array(32 * 32), new Uint8Array(32 * 32)];
    const q = on / 6;
    for (let m = 1; m < 32; m++) {
      const dist: number[] = [];
      for (let sub = 0; sub < 32; sub++) {
        if ((sub & ~m) !== 0) {
          dist.push(0);
          continue;
        }
        let pr = 1;
        for (let p = 0; p < 5; p++) if ((m >> p) & 1) pr *= (sub >> p) & 1 ? q : 1 - q;
        dist.push(pr);
      }
      aliasTable(dist, t[0], t[1], m << 5, 5);
    }
    ATT_MADE.set(on, t);
  }
  [ATT_THR, ATT_ALI] = t;
  attOn = on;
}

/** Every field block of side sd leaves by road while the slots last; the rest are eliminated (2.8, 6.61). */
function retreatAll(sd: number): void {
  if (SLOTS[sd] < 0) {
    // unlimited roads: every block leaves, keeping its steps
    leftS[sd] += sum(sd, F[sd]);
    F[sd] = 0;
    return;
  }
  for (let p = 0; p < nSide[sd]; p++) {
    const d = digit(sd, F[sd], p);
    if (d === 0) continue;
    if (canRetreat(sd)) {
      leftS[sd] += d;
      used[sd]++;
    }
  }
  F[sd] = 0;
}

// === the plain trial's retreats and sallies (slot, below) =====================================

/**
 * Side sd's steps that leave by road when its field x retreats with `slots` road slots (-1
 * unlimited; retreatAll with no slot used yet, as in a game turn of plain rounds, where no block
 * leaves on its own).
 */
function retreatSteps(sd: number, x: number, slots: number): number {
  if (slots < 0) return SUM[sd * Z1 + x];
  let steps = 0;
  const row = sd * D1 + x * nSide[sd];
  for (let p = 0, k = 0; p < nSide[sd] && k < slots; p++) {
    const d = DIG[row + p];
    if (d !== 0) {
      steps += d;
      k++;
    }
  }
  return steps;
}

/** The sallying blocks (mask sal) of side sd still in its field x, as a state: the digits at those positions (one's digit leaves the others' as they are). */
function sallyBack(sd: number, x: number, sal: number): number {
  const row = sd * D1 + x * nSide[sd];
  let v = 0;
  for (let back = sal & MASK[sd * Z1 + x]; back !== 0; back &= back - 1) {
    const p = 31 - Math.clz32(back & -back);
    v += DIG[row + p] * POW5[p];
  }
  return v;
}

// === the plain walk: a trial as a walk from draw to draw ========================================

/**
 * A plain case's trial (every round one table draw) does the same steps whatever it meets, and
 * between two draws everything it does is a function of its state. So the trial is a walk over
 * the states it meets just before a draw (nodes), one draw a node choosing the edge to the next:
 * an edge holds what the trial does between the two draws (its records' changes and, where the
 * trial ends, its outcome), made the first time a walk takes it (buildEdge, which plays those
 * steps on the trial's state in ST: slot). A round's node draws from its start's round table
 * (round-tables.ts; one copy a start, shared by the nodes that meet it), by inversion as
 * makeTable lays it out, with an edge per outcome; attrition's (6.57) by its alias table, with
 * an edge per subset. A round with one outcome is no draw, and is played inside the edge. So a
 * trial is its stream, then per draw one generator step, a guide look-up and a step or two of
 * search, and the next edge: the same draws in the same order as playing the steps (playTrials
 * holds it to them), so the same dice.
 *
 * The walk counts the edges it takes; the counts go into the accumulator once a call as counts
 * times the records' changes (into DELTA, as recordPlaces would) and times the outcomes (summed
 * per outcome first), integers all, so the sums are exact and equal to adding trial by trial. A
 * traced call (the paired mode's short blocks, which meet most edges once) adds each edge's
 * changes as it takes it and each trial's outcome as it ends, with nothing to flush. Nodes and edges are kept per case (WALKS, by its
 * Tables), nodes found by their whole state (including the last record's values) in a hash; a
 * node's content depends only on its state, so the walk never depends on what a worker ran
 * before. Past EDGE_MAX edges the counts so far are flushed and the walk starts again empty, at
 * the next trial. The walks a thread keeps are bounded together too (WALK_BYTES: a sweep of many
 * castle cases would otherwise keep one walk of up to ~12 MB per case): at a call's start, while
 * the others use more than that, the least recently used is dropped (its counts were flushed when
 * its call ended, so nothing is lost; it is made again if its case comes back).
 */

/** The trial's state (ST) at a slot's start or at a draw: each index. */
const X_F0 = 0;
const X_F1 = 1;
const X_C0 = 2;
const X_C1 = 3;
const X_S0 = 4;
const X_S1 = 5;
const X_SAL0 = 6;
const X_SAL1 = 7;
const X_N0 = 8;
const X_N1 = 9;
const X_P0 = 10;
const X_P1 = 11;
const X_L0 = 12;
const X_L1 = 13;
const X_ARR = 14;
const X_ATT = 15;
const X_OWN = 16;
const X_HALF = 17;
const X_FELL = 18;
const X_EVER = 19;
const X_ROUNDS = 20;
const X_TURN = 21;
const X_K = 22;
const X_DONE = 23;
const X_TOATT = 24;
const X_IN0 = 25;
const X_IN1 = 26;
/** The draw the state waits for: 0 none, 1 a storm, 2 a field round, 3 attrition. */
const X_DRAWN = 27;
/** The last record's values (side 0's field, castle, road steps, then side 1's): a record adds the changes (DELTA, flushRecords). */
const X_V = 28;
const NX = 34;
const ST = new Int32Array(NX);
/** The draw slot() stopped at: a round's table entry (round-tables.ts roundTable) or the castle's mask (attrition). */
var SPEC = 0;
/** The round's start when SPEC is a round's (round-tables.ts roundKey). */
var SPECKEY = 0;
/** The records' changes of the edge being made, as slot() adds them: (DELTA index, change of the value, of its square); buildEdge sizes it. */
var DLB: Int32Array = new Int32Array(3 * 64);
var dlN = 0;

/** An edge not made yet (E); a trial's last edge holds -2 - its outcome. */
const UNMADE = -1;
/** Words of an outcome in OUTV: wins, holds, goes on, both gone, falls, lifted, rounds, steps lost by side 0 and 1, steps left by side 0 and 1. */
const OW = 11;
var EDGE_MAX = 1 << 18;

/** Tests only: the edges a walk keeps before it is emptied (the previous bound back). */
export function _setEdgeMax(n: number): number {
  const was = EDGE_MAX;
  EDGE_MAX = n;
  return was;
}

interface Walk {
  /** Nodes, 4 words each: a round's [log2 of its guide, first edge (one per outcome), its table in TP, state at]; attrition's [-1, first edge (32: one per subset), the castle's mask, state at]. */
  NP: Int32Array;
  npTop: number;
  /** The round tables the nodes draw from, one per round start (byStart): a guide of 2^log outcome indices, then per outcome its cumulative count - 1 ^ 2^31 (round-tables.ts makeTable). */
  TP: Int32Array;
  tpTop: number;
  byStart: Map<number, number>;
  STATES: Int32Array;
  stTop: number;
  /** The nodes by state: a hash of node + 1 (0 empty), its slots a power of two, half full at most. */
  NH: Int32Array;
  nodes: number;
  /**
   * Per edge, 4 words: the node it leads to (UNMADE; -2 - its outcome where the trial ends),
   * its records' changes (SEG's words from, to), and how many trials took it since the last flush.
   */
  E: Int32Array;
  /** Per edge, what makes it: its node (-1: the trial's start) and its outcome there (a round's end state, attrition's subset). */
  EF: Int32Array;
  edges: number;
  /** The records' changes, 3 words each: DELTA's index, the change of the value and of its square. */
  SEG: Int32Array;
  segTop: number;
  /** The outcomes met (OW words each), found by their text. */
  OUTV: Int32Array;
  outs: number;
  byOutcome: Map<number, number>;
  /** Per outcome, its trials in the flush being made; the outcomes met in it. */
  OCNT: Int32Array;
  OT: Int32Array;
  /** The edges counted since the last flush (E's first word). */
  TCH: Int32Array;
  nt: number;
}

/** The walks of this thread by case. */
const WALKS = new Map<Tables, Walk>();
/**
 * Their cases, least recently used first. An array moved in place, not the Map's own order
 * (a delete and a set per call) nor its iterators: a call allocates nothing here, where a few
 * hundred bytes a call were ~0.5 bytes a battle in a sweep's short calls (the bench's heap row).
 */
const LRU: Tables[] = [];
/** The bytes the walks a call does not use may keep together (the call's own walk is bounded by EDGE_MAX). */
var WALK_BYTES = 48 << 20;

/** Tests only: the walks' byte bound (the previous bound back), and the cases whose walks are kept. */
export function _setWalkBytes(n: number): number {
  const was = WALK_BYTES;
  WALK_BYTES = n;
  return was;
}
export function _walksKept(): number {
  return WALKS.size;
}

function walkBytes(w: Walk): number {
  return w.NP.byteLength + w.TP.byteLength + w.STATES.byteLength + w.NH.byteLength + w.E.byteLength + w.EF.byteLength + w.SEG.byteLength + w.OUTV.byteLength + w.OCNT.byteLength + w.OT.byteLength + w.TCH.byteLength;
}

/** The walk of the case of `tab`, made if new, now the most recently used; the least recently used others dropped while they hold more than WALK_BYTES. */
function walkFor(tab: Tables): Walk {
  let w = WALKS.get(tab);
  let at: number;
  if (w === undefined) {
    w = newWalk();
    WALKS.set(tab, w);
    at = LRU.length;
    LRU.push(tab);
  } else at = LRU.indexOf(tab);
  const last = LRU.length - 1;
  for (let j = at; j < last; j++) LRU[j] = LRU[j + 1];
  LRU[last] = tab;
  let others = 0;
  for (let j = 0; j < last; j++) others += walkBytes(WALKS.get(LRU[j])!);
  let drop = 0;
  for (; drop < last && others > WALK_BYTES; drop++) {
    others -= walkBytes(WALKS.get(LRU[drop])!);
    WALKS.delete(LRU[drop]);
  }
  if (drop > 0) {
    LRU.copyWithin(0, drop);
    LRU.length -= drop;
  }
  return w;
}

function newWalk(): Walk {
  const w: Walk = {
    NP: new Int32Array(1 << 12),
    npTop: 0,
    TP: new Int32Array(1 << 12),
    tpTop: 0,
    byStart: new Map(),
    STATES: new Int32Array(NX * 64),
    stTop: 0,
    NH: new Int32Array(1 << 10),
    nodes: 0,
    E: new Int32Array(4 << 10),
    EF: new Int32Array(2 << 10),
    edges: 0,
    SEG: new Int32Array(1 << 12),
    segTop: 0,
    OUTV: new Int32Array(OW * 64),
    outs: 0,
    byOutcome: new Map(),
    OCNT: new Int32Array(64),
    OT: new Int32Array(64),
    TCH: new Int32Array(1 << 10),
    nt: 0,
  };
  addEdges(w, 1, -1);
  return w;
}

function grown(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  let n = a.length;
  while (n < need) n *= 2;
  const b = new Int32Array(n);
  b.set(a);
  return b;
}

/** k new edges (unmade) from node `from`: the first one's index back. */
function addEdges(w: Walk, k: number, from: number): number {
  const e = w.edges;
  const n = e + k;
  w.E = grown(w.E, 4 * n);
  w.EF = grown(w.EF, 2 * n);
  w.TCH = grown(w.TCH, n);
  for (let i = e; i < n; i++) {
    w.E[4 * i] = UNMADE;
    w.E[4 * i + 3] = 0;
    w.EF[2 * i] = from;
  }
  w.edges = n;
  return e;
}

/** The node of the state in ST (waiting for a draw), made if new: its first word in NP. */
function nodeOf(w: Walk): number {
  let hm = w.NH.length - 1;
  let h = stateHash() & hm;
  for (let q = w.NH[h]; q !== 0; q = w.NH[h]) {
    if (sameState(w.STATES, w.NP[q - 1 + 3])) return q - 1;
    h = (h + 1) & hm;
  }
  if (2 * (w.nodes + 1) > w.NH.length) {
    // twice the slots, the nodes put in again
    const old = w.NH;
    w.NH = new Int32Array(2 * old.length);
    hm = w.NH.length - 1;
    const keep = ST.slice();
    for (let i = 0; i < old.length; i++) {
      if (old[i] === 0) continue;
      const so = w.NP[old[i] - 1 + 3];
      ST.set(w.STATES.subarray(so, so + NX));
      let g = stateHash() & hm;
      while (w.NH[g] !== 0) g = (g + 1) & hm;
      w.NH[g] = old[i];
    }
    ST.set(keep);
    h = stateHash() & hm;
    while (w.NH[h] !== 0) h = (h + 1) & hm;
  }
  w.STATES = grown(w.STATES, w.stTop + NX);
  w.STATES.set(ST, w.stTop);
  const so = w.stTop;
  w.stTop += NX;
  const nd = w.npTop;
  if (ST[X_DRAWN] === 3) {
    w.NP = grown(w.NP, nd + 4);
    const e = addEdges(w, 32, nd);
    for (let s = 0; s < 32; s++) w.EF[2 * (e + s) + 1] = s;
    w.NP[nd] = -1;
    w.NP[nd + 1] = e;
    w.NP[nd + 2] = SPEC;
    w.NP[nd + 3] = so;
    w.npTop = nd + 4;
  } else {
    // the round's table (copied once per start, up to its last outcome that can be drawn:
    // cumulative count 2^32), and an edge per outcome
    const P = RC!.POOL;
    const log = SPEC & 31;
    const at = SPEC >>> 5;
    const K = 1 << log;
    let n = 1;
    while (P[at + K + 2 * (n - 1)] !== 0x7fffffff) n++;
    let t = w.byStart.get(SPECKEY);
    if (t === undefined) {
      t = w.tpTop;
      w.TP = grown(w.TP, t + K + n);
      for (let g = 0; g < K; g++) w.TP[t + g] = P[at + g];
      for (let i = 0; i < n; i++) w.TP[t + K + i] = P[at + K + 2 * i];
      w.tpTop = t + K + n;
      w.byStart.set(SPECKEY, t);
    }
    w.NP = grown(w.NP, nd + 4);
    const e = addEdges(w, n, nd);
    w.NP[nd] = log;
    w.NP[nd + 1] = e;
    w.NP[nd + 2] = t;
    w.NP[nd + 3] = so;
    for (let i = 0; i < n; i++) w.EF[2 * (e + i) + 1] = P[at + K + 2 * i + 1];
    w.npTop = nd + 4;
  }
  w.NH[h] = nd + 1;
  w.nodes++;
  return nd;
}

/** A hash of the state in ST. */
function stateHash(): number {
  let h = 0x2545f491;
  for (let i = 0; i < NX; i++) h = Math.imul(h ^ ST[i], 0x9e3779b1) ^ (h >>> 15);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h;
}

/** Whether the state in ST is the one at `so` in states. */
function sameState(states: Int32Array, so: number): boolean {
  for (let i = 0; i < NX; i++) if (states[so + i] !== ST[i]) return false;
  return true;
}

/** The trial's state at its start (ST). */
function startState(c: CrusaderRexCompiled): void {
  ST.fill(0);
  ST[X_F0] = F0[0];
  ST[X_F1] = F0[1];
  ST[X_C0] = C0[0];
  ST[X_C1] = C0[1];
  ST[X_N0] = pendN0[0];
  ST[X_N1] = pendN0[1];
  ST[X_P0] = pendS0[0];
  ST[X_P1] = pendS0[1];
  ST[X_ARR] = 1;
  ST[X_ATT] = c.attacker0;
  ST[X_OWN] = c.castleOwner0;
  ST[X_HALF] = -1;
  ST[X_TURN] = 1;
  ST[X_IN0] = 1;
  ST[X_IN1] = 1;
  const own = c.castleOwner0;
  // 6.56: a relief force already in the field in R1 of an existing siege attacks the besiegers
  if (c.existing === 1 && own >= 0 && C0[own] !== 0 && F0[0] !== 0 && F0[1] !== 0) ST[X_ATT] = own;
}

/** Makes edge e: plays the steps from its node's state and outcome to the next draw or the trial's end. */
function buildEdge(w: Walk, c: CrusaderRexCompiled, e: number): void {
  const from = w.EF[2 * e];
  let res = -1;
  if (from < 0) startState(c);
  else {
    const so = w.NP[from + 3];
    for (let i = 0; i < NX; i++) ST[i] = w.STATES[so + i];
    res = w.EF[2 * e + 1];
  }
  dlN = 0;
  if (DLB.length < 18 * 4 * c.turns) DLB = new Int32Array(18 * 4 * c.turns); // at most every value of every slot
  let r = slot(c, res);
  while (r === 0) r = slot(c, -1);
  w.SEG = grown(w.SEG, w.segTop + dlN);
  for (let i = 0; i < dlN; i++) w.SEG[w.segTop + i] = DLB[i];
  w.E[4 * e + 1] = w.segTop;
  w.E[4 * e + 2] = w.segTop + dlN;
  w.segTop += dlN;
  if (r === 2) {
    const o = outcomeOf(w, c);
    w.E[4 * e] = -2 - o;
  } else {
    const nd = nodeOf(w); // (before w.E is read: making a node can grow it)
    w.E[4 * e] = nd;
  }
}

/** The outcome of the trial ending in ST, made if new: its index back. */
function outcomeOf(w: Walk, c: CrusaderRexCompiled): number {
  w.OUTV = grown(w.OUTV, OW * (w.outs + 1));
  outcome(c, w.OUTV, OW * w.outs);
  // (the steps lost follow from the steps left)
  const o = OW * w.outs;
  const V = w.OUTV;
  const key = ((((V[o + 1] * 2 + V[o + 2]) * 2 + V[o + 3]) * 2 + V[o + 4]) * 2 + V[o + 5]) * 2 ** 40 + V[o + 6] * 2 ** 24 + V[o + 9] * 2 ** 12 + V[o + 10];
  const known = w.byOutcome.get(key);
  if (known !== undefined) return known;
  w.byOutcome.set(key, w.outs);
  w.OCNT = grown(w.OCNT, w.outs + 1);
  w.OT = grown(w.OT, w.outs + 1);
  return w.outs++;
}

/** The trial's outcome from its last state (ST), into out at o (OW words). */
function outcome(c: CrusaderRexCompiled, out: Int32Array, o: number): void {
  const sums = SUM;
  const z1 = Z1;
  const in0 = ST[X_IN0] !== 0;
  const in1 = ST[X_IN1] !== 0;
  const attIn = c.attacker0 === 0 ? in0 : in1;
  const defIn = c.attacker0 === 0 ? in1 : in0;
  out.fill(0, o, o + OW);
  if (attIn && !defIn) out[o] = 1;
  else if (defIn && !attIn) out[o + 1] = 1;
  else if (attIn && defIn) out[o + 2] = 1;
  else out[o + 3] = 1;
  const fell = ST[X_FELL] !== 0;
  const own = ST[X_OWN];
  const f0 = ST[X_F0];
  const f1 = ST[X_F1];
  const c0 = ST[X_C0];
  const c1 = ST[X_C1];
  if (fell) out[o + 4] = 1;
  if (ST[X_EVER] !== 0 && own >= 0 && (own === 0 ? c0 : c1) !== 0 && (own === 0 ? f1 : f0) === 0) out[o + 5] = 1;
  out[o + 6] = ST[X_ROUNDS];
  const left0 = sums[f0] + sums[c0] + ST[X_L0] + ST[X_P0];
  const left1 = sums[z1 + f1] + sums[z1 + c1] + ST[X_L1] + ST[X_P1];
  out[o + 7] = initialS[0] - left0;
  out[o + 8] = initialS[1] - left1;
  out[o + 9] = left0;
  out[o + 10] = left1;
}

/** Value q of the record at slot offset `at` is v: its change from the last record into DLB (if it changed). */
function recordChange(at: number, q: number, v: number): void {
  const last = ST[X_V + q];
  if (v === last) return;
  DLB[dlN] = at + 2 * q;
  DLB[dlN + 1] = v - last;
  DLB[dlN + 2] = v * v - last * last;
  dlN += 3;
  ST[X_V + q] = v;
}

/**
 * 6.55 (declareSally, in slot's terms): whether the castle's blocks, `inside` steps, sally, by the
 * policy (0 never, 1 always, 2 when they and their side's field reach `ratio` times the other
 * side's field); `field0`, `field1`: each side's field steps (F + S), `own` the castle's side.
 */
function sallies(policy: number, ratio: number, inside: number, field0: number, field1: number, own: number): boolean {
  return policy !== 0 && inside !== 0 && (policy !== 2 || inside + (own === 0 ? field0 : field1) >= ratio * (own === 0 ? field1 : field0));
}

/**
 * One slot of a game turn on the state in ST (docs/rules/crusader-rex.md 6.5, as battleTurn plays
 * it; R1-R3 are slots 0-2, the turn's end slot 3), from its start (res -1) or from the draw it
 * stopped at (res: the round's packed end state, or attrition's subset). Records the slot into
 * SEGBUF and moves ST to the next slot. Back: 0 the next slot is due, 1 stopped at a draw (ST
 * waits there, SPEC says which), 2 the trial is over.
 */
function slot(c: CrusaderRexCompiled, res: number): number {
  const sums = SUM;
  const nzs = NZ;
  const top = TOP;
  const mask = MASK;
  const arr = ARRIVE;
  const z1 = Z1;
  const attacker0 = c.attacker0;
  const relief = c.existing === 1;
  const jihadOn = c.jihad === 1;
  const stormPolicy = c.storm;
  const stormRatio2 = c.stormRatio * 2;
  const stormRetest = c.stormTopUpRetest === 1;
  const rating = c.rating;
  const sallyPolicy = c.sally;
  const sallyRatio = c.sallyRatio;
  const anyRound = c.controlChangeAnyRound === 1;
  const declinedAttrition = c.declinedSallyAttrition === 1;
  const besiegerRetreats = c.besiegerRetreats === 1;
  const slots0 = SLOTS[0];
  const slots1 = SLOTS[1];
  let f0 = ST[X_F0];
  let f1 = ST[X_F1];
  let c0 = ST[X_C0];
  let c1 = ST[X_C1];
  let s0 = ST[X_S0];
  let s1 = ST[X_S1];
  let sal0 = ST[X_SAL0];
  let sal1 = ST[X_SAL1];
  let n0 = ST[X_N0];
  let n1 = ST[X_N1];
  let p0 = ST[X_P0];
  let p1 = ST[X_P1];
  let l0 = ST[X_L0];
  let l1 = ST[X_L1];
  let arrived = ST[X_ARR];
  let att = ST[X_ATT];
  let own = ST[X_OWN];
  let half = ST[X_HALF];
  let fell = ST[X_FELL] !== 0;
  let ever = ST[X_EVER] !== 0;
  let rounds = ST[X_ROUNDS];
  let turn = ST[X_TURN];
  let k = ST[X_K];
  let done = ST[X_DONE] !== 0;
  let toAttrition = ST[X_TOATT] !== 0;
  let in0 = ST[X_IN0] !== 0;
  let in1 = ST[X_IN1] !== 0;
  let drawn = 0; // the draw this slot stops at (X_DRAWN), if it does
  const existing = turn > 1 || relief;
  let skipped = false;
  let stop = false; // nobody to fight and nobody coming
  // the reserves due by round k + 1 join the field (arrive): before a fought R2 or R3, and when
  // the round is not fought, for the record
  const arriving = k < 3 && turn === 1 && n0 + n1 > 0 && (done || (res < 0 && k > 0));
  const before = (f0 | s0) !== 0 && (f1 | s1) !== 0;
  if (arriving) {
    for (let rr = arrived + 1; rr <= k + 1; rr++) {
      const j = rr * 8;
      if (arr[j + 2] !== 0) {
        f0 += arr[j];
        n0 -= arr[j + 2];
        p0 -= arr[j + 3];
      }
      if (arr[j + 6] !== 0) {
        f1 += arr[j + 4];
        n1 -= arr[j + 6];
        p1 -= arr[j + 7];
      }
    }
    if (k + 1 > arrived) arrived = k + 1;
  }
  if (k < 3 && !done) {
    const r = k + 1;
    let e = 0; // the round's packed end state
    let bes = -1;
    if (res < 0) {
      if (arriving) {
        if (!before && (f0 | s0) !== 0 && (f1 | s1) !== 0 && own >= 0 && (own === 0 ? c0 : c1) !== 0) {
          // a relief force arrives (3.2, 6.56): the storm is cancelled and the besieged attack
          if (own === 0) {
            f1 += s1;
            s1 = 0;
          } else {
            f0 += s0;
            s0 = 0;
          }
          half = -1;
          att = own;
        }
      }
      const occ = own >= 0 && (own === 0 ? c0 : c1) !== 0;
      if (occ) ever = true;
      bes = occ ? 1 - own : -1;
      const fighting = (f0 | s0) !== 0 && (f1 | s1) !== 0;
      const besInField = bes === 0 ? (f0 | s0) !== 0 : bes === 1 && (f1 | s1) !== 0;
      let field = false; // a field round to play
      let jihad = false;
      let ro = 0; // the round's start: order, the two states and the carried half-hit (round-tables.ts roundKey)
      let ra = 0;
      let rb = 0;
      let rh = -1;
      if (r === 1 && occ && !fighting && !besInField && (bes === 0 ? n0 : n1) > 0) {
        skipped = true; // R1 skipped: the besieger's main force is not there yet
      } else if (fighting) {
        rounds++;
        field = true;
        jihad = jihadOn && turn === 1 && r === 1 && att === attacker0;
        if (occ && (r > 1 || existing) && sallyPolicy !== 0) {
          // 6.55, when the castle's blocks would sally (declareSally)
          const x = own === 0 ? c0 : c1;
          if (sallies(sallyPolicy, sallyRatio, sums[own * z1 + x], sums[f0] + sums[s0], sums[z1 + f1] + sums[z1 + s1], own)) {
            if (own === 0) {
              sal0 |= mask[x];
              f0 += x;
              c0 = 0;
            } else {
              sal1 |= mask[z1 + x];
              f1 += x;
              c1 = 0;
            }
          }
        }
      } else if (occ && besInField) {
        // a siege round (6.53): storm, else sally, else both pass
        // 6.53, 6.54 (declareStorm): stormers keep storming; the strongest field blocks join up to the castle limit, by the policy
        const cx = own === 0 ? c0 : c1;
        const stormers = bes === 0 ? s0 : s1;
        const fb = bes === 0 ? f0 : f1;
        const row = bes * z1;
        const enough = stormRatio2 * sums[own * z1 + cx];
        let storm = stormers !== 0;
        if (stormers !== 0 || (stormPolicy !== 0 && (stormPolicy !== 2 || sums[row + fb] >= enough))) {
          // the strongest field blocks up to the castle limit, the first in position order among equals, one by one (TOP)
          const storming = nzs[row + stormers];
          const add = storming < rating ? top[(row + fb) * (TABLE_MAX + 1) + Math.min(rating - storming, TABLE_MAX)] : 0;
          const addSteps = sums[row + add];
          // policy.storm_top_up: a storm under way takes them untested (always), or by the test (retest)
          if ((storming > 0 && !stormRetest) || stormPolicy === 1 || sums[row + stormers] + addSteps >= enough) {
            storm = stormers + add !== 0;
            if (bes === 0) {
              f0 -= add;
              s0 = stormers + add;
            } else {
              f1 -= add;
              s1 = stormers + add;
            }
          }
        }
        if (storm) {
          // the storm (4.4: stormRound): the castle, its half-hit and the stormers, one table draw
          rounds++;
          att = bes;
          drawn = 1;
          ro = own * 2 + (jihadOn && turn === 1 && r === 1 && bes === attacker0 ? 1 : 0);
          ra = cx;
          rb = bes === 0 ? s0 : s1;
          rh = half;
        } else {
          // 6.55 (declareSally): the castle's blocks all sally, by the policy
          const x = cx;
          if (sallies(sallyPolicy, sallyRatio, sums[own * z1 + x], sums[f0] + sums[s0], sums[z1 + f1] + sums[z1 + s1], own)) {
            if (own === 0) {
              sal0 |= mask[x];
              f0 += x;
              c0 = 0;
            } else {
              sal1 |= mask[z1 + x];
              f1 += x;
              c1 = 0;
            }
            rounds++;
            att = own; // a sally into an uncontested field attacks
            field = true;
          } else if (!((own === 0 ? n0 : n1) > 0 || (!declinedAttrition && (bes === 0 ? n0 : n1) > 0))) toAttrition = true;
        }
      } else if (n0 + n1 === 0) stop = true;
      if (field) {
        // a field round (2.3: fieldRound)
        drawn = 2;
        ro = (1 - att) * 2 + (jihad ? 1 : 0);
        ra = f0;
        rb = f1;
        rh = -1;
      }
      if (drawn !== 0) {
        // the round's table (round-tables.ts): a draw to stop at, or its one end state
        const v = roundTable(RC!, TAB!, drawn & 1, ro, ra, rb, rh);
        if ((v & 31) !== 0) {
          SPEC = v;
          SPECKEY = roundKey(drawn & 1, ro, ra, rb, rh);
        } else {
          e = RC!.POOL[(v >>> 5) + 1];
          drawn = -drawn; // played here
        }
      }
    } else {
      drawn = -ST[X_DRAWN];
      e = res;
      bes = 1 - own;
    }
    if (drawn < 0) {
      drawn = -drawn;
      const ea = e & 0xfff;
      const eb = (e >>> B_SHIFT) & 0xfff;
      if (drawn === 1) {
        // the storm's end: the castle, its half-hit, the stormers (stormRound)
        let sx = eb;
        half = (e >>> H_SHIFT) - 1;
        if (own === 0) c0 = ea;
        else c1 = ea;
        // stormEnd: the castle emptied (it falls, or with relief coming changes hands), or no stormer left
        if (ea === 0) {
          if ((own === 0 ? n0 : n1) > 0) {
            att = own; // the besieged's reserves will attack; the besieger holds the empty castle
            own = bes;
          } else fell = true;
          if (bes === 0) f0 += sx;
          else f1 += sx;
          sx = 0;
          half = -1;
        } else if (sx === 0) half = -1; // storming repulsed: the half-hit is lost
        if (bes === 0) s0 = sx;
        else s1 = sx;
      } else {
        f0 = ea;
        f1 = eb;
        if (f0 === 0 || f1 === 0) {
          // 2.7 (fieldEnd): a defending main force gone with reserves coming hands over the field (6.41)
          const def = 1 - att;
          const defIn = def === 0 ? (f0 | s0) !== 0 : (f1 | s1) !== 0;
          const attIn = att === 0 ? (f0 | s0) !== 0 : (f1 | s1) !== 0;
          if (!defIn && attIn && (def === 0 ? n0 : n1) > 0 && (anyRound || r === 1)) {
            att = def;
            if (own >= 0 && (own === 0 ? c0 : c1) === 0) own = 1 - att; // the new defender holds the empty castle
          }
        }
      }
      drawn = 0;
    }
  } else if (k >= 3 && res < 0) {
    // After R3 (2.8): sallies go back in, stormers come out, the half-hit is lost, late reserves join.
    if (sal0 !== 0) {
      const v = sallyBack(0, f0, sal0);
      f0 -= v;
      c0 += v;
      sal0 = 0;
    }
    if (sal1 !== 0) {
      const v = sallyBack(1, f1, sal1);
      f1 -= v;
      c1 += v;
      sal1 = 0;
    }
    f0 += s0;
    s0 = 0;
    f1 += s1;
    s1 = 0;
    if (n0 + n1 > 0) {
      for (let rr = arrived + 1; rr <= 3; rr++) {
        const j = rr * 8;
        if (arr[j + 2] !== 0) {
          f0 += arr[j];
          n0 -= arr[j + 2];
          p0 -= arr[j + 3];
        }
        if (arr[j + 6] !== 0) {
          f1 += arr[j + 4];
          n1 -= arr[j + 6];
          p1 -= arr[j + 7];
        }
      }
      arrived = 4;
    }
    half = -1;
    if (!fell && f0 !== 0 && f1 !== 0) {
      // the field attacker retreats every field block (a relief force too: retreatAll)
      if (att === 0) {
        l0 += retreatSteps(0, f0, slots0);
        f0 = 0;
      } else {
        l1 += retreatSteps(1, f1, slots1);
        f1 = 0;
      }
    }
    if (!fell && own >= 0 && (own === 0 ? c0 : c1) !== 0) {
      const bes = 1 - own;
      if (besiegerRetreats && (bes === 0 ? f0 : f1) !== 0) {
        if (bes === 0) {
          l0 += retreatSteps(0, f0, slots0);
          f0 = 0;
        } else {
          l1 += retreatSteps(1, f1, slots1);
          f1 = 0;
        }
      }
      if ((bes === 0 ? f0 : f1) !== 0) {
        // 6.57 (attrition): once per game turn, the castle blocks that lose a step as one draw
        const x = own === 0 ? c0 : c1;
        const m = mask[own * z1 + x];
        if (m !== 0) {
          drawn = 3;
          SPEC = m;
        } else if (x === 0) fell = true; // (the besieger is in the town: in its field)
      }
    }
  } else if (k >= 3) {
    // attrition's draw: subset res of the castle's blocks lose a step
    const x = (own === 0 ? c0 : c1) - SUBSET_POW5[res];
    if (own === 0) c0 = x;
    else c1 = x;
    if (x === 0) fell = true; // (the besieger is in the town: in its field)
  }
  let result = 1;
  if (drawn === 0) {
    // the record (recordPlaces): each side's field (F + S), castle and road steps, as changes
    const g = 12 * ((turn - 1) * 4 + k);
    recordChange(g, 0, sums[f0 + s0]);
    recordChange(g, 1, sums[c0]);
    recordChange(g, 2, p0);
    recordChange(g, 3, sums[z1 + f1 + s1]);
    recordChange(g, 4, sums[z1 + c1]);
    recordChange(g, 5, p1);
    if (k < 3 && !done && !skipped) done = fell || toAttrition || stop || ((f0 | c0 | s0) === 0 && n0 === 0) || ((f1 | c1 | s1) === 0 && n1 === 0);
    result = 0;
    if (k < 3) k++;
    else {
      in0 = (f0 | c0) !== 0;
      in1 = (f1 | c1) !== 0;
      if (!in0 || !in1 || fell || turn === c.turns) result = 2;
      else {
        turn++;
        k = 0;
        done = false;
        toAttrition = false;
      }
    }
  }
  ST[X_F0] = f0;
  ST[X_F1] = f1;
  ST[X_C0] = c0;
  ST[X_C1] = c1;
  ST[X_S0] = s0;
  ST[X_S1] = s1;
  ST[X_SAL0] = sal0;
  ST[X_SAL1] = sal1;
  ST[X_N0] = n0;
  ST[X_N1] = n1;
  ST[X_P0] = p0;
  ST[X_P1] = p1;
  ST[X_L0] = l0;
  ST[X_L1] = l1;
  ST[X_ARR] = arrived;
  ST[X_ATT] = att;
  ST[X_OWN] = own;
  ST[X_HALF] = half;
  ST[X_FELL] = fell ? 1 : 0;
  ST[X_EVER] = ever ? 1 : 0;
  ST[X_ROUNDS] = rounds;
  ST[X_TURN] = turn;
  ST[X_K] = k;
  ST[X_DONE] = done ? 1 : 0;
  ST[X_TOATT] = toAttrition ? 1 : 0;
  ST[X_IN0] = in0 ? 1 : 0;
  ST[X_IN1] = in1 ? 1 : 0;
  ST[X_DRAWN] = drawn;
  return result;
}

/** The walk of the case in use (playWalk sets it; runTable flushes it). */
var WALK: Walk | null = null;

/** Empties the walk (its counts flushed first): nodes and edges are made again as they are met. */
function clearWalk(w: Walk): void {
  w.npTop = 0;
  w.tpTop = 0;
  w.byStart.clear();
  w.stTop = 0;
  w.NH.fill(0);
  w.nodes = 0;
  w.edges = 0;
  w.segTop = 0;
  // the outcomes stay (one per distinct end a trial reached): a trial's outcome code (Trace.outcome) keeps its meaning through the call
  w.nt = 0;
  addEdges(w, 1, -1);
}

/**
 * The counted edges into acc and DELTA, as counts times values, the counts cleared: each edge's
 * records' changes, and (unless traced: added trial by trial) the outcomes of the trials that
 * ended on it, summed per outcome first. histN: the survivors histogram's length per side.
 */
function flushWalk(w: Walk, acc: Float64Array, histN: number, traced: boolean): void {
  flushOutcomes(w, acc, histN, traced, flushEdges(w));
}

/**
 * The edges touched since the last flush: their records' changes into DELTA, their counts
 * emptied, and the trials of each outcome reached counted in OCNT (the outcomes met listed in OT,
 * how many returned). Like flushOutcomes, a function that ends with its loop (playTrials says
 * why): with the store `w.nt = 0` after the loop, the loop compiled on stack deoptimised at it at
 * the end of every call in some processes (case-b-old-siege: 367 deopts in a 6 M-trial run).
 */
function flushEdges(w: Walk): number {
  const E = w.E;
  const SEG = w.SEG;
  const OCNT = w.OCNT;
  const OT = w.OT;
  const TCH = w.TCH;
  const nt = w.nt;
  w.nt = 0;
  let ot = 0;
  const d = DELTA;
  for (let t = 0; t < nt; t++) {
    const x = TCH[t];
    const n = E[x + 3];
    E[x + 3] = 0;
    for (let i = E[x + 1], end = E[x + 2]; i < end; i += 3) {
      const at = SEG[i];
      d[at] += n * SEG[i + 1];
      d[at + 1] += n * SEG[i + 2];
    }
    if (E[x] < -1) {
      const o = -2 - E[x];
      if (OCNT[o] === 0) OT[ot++] = o;
      OCNT[o] += n;
    }
  }
  return ot;
}

/** The `ot` outcomes flushEdges met, their trials added to acc (untraced: a traced call added each trial as it ended), their counts emptied. */
function flushOutcomes(w: Walk, acc: Float64Array, histN: number, traced: boolean, ot: number): void {
  const OT = w.OT;
  const OCNT = w.OCNT;
  const OUTV = w.OUTV;
  for (let t = 0; t < ot; t++) {
    const o = OT[t];
    if (!traced) addOutcome(acc, OUTV, OW * o, OCNT[o], histN);
    OCNT[o] = 0;
  }
}

/** n trials' outcome (OUTV at o) into acc. */
function addOutcome(acc: Float64Array, OUTV: Int32Array, o: number, n: number, histN: number): void {
  acc[A_ATT_WINS] += n * OUTV[o];
  acc[A_DEF_HOLDS] += n * OUTV[o + 1];
  acc[A_CONTINUES] += n * OUTV[o + 2];
  acc[A_BOTH_GONE] += n * OUTV[o + 3];
  acc[A_FALLS] += n * OUTV[o + 4];
  acc[A_LIFTED] += n * OUTV[o + 5];
  const r = OUTV[o + 6];
  acc[A_ROUNDS] += n * r;
  acc[A_ROUNDS + 1] += n * r * r;
  const l0 = OUTV[o + 7];
  const l1 = OUTV[o + 8];
  acc[A_LOST] += n * l0;
  acc[A_LOST + 1] += n * l0 * l0;
  acc[A_LOST + 2] += n * l1;
  acc[A_LOST + 3] += n * l1 * l1;
  acc[SURV + OUTV[o + 9]] += n;
  acc[SURV + histN + OUTV[o + 10]] += n;
}

/**
 * The trials of a plain case (every order plain, ties by hit order: plainCase) as a walk from
 * draw to draw (above): per trial its stream, then per draw one generator step, the node's guide
 * and a step or two of search (a round, by inversion as round-tables.ts draws it) or the alias
 * pick (attrition), and the edge's count (traced: its records' changes). A function of its own
 * that ends with its loop (playTrials says why): runTable flushes the counts, and stores the
 * number of edges touched that it returns. Stored here after the loop (`w.nt = nt`), that one
 * property store was the trap: in half of all processes the loop compiled on stack deoptimised
 * at it at the end of every call (battle-of-jerusalem: 575-734 deopts in a 12 M-trial run).
 */
function playWalk(c: CrusaderRexCompiled, rng: RngState, stream: RngState, trials: number, acc: Float64Array, histN: number, trace: Trace | undefined, outc: Int32Array | undefined): number {
  const w = walkFor(TAB!);
  WALK = w;
  const attThr = ATT_THR;
  const attAli = ATT_ALI;
  const d = DELTA;
  const traced = trace !== undefined;
  let E = w.E;
  let np = w.NP;
  let tp = w.TP;
  let seg = w.SEG;
  let tch = w.TCH;
  let nt = w.nt;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    if (w.edges > EDGE_MAX) {
      w.nt = nt;
      flushWalk(w, acc, histN, trace !== undefined);
      clearWalk(w);
      nt = 0;
      E = w.E;
    }
    let x = 0; // the edge taken (its first word in E)
    let nd = 0;
    for (;;) {
      nd = E[x];
      if (nd === UNMADE) {
        buildEdge(w, c, x >> 2);
        E = w.E;
        np = w.NP;
        tp = w.TP;
        seg = w.SEG;
        tch = w.TCH;
        nd = E[x];
      }
      if (traced) {
        // a call of a few trials (the paired mode's blocks) meets most of its edges once: their
        // records' changes added here cost what the flush would
        for (let j = E[x + 1], end = E[x + 2]; j < end; j += 3) {
          const at = seg[j];
          d[at] += seg[j + 1];
          d[at + 1] += seg[j + 2];
        }
      } else if (E[x + 3]++ === 0) tch[nt++] = x;
      if (nd < 0) break;
      const u = nextI32(rng);
      const log = np[nd];
      if (log > 0) {
        // a round, by inversion: the guide, then the first outcome whose cumulative count passes u
        const t = np[nd + 2];
        const first = t + (1 << log);
        const us = u ^ 0x80000000;
        let j = first + tp[t + (u >>> (32 - log))];
        while (tp[j] < us) j++;
        x = 4 * (np[nd + 1] + j - first);
      } else {
        // attrition: the subset of the castle's blocks that lose a step (its alias table)
        const j = u >>> 27;
        const at = (np[nd + 2] << 5) + j;
        x = 4 * (np[nd + 1] + ((u & 0x7ffffff) < attThr[at] ? j : attAli[at]));
      }
    }
    if (traced) {
      addOutcome(acc, w.OUTV, OW * (-2 - nd), 1, histN);
      writeTrace(trace, i, acc);
    } else if (outc !== undefined) outc[i] = -2 - nd;
  }
  return nt;
}

/** Whether a call on the case in use (useTables) plays the walk: in outcome mode it writes outcome codes (the Kernel's `outcomes`). */
export function walkPlays(c: CrusaderRexCompiled): boolean {
  return plainCase && c.tieBreak !== 2 && !plainOff;
}

/**
 * `hold` (the Kernel contract; never with rows): the walk's edge counts stay in it, untouched
 * edges listed, and the next call on `c` without it flushes them with its own into its acc. Each
 * flush walks every edge touched since the last (a few thousand a chunk in a siege): a batch's
 * slice of several chunks flushed once cost paired sieges ~a quarter less than one flush a chunk.
 * The records flushed early (a walk past EDGE_MAX) are added to this call's acc.
 */
export function runTable(c: CrusaderRexCompiled, rng: RngState, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined, hold = false): void {
  const attrN = c.turns * 4 * 12;
  if (DELTA.length < attrN) DELTA = new Float64Array(attrN);
  random = c.tieBreak === 2;
  useAttrition(c.attritionOn);
  SLOTS[0] = c.slots[0];
  SLOTS[1] = c.slots[1];
  if (plainCase && !random && !plainOff) {
    // outcome mode: the walk's fast play, each trial's outcome code written (the engine pairs from OUTV)
    const outc = trace?.outcome;
    const rows = outc === undefined ? trace : undefined;
    const touched = playWalk(c, rng, stream, trials, acc, maxAll(c) + 1, rows, outc); // sets WALK
    WALK!.nt = touched;
    if (!hold || rows !== undefined) flushWalk(WALK!, acc, maxAll(c) + 1, rows !== undefined);
    flushRecords(acc, attrBase(c), attrN);
    acc[0] += trials;
    if (outc !== undefined) setOutcomes(trace!, WALK!.OUTV, OW);
    return;
  }
  if (trace?.outcome !== undefined) throw new Error('the table path writes outcome codes only where it plays the walk (walkPlays)');
  playTrials(c, rng, stream, trials, acc, maxAll(c) + 1, trace);
  flushRecords(acc, attrBase(c), attrN);
  acc[0] += trials;
  acc[A_ATT_WINS] += oWins;
  acc[A_DEF_HOLDS] += oHolds;
  acc[A_CONTINUES] += oGoes;
  acc[A_BOTH_GONE] += oGone;
  acc[A_FALLS] += oFalls;
  acc[A_LIFTED] += oLifts;
  acc[A_ROUNDS] += oR1;
  acc[A_ROUNDS + 1] += oR2;
  acc[A_LOST] += oL0;
  acc[A_LOST + 1] += oL0q;
  acc[A_LOST + 2] += oL1;
  acc[A_LOST + 3] += oL1q;
}

/** One call's outcome counts and sums (playTrials leaves them here for runTable). */
var oWins = 0;
var oHolds = 0;
var oGoes = 0;
var oGone = 0;
var oFalls = 0;
var oLifts = 0;
var oR1 = 0;
var oR2 = 0;
var oL0 = 0;
var oL0q = 0;
var oL1 = 0;
var oL1q = 0;

/**
 * The trials, in a function of their own that ends with its loop: V8 compiles this loop on
 * stack (OSR) before any code after it has run, and code after the loop without type feedback
 * (a call, an accumulator store) deoptimised that compiled loop at the end of every call.
 */
function playTrials(c: CrusaderRexCompiled, rng: RngState, stream: RngState, trials: number, acc: Float64Array, histN: number, trace: Trace | undefined): void {
  // the outcome counts and sums, left in module vars at the end
  let wins = 0;
  let holds = 0;
  let goes = 0;
  let gone = 0;
  let falls = 0;
  let lifts = 0;
  let r1 = 0;
  let r2 = 0;
  let l0 = 0;
  let l0q = 0;
  let l1 = 0;
  let l1q = 0;
  // the case's start and constants, read once (the tables do not change during a call)
  const f0 = F0[0];
  const f1 = F0[1];
  const c0 = C0[0];
  const c1 = C0[1];
  const q0 = pend0[0];
  const q1 = pend0[1];
  const n0 = pendN0[0];
  const n1 = pendN0[1];
  const s0 = pendS0[0];
  const s1 = pendS0[1];
  const init0 = initialS[0];
  const init1 = initialS[1];
  const sums = SUM;
  const z1 = Z1;
  const attacker0 = c.attacker0;
  const owner0 = c.castleOwner0;
  const turns = c.turns;
  const relief = c.existing === 1;
  // stormers and sallies are back in place at the end of every game turn (battleTurn)
  S[0] = S[1] = SAL[0] = SAL[1] = 0;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    F[0] = f0;
    F[1] = f1;
    C[0] = c0;
    C[1] = c1;
    PEND[0] = q0;
    PEND[1] = q1;
    pendN[0] = n0;
    pendN[1] = n1;
    pendS[0] = s0;
    pendS[1] = s1;
    leftS[0] = 0;
    leftS[1] = 0;
    arrived = 1;
    att = attacker0;
    own = owner0;
    half = -1;
    fell = false;
    ever = false;
    rounds = 0;
    vf0 = vc0 = vr0 = vf1 = vc1 = vr1 = 0;
    lastRaw0 = lastRaw1 = -1;
    // 6.56: a relief force already in the field in R1 of an existing siege attacks the besiegers
    if (relief && occupied() && contested()) att = own;
    let turn = 1;
    let in0 = true;
    let in1 = true;
    for (; turn <= turns; turn++) {
      battleTurn(c, rng, turn, (turn - 1) * 4 * 12);
      in0 = inTown(0);
      in1 = inTown(1);
      if (!in0 || !in1 || fell) break;
    }
    // the game turns after the battle ended stay as it ended: the last record holds (DELTA)
    // Outcome, for the scenario's attacker (the besieger of an existing siege).
    const attIn = attacker0 === 0 ? in0 : in1;
    const defIn = attacker0 === 0 ? in1 : in0;
    if (attIn && !defIn) wins++;
    else if (defIn && !attIn) holds++;
    else if (attIn && defIn) goes++;
    else gone++;
    if (fell) falls++;
    if (ever && occupied() && !inField(1 - own)) lifts++;
    r1 += rounds;
    r2 += rounds * rounds;
    // (S is empty again: battleTurn ends every game turn with the stormers back in the field)
    const left0 = sums[F[0]] + sums[C[0]] + leftS[0] + pendS[0];
    const left1 = sums[z1 + F[1]] + sums[z1 + C[1]] + leftS[1] + pendS[1];
    const lost0 = init0 - left0;
    const lost1 = init1 - left1;
    l0 += lost0;
    l0q += lost0 * lost0;
    l1 += lost1;
    l1q += lost1 * lost1;
    acc[SURV + left0] += 1;
    acc[SURV + histN + left1] += 1;
    if (trace !== undefined) {
      // the outcome sums kept in locals, added trial by trial so that the traced slots run
      acc[A_ATT_WINS] += wins;
      acc[A_DEF_HOLDS] += holds;
      acc[A_CONTINUES] += goes;
      acc[A_BOTH_GONE] += gone;
      acc[A_FALLS] += falls;
      acc[A_LIFTED] += lifts;
      acc[A_ROUNDS] += r1;
      acc[A_ROUNDS + 1] += r2;
      acc[A_LOST] += l0;
      acc[A_LOST + 1] += l0q;
      acc[A_LOST + 2] += l1;
      acc[A_LOST + 3] += l1q;
      wins = holds = goes = gone = falls = lifts = r1 = r2 = l0 = l0q = l1 = l1q = 0;
      writeTrace(trace, i, acc);
    }
  }
  oWins = wins;
  oHolds = holds;
  oGoes = goes;
  oGone = gone;
  oFalls = falls;
  oLifts = lifts;
  oR1 = r1;
  oR2 = r2;
  oL0 = l0;
  oL0q = l0q;
  oL1 = l1;
  oL1q = l1q;
}

/** Test hook: the attrition tables for a loss on `on` or less (THR, ALI: 32 slots per castle mask). */
export function _attritionTables(on: number): [Uint32Array, Uint8Array] {
  useAttrition(on);
  return [ATT_THR, ATT_ALI];
}
