/**
 * The Crusader Rex kernel: one battle location over one or more game turns, following the
 * v2.0 rules as the Rally the Troops engine resolves them (docs/rules/crusader-rex.md 2-4, 6.5).
 * Allocation-free: block state lives in typed arrays made once per compiled case.
 *
 * A block's volley is exact and cheap: one unbiased draw d in [0, 6^steps) is the whole roll
 * (its base-6 digits are the dice), and precomputed tables give the hits (die <= firepower)
 * and the sixes (the charge's self-hits) of every d: the same distribution as rolling each die,
 * one draw instead of up to four (test/crusader-rex.test.ts checks the tables die by die).
 * Plain field battles take the table path (below): one draw per run of a side's volleys.
 *
 * Accumulator layout:
 *   [0] trials  [1] attacker wins  [2] defender holds  [3] castle falls  [4] siege lifted
 *   [5] siege continues (both sides still in the town)  [6] both gone
 *   [7] Σ rounds  [8] Σ rounds²  [9] Σ steps lost by the Franks  [10] Σ²
 *   [11] Σ steps lost by the Saracens  [12] Σ²  [13] trials where a round hit its action guard (never expected)
 *   [SURV + side * (maxAll + 1) + steps]   surviving steps per side (histogram)
 *   [ATTR + ((turn - 1) * 4 + slot) * 12 + (side * 3 + place) * 2 (+1)]   Σ steps, Σ steps²
 *       slot 0..2 = end of round 1..3, 3 = after retreat and attrition; place 0 field, 1 castle, 2 reserves
 */
import { nextI32, nextTrialState, type RngState } from '../../engine/rng.js';
import { rollDie } from '../../engine/dice.js';
import type { Kernel } from '../types.js';
import { CASTLE, FIELD, GONE, LEFT, PENDING, SALLY, STORM, type CrusaderRexCompiled } from './compile.js';

/** The current trial's generator state, drawn from the chunk's stream at each trial's start. */
const TRIAL: RngState = new Int32Array(4);

export const A_ATT_WINS = 1;
export const A_DEF_HOLDS = 2;
export const A_FALLS = 3;
export const A_LIFTED = 4;
export const A_CONTINUES = 5;
export const A_BOTH_GONE = 6;
export const A_ROUNDS = 7;
export const A_LOST = 9; // + 2 * side
export const A_GUARD = 13;
export const SURV = 14;

export function maxAll(c: CrusaderRexCompiled): number {
  return Math.max(c.maxTotal[0], c.maxTotal[1]);
}
export function attrBase(c: CrusaderRexCompiled): number {
  return SURV + 2 * (maxAll(c) + 1);
}
export function accLengthCrusaderRex(c: CrusaderRexCompiled): number {
  return attrBase(c) + c.turns * 4 * 12;
}

// === dice tables (1.3): d in [0, 6^s) encodes s dice ========================================
const POW6 = [1, 6, 36, 216, 1296];
const POW6T = POW6.map((n) => 4294967296 % n);
/** HITS[f][s][d]: dice of d (s of them) at or below firepower f (f = 0..6). */
const HITS: Uint8Array[][] = [];
/** SIXES[s][d]: dice of d showing 6. */
const SIXES: Uint8Array[] = [];
for (let f = 0; f <= 6; f++) {
  HITS.push([]);
  for (let s = 0; s <= 4; s++) {
    const t = new Uint8Array(POW6[s]);
    const six = new Uint8Array(POW6[s]);
    for (let d = 0; d < POW6[s]; d++) {
      let x = d;
      let h = 0;
      let n6 = 0;
      for (let k = 0; k < s; k++) {
        const die = (x % 6) + 1;
        x = (x / 6) | 0;
        if (die <= f) h++;
        if (die === 6) n6++;
      }
      t[d] = h;
      six[d] = n6;
    }
    HITS[f].push(t);
    if (f === 0) SIXES.push(six);
  }
}
export const _tables = { HITS, SIXES, POW6 };
/** HITS and SIXES flattened: entry (f, s, d) at HIT_BASE[f * 5 + s] + d. */
const HIT_BASE = new Int32Array(35);
const HITS_FLAT = (() => {
  let n = 0;
  for (let f = 0; f <= 6; f++)
    for (let st = 0; st <= 4; st++) {
      HIT_BASE[f * 5 + st] = n;
      n += POW6[st];
    }
  const out = new Uint8Array(n);
  for (let f = 0; f <= 6; f++) for (let st = 0; st <= 4; st++) out.set(HITS[f][st], HIT_BASE[f * 5 + st]);
  return out;
})();
const SIX_FLAT = (() => {
  const out = new Uint8Array(HITS_FLAT.length);
  for (let st = 0; st <= 4; st++) out.set(SIXES[st], HIT_BASE[st]);
  return out;
})();
const POW6_I = Int32Array.from(POW6);
const POW6T_I = Int32Array.from(POW6T);

// === state ===================================================================================
let sized: CrusaderRexCompiled | null = null;
let steps = new Int32Array(0);
let loc = new Int32Array(0);
let acted = new Int32Array(0);
let slotsUsed = new Int32Array(2);
/** Blocks per (side, location): nIn[side * 8 + loc], kept in step with `loc` by setLoc. */
const nIn = new Int32Array(16);
/** The static action orders of 6.2, per (field attacker side, Jihad): see buildOrders. */
let orders: Int32Array[] = [];
/** Each side's blocks, in listed order: sideBlocks[side] (hit allocation scans only these). */
let sideBlocks: Int32Array[] = [];
let attacker = 0; // the field attacker now (roles change: 6.41, 6.56)
let castleOwner = -1;
let halfhit = -1;
let everBesieged = false;
let fell = false;
let lifted = false;
let rounds = 0;
let guard = 0;

/**
 * Everything derived from one compiled case (orders, per-block arrays, hit tables), made once
 * and kept: with paired variants the engine calls the kernel trial by trial, alternating cases,
 * so switching must only swap references (it once rebuilt the tables on every call: 100x slower).
 */
interface Prepared {
  orders: Int32Array[];
  sideBlocks: Int32Array[];
  fast: {
    hitOrder: Int32Array[];
    initialS: Int32Array;
    fSide: Int32Array;
    fFp: Int32Array;
    fArrive: Int32Array;
    fLoc0: Int32Array;
    fSteps0: Int32Array;
  } | null;
  tables: {
    DIG: Uint8Array;
    APP: Int32Array;
    NZ: Uint8Array;
    SUM: Uint8Array;
    MAXD: Uint8Array;
    dOff: Int32Array;
    aOff: Int32Array;
    zOff: Int32Array;
    nSide: Int32Array;
    state0: Int32Array;
    pendN0: Int32Array;
    pendS0: Int32Array;
    bPos: Int32Array;
    bWeight: Int32Array;
    runFrom: Int32Array;
    runTo: Int32Array;
    runSide: Int32Array;
    runBase: Int32Array;
    runKind: Int32Array;
    runAlt: Int32Array;
    runW: Int32Array;
    runPos: Int32Array;
    ALIAS: Int32Array;
  } | null;
}
const prepared = new WeakMap<CrusaderRexCompiled, Prepared>();
/**
 * The same, by content: a worker receives a fresh copy of the compiled case with every chunk,
 * and building the tables (milliseconds) would cost more than the chunk's 16 384 battles. The
 * most recent cases are kept (a sweep visits its points in order).
 */
const preparedByContent = new Map<string, Prepared>();
const PREPARED_KEEP = 64;

function preparedFor(c: CrusaderRexCompiled): Prepared {
  let p = prepared.get(c);
  if (p) return p;
  const key = JSON.stringify(c);
  p = preparedByContent.get(key);
  if (p) preparedByContent.delete(key); // re-inserted below as the most recent
  else p = prepare(c);
  preparedByContent.set(key, p);
  if (preparedByContent.size > PREPARED_KEEP) preparedByContent.delete(preparedByContent.keys().next().value!);
  prepared.set(c, p);
  return p;
}

function prepare(c: CrusaderRexCompiled): Prepared {
  const p: Prepared = {
    orders: buildOrders(c),
    sideBlocks: [0, 1].map((side) => Int32Array.from(c.side.map((sd, b) => (sd === side ? b : -1)).filter((b) => b >= 0))),
    fast: null,
    tables: null,
  };
  if (c.fast === 1) {
    buildFast(c);
    p.fast = { hitOrder, initialS, fSide, fFp, fArrive, fLoc0, fSteps0 };
    if (buildTables(c, p.orders)) p.tables = { DIG, APP, NZ, SUM, MAXD, dOff, aOff, zOff, nSide, state0, pendN0, pendS0, bPos, bWeight, runFrom, runTo, runSide, runBase, runKind, runAlt, runW, runPos, ALIAS };
  }
  return p;
}

function ensure(c: CrusaderRexCompiled): void {
  if (sized === c) return;
  sized = c;
  if (steps.length < c.nb) {
    steps = new Int32Array(c.nb);
    loc = new Int32Array(c.nb);
    acted = new Int32Array(c.nb);
  }
  const p = preparedFor(c);
  orders = p.orders;
  sideBlocks = p.sideBlocks;
  if (p.fast) ({ hitOrder, initialS, fSide, fFp, fArrive, fLoc0, fSteps0 } = p.fast);
  tablesReady = p.tables !== null;
  if (p.tables) {
    ({ DIG, APP, NZ, SUM, MAXD, dOff, aOff, zOff, nSide, state0, pendN0, pendS0, bPos, bWeight, runFrom, runTo, runSide, runBase, runKind, runAlt, runW, runPos, ALIAS } = p.tables);
  }
}

/**
 * The firing order of 6.2 as four fixed lists of blocks, for first side 0 or 1 and with or
 * without Jihad: the side named first (the defender, or the castle in a storm) then the other,
 * letter by letter, each group in listed order. The engine re-picks after every action, which
 * gives the same sequence: no block becomes eligible in the middle of a round.
 */
function buildOrders(c: CrusaderRexCompiled): Int32Array[] {
  const out: Int32Array[] = [];
  for (let first = 0; first < 2; first++) {
    for (let jihad = 0; jihad < 2; jihad++) {
      const list: number[] = [];
      const groups: [number, number][] = [];
      for (let l = 0; l < 3; l++) {
        if (jihad === 1) groups.push([1 - first, l]);
        else groups.push([first, l], [1 - first, l]);
      }
      if (jihad === 1) for (let l = 0; l < 3; l++) groups.push([first, l]);
      for (const [side, letter] of groups) for (let b = 0; b < c.nb; b++) if (c.side[b] === side && c.letter[b] === letter) list.push(b);
      out.push(Int32Array.from(list));
    }
  }
  return out;
}

function setLoc(c: CrusaderRexCompiled, b: number, where: number): void {
  const base = c.side[b] * 8;
  nIn[base + loc[b]]--;
  nIn[base + where]++;
  loc[b] = where;
}

/**
 * The field (1.4, 3.2): every block in the town outside the castle that is not a reserve still
 * on the road, so stormers and sallying blocks count. (Stormers and a contested field never
 * meet: a relief force arriving cancels the storm, and a storm is declared only into an
 * uncontested field. Counting them is what notices that arrival: issue #17.)
 */
const IN_FIELD = Uint8Array.from({ length: LEFT + 1 }, (_, l) => (l === FIELD || l === SALLY || l === STORM ? 1 : 0));
const inField = (b: number) => IN_FIELD[loc[b]] === 1;

function count(_c: CrusaderRexCompiled, side: number, where: number): number {
  return nIn[side * 8 + where];
}
function fieldBlocks(_c: CrusaderRexCompiled, side: number): number {
  return nIn[side * 8 + FIELD] + nIn[side * 8 + SALLY] + nIn[side * 8 + STORM];
}
function fieldSteps(c: CrusaderRexCompiled, side: number): number {
  let n = 0;
  for (let b = 0; b < c.nb; b++) if (c.side[b] === side && inField(b)) n += steps[b];
  return n;
}
function stepsAt(c: CrusaderRexCompiled, side: number, where: number): number {
  let n = 0;
  for (let b = 0; b < c.nb; b++) if (c.side[b] === side && loc[b] === where) n += steps[b];
  return n;
}
function townBlocks(_c: CrusaderRexCompiled, side: number): number {
  const k = side * 8;
  return nIn[k + FIELD] + nIn[k + SALLY] + nIn[k + CASTLE] + nIn[k + STORM];
}
const castleCount = (c: CrusaderRexCompiled) => (castleOwner < 0 ? 0 : count(c, castleOwner, CASTLE));
const fieldContested = (c: CrusaderRexCompiled) => fieldBlocks(c, 0) > 0 && fieldBlocks(c, 1) > 0;

// === 1.4, 1.5: hits ==========================================================================

/** The block of `side` at `where` with the most steps; ties by the policy (6.31, 6.4). */
function strongest(c: CrusaderRexCompiled, rng: RngState, side: number, where: number): number {
  let best = -1;
  let ties = 0;
  const list = sideBlocks[side];
  for (let i = 0; i < list.length; i++) {
    const b = list[i];
    const ok = where === FIELD ? inField(b) : loc[b] === where;
    if (!ok) continue;
    if (best < 0 || steps[b] > steps[best]) {
      best = b;
      ties = 1;
    } else if (steps[b] === steps[best]) {
      ties++;
      if (c.tieBreak === 1) {
        // protect the best-rated: the hit goes to the worse initiative, then the lower firepower
        if (c.letter[b] > c.letter[best] || (c.letter[b] === c.letter[best] && c.fp[b] < c.fp[best])) best = b;
      } else if (c.tieBreak === 2 && rollDie(rng, ties, 4294967296 % ties) === 1) best = b; // reservoir: uniform among ties
    }
  }
  return best;
}

function reduce(c: CrusaderRexCompiled, b: number): void {
  steps[b]--;
  if (steps[b] <= 0) {
    steps[b] = 0;
    setLoc(c, b, GONE);
    if (halfhit === b) halfhit = -1;
  }
}

/** Hits to a side's field blocks, one at a time to the strongest (6.31); extra hits are lost. */
function hitField(c: CrusaderRexCompiled, rng: RngState, side: number, hits: number): void {
  for (let k = 0; k < hits; k++) {
    const b = strongest(c, rng, side, FIELD);
    if (b < 0) return;
    reduce(c, b);
  }
}

function hitStormers(c: CrusaderRexCompiled, rng: RngState, side: number, hits: number): void {
  for (let k = 0; k < hits; k++) {
    const b = strongest(c, rng, side, STORM);
    if (b < 0) return;
    reduce(c, b);
  }
}

/** Double defense (6.54): the first hit on a castle block is a half-hit; the next hit must go on it. */
function hitCastle(c: CrusaderRexCompiled, rng: RngState, hits: number): void {
  for (let k = 0; k < hits; k++) {
    if (halfhit >= 0 && loc[halfhit] === CASTLE) {
      const b = halfhit;
      halfhit = -1;
      reduce(c, b);
      continue;
    }
    const b = strongest(c, rng, castleOwner, CASTLE);
    if (b < 0) return;
    halfhit = b;
  }
}

/** One volley (1.3): hits, and the charge's self-hits (6.32) applied first to the charger. */
function volley(c: CrusaderRexCompiled, rng: RngState, b: number, charge: boolean): number {
  const s = steps[b];
  let f = c.fp[b] + (charge ? 1 : 0);
  if (f > 6) f = 6;
  const d = rollDie(rng, POW6_I[s], POW6T_I[s]) - 1;
  const hits = HITS_FLAT[HIT_BASE[f * 5 + s] + d];
  if (charge && f < 6) {
    const self = SIX_FLAT[HIT_BASE[s] + d];
    for (let k = 0; k < self && loc[b] !== GONE; k++) reduce(c, b);
  }
  return hits;
}

function canRetreat(c: CrusaderRexCompiled, side: number): boolean {
  return c.slots[side] < 0 || slotsUsed[side] < c.slots[side];
}

/** A block leaves the battle by road (6.6); with no slot left it is eliminated (6.61). */
function retreat(c: CrusaderRexCompiled, b: number): void {
  const side = c.side[b];
  if (canRetreat(c, side)) {
    slotsUsed[side]++;
    setLoc(c, b, LEFT);
  } else {
    steps[b] = 0;
    setLoc(c, b, GONE);
  }
}

// === 2.3, 2.7: the field round ==============================================================

/** End checks of a field battle (2.7). Returns true when the round is over. */
function fieldEnd(c: CrusaderRexCompiled, round: number): boolean {
  const def = 1 - attacker;
  const defField = fieldBlocks(c, def);
  const attField = fieldBlocks(c, attacker);
  if (defField > 0 && attField > 0) return false;
  if (defField === 0 && attField > 0 && count(c, def, PENDING) > 0) {
    // 6.41: the defending main force is gone with reserves coming: control changes
    if (c.controlChangeAnyRound === 1 || round === 1) {
      attacker = def;
      if (castleOwner >= 0 && castleCount(c) === 0) castleOwner = 1 - attacker; // the new defender holds the empty castle
    }
  }
  return true;
}

/** Block b's combat turn in a field round (6.2, 6.3, 6.6, 6.62). */
function fieldAct(c: CrusaderRexCompiled, rng: RngState, b: number): void {
  const side = c.side[b];
  const enemy = 1 - side;
  acted[b] = 1;
  // Withdraw into the castle (6.62): the castle owner's field blocks when defending, sallying blocks.
  if (c.withdraw === 1 && side === castleOwner && (loc[b] === SALLY || side !== attacker) && fieldSteps(c, side) < fieldSteps(c, enemy)) {
    if (loc[b] === SALLY || count(c, side, CASTLE) + count(c, side, SALLY) < c.rating) {
      setLoc(c, b, CASTLE);
      return;
    }
  }
  // Harry (6.33): fire, then retreat; not while sallying.
  if (c.harry === 1 && c.harrier[b] === 1 && loc[b] === FIELD && canRetreat(c, side)) {
    hitField(c, rng, enemy, volley(c, rng, b, false));
    retreat(c, b); // the harrier fired (no self-hits without a charge), then leaves by road
    return;
  }
  // Retreat instead of firing (6.6): field blocks only (sallying blocks may only withdraw).
  if (c.retreat === 1 && loc[b] === FIELD && canRetreat(c, side) && fieldSteps(c, side) < fieldSteps(c, enemy)) {
    retreat(c, b);
    return;
  }
  let charge = false;
  if (c.knight[b] === 1 && c.charge > 0) {
    if (c.charge === 1) charge = true;
    else {
      const t = strongest(c, rng, enemy, FIELD);
      charge = t >= 0 && steps[t] < steps[b];
    }
  }
  const hits = volley(c, rng, b, charge);
  hitField(c, rng, enemy, hits);
}

function pickActor(c: CrusaderRexCompiled, side: number, letter: number, storm: boolean): number {
  let best = -1;
  for (let b = 0; b < c.nb; b++) {
    if (acted[b] === 1 || c.side[b] !== side || c.letter[b] !== letter) continue;
    const ok = storm ? loc[b] === CASTLE || loc[b] === STORM : inField(b);
    if (!ok) continue;
    if (best < 0 || (c.strongestFirst === 1 && steps[b] > steps[best])) best = b;
  }
  return best;
}

/** The order of 6.2: defender A, attacker A, defender B, ... (Jihad R1: the attacker's letters first). */
function nextActor(c: CrusaderRexCompiled, first: number, jihad: boolean, storm: boolean): number {
  if (jihad) {
    for (let l = 0; l < 3; l++) {
      const b = pickActor(c, 1 - first, l, storm);
      if (b >= 0) return b;
    }
    for (let l = 0; l < 3; l++) {
      const b = pickActor(c, first, l, storm);
      if (b >= 0) return b;
    }
    return -1;
  }
  for (let l = 0; l < 3; l++) {
    let b = pickActor(c, first, l, storm);
    if (b >= 0) return b;
    b = pickActor(c, 1 - first, l, storm);
    if (b >= 0) return b;
  }
  return -1;
}

/** Most actions one round can take: every block acts once (a guard against a rules bug looping). */
const ROUND_GUARD = 200;

function fieldRound(c: CrusaderRexCompiled, rng: RngState, round: number, jihad: boolean): void {
  for (let b = 0; b < c.nb; b++) acted[b] = 0;
  if (c.strongestFirst === 0) {
    // the fixed order of 6.2 (buildOrders); roles only change when the round ends
    const order = orders[(1 - attacker) * 2 + (jihad ? 1 : 0)];
    for (let k = 0; k < order.length; k++) {
      const b = order[k];
      if (acted[b] !== 0 || !inField(b)) continue;
      if (fieldEnd(c, round)) return;
      fieldAct(c, rng, b);
    }
    fieldEnd(c, round);
    return;
  }
  for (let k = 0; ; k++) {
    if (k > ROUND_GUARD) {
      guard++;
      return;
    }
    if (fieldEnd(c, round)) return;
    const b = nextActor(c, 1 - attacker, jihad, false);
    if (b < 0) return;
    fieldAct(c, rng, b);
  }
}

// === 4.4 storming ============================================================================

/** Returns true when the storm (and the round) is over. */
function stormEnd(c: CrusaderRexCompiled): boolean {
  const besieger = 1 - castleOwner;
  if (castleCount(c) === 0) {
    if (count(c, castleOwner, PENDING) > 0) {
      // the castle is empty but the besieged have reserves coming: control switches (4.4)
      for (let b = 0; b < c.nb; b++) if (loc[b] === STORM) setLoc(c, b, FIELD);
      halfhit = -1;
      attacker = castleOwner;
      castleOwner = besieger;
      return true;
    }
    fell = true; // the castle falls to the storm
    for (let b = 0; b < c.nb; b++) if (loc[b] === STORM) setLoc(c, b, FIELD);
    halfhit = -1;
    return true;
  }
  if (count(c, besieger, STORM) === 0) {
    halfhit = -1; // storming repulsed: the defender recovers the half-hit
    return true;
  }
  return false;
}

function stormRound(c: CrusaderRexCompiled, rng: RngState, jihad: boolean): void {
  const besieger = 1 - castleOwner;
  attacker = besieger; // 4.4: the besieger attacks in a storm
  for (let b = 0; b < c.nb; b++) acted[b] = 0;
  for (let k = 0; ; k++) {
    if (k > ROUND_GUARD) {
      guard++;
      return;
    }
    if (stormEnd(c)) return;
    const b = nextActor(c, castleOwner, jihad, true);
    if (b < 0) return;
    acted[b] = 1;
    if (loc[b] === CASTLE) {
      hitStormers(c, rng, besieger, volley(c, rng, b, false));
    } else {
      // a stormer withdraws to the field (6.62) when the storm is weaker than the double-defended castle
      if (c.withdraw === 1 && stepsAt(c, besieger, STORM) < 2 * stepsAt(c, castleOwner, CASTLE)) {
        setLoc(c, b, FIELD);
        continue;
      }
      hitCastle(c, rng, volley(c, rng, b, false));
    }
  }
}

// === 4.3, 4.5: storm and sally declarations =================================================

function declareStorm(c: CrusaderRexCompiled): boolean {
  const besieger = 1 - castleOwner;
  const storming = count(c, besieger, STORM);
  if (c.storm === 0 && storming === 0) return false;
  // Stronger candidates first, up to the castle limit (6.54).
  const room = c.rating - storming;
  let addSteps = 0;
  for (let k = 0; k < room; k++) {
    let best = -1;
    for (let b = 0; b < c.nb; b++) {
      if (c.side[b] !== besieger || loc[b] !== FIELD || acted[b] === 2) continue;
      if (best < 0 || steps[b] > steps[best]) best = b;
    }
    if (best < 0) break;
    acted[best] = 2; // marked as chosen
    addSteps += steps[best];
  }
  const total = stepsAt(c, besieger, STORM) + addSteps;
  const go = storming > 0 || c.storm === 1 || total >= c.stormRatio * 2 * stepsAt(c, castleOwner, CASTLE);
  for (let b = 0; b < c.nb; b++) {
    if (acted[b] === 2) {
      acted[b] = 0;
      if (go) setLoc(c, b, STORM);
    }
  }
  return count(c, besieger, STORM) > 0;
}

function declareSally(c: CrusaderRexCompiled): boolean {
  if (c.sally === 0 || castleOwner < 0) return false;
  const mine = stepsAt(c, castleOwner, CASTLE) + fieldSteps(c, castleOwner);
  if (stepsAt(c, castleOwner, CASTLE) === 0) return false;
  if (c.sally === 2 && mine < c.sallyRatio * fieldSteps(c, 1 - castleOwner)) return false;
  for (let b = 0; b < c.nb; b++) if (c.side[b] === castleOwner && loc[b] === CASTLE) setLoc(c, b, SALLY);
  return true;
}

// === 4.7 attrition ===========================================================================

function attrition(c: CrusaderRexCompiled, rng: RngState): void {
  for (let b = 0; b < c.nb; b++) {
    if (loc[b] !== CASTLE) continue;
    if (rollDie(rng, 6, 4) <= c.attritionOn) reduce(c, b);
  }
  if (castleCount(c) === 0 && townBlocks(c, 1 - castleOwner) > 0) fell = true;
}

// === one game turn of battle and siege (6.5 pseudo-code) ====================================

function record(c: CrusaderRexCompiled, acc: Float64Array, turn: number, slot: number): void {
  const base = attrBase(c) + ((turn - 1) * 4 + slot) * 12;
  for (let side = 0; side < 2; side++) {
    let field = 0;
    let castle = 0;
    let reserves = 0;
    for (let b = 0; b < c.nb; b++) {
      if (c.side[b] !== side) continue;
      const l = loc[b];
      if (l === FIELD || l === SALLY || l === STORM) field += steps[b];
      else if (l === CASTLE) castle += steps[b];
      else if (l === PENDING) reserves += steps[b];
    }
    const k = base + side * 6;
    acc[k] += field;
    acc[k + 1] += field * field;
    acc[k + 2] += castle;
    acc[k + 3] += castle * castle;
    acc[k + 4] += reserves;
    acc[k + 5] += reserves * reserves;
  }
}

function battleTurn(c: CrusaderRexCompiled, rng: RngState, acc: Float64Array, turn: number): void {
  const existing = turn > 1 || c.existing === 1;
  slotsUsed[0] = 0;
  slotsUsed[1] = 0;
  let slot = 0;
  let toAttrition = false;
  for (let r = 1; r <= 3; r++) {
    slot = r - 1;
    // Reserves arrive at the start of R2 and R3 (6.41, 6.42) in the first game turn.
    if (turn === 1 && r > 1) {
      const contestedBefore = fieldContested(c);
      for (let b = 0; b < c.nb; b++) if (loc[b] === PENDING && c.arrive[b] === r) setLoc(c, b, FIELD);
      if (!contestedBefore && fieldContested(c) && castleCount(c) > 0) {
        // a relief arrival (3.2, 6.56): any storm is cancelled and the besieged attack (with
        // every besieger storming too: stormers are in the field, inField)
        for (let b = 0; b < c.nb; b++) if (loc[b] === STORM) setLoc(c, b, FIELD);
        halfhit = -1;
        attacker = castleOwner;
      }
    }
    const occupied = castleCount(c) > 0;
    if (occupied) everBesieged = true;
    const besieger = occupied ? 1 - castleOwner : -1;
    if (r === 1 && occupied && !fieldContested(c) && fieldBlocks(c, besieger) === 0 && count(c, besieger, PENDING) > 0) {
      record(c, acc, turn, slot); // R1 skipped: the besieger's main force is not there yet
      continue;
    }
    const jihad = c.jihad === 1 && turn === 1 && r === 1;
    if (fieldContested(c)) {
      rounds++;
      if (occupied && (r > 1 || existing)) {
        // 6.55: the besieged may sally to join the field battle (they lose double defense)
        declareSally(c);
      }
      fieldRound(c, rng, r, jihad && attacker === c.attacker0);
    } else if (occupied && fieldBlocks(c, besieger) > 0) {
      // a siege round (6.53): storm, else sally, else both pass
      if (declareStorm(c)) {
        rounds++;
        stormRound(c, rng, jihad && besieger === c.attacker0);
      } else if (declareSally(c)) {
        rounds++;
        attacker = castleOwner; // a sally into an uncontested field attacks
        fieldRound(c, rng, r, false);
      } else if (count(c, castleOwner, PENDING) > 0 || (c.declinedSallyAttrition === 0 && count(c, besieger, PENDING) > 0)) {
        // both passed, but reserves are coming: on to the next round
      } else {
        toAttrition = true;
      }
    } else if (count(c, 0, PENDING) + count(c, 1, PENDING) === 0) {
      // nobody to fight and nobody coming
      record(c, acc, turn, slot);
      break;
    }
    record(c, acc, turn, slot);
    if (fell || toAttrition) break;
    if (townBlocks(c, 0) === 0 && count(c, 0, PENDING) === 0) break;
    if (townBlocks(c, 1) === 0 && count(c, 1, PENDING) === 0) break;
  }
  for (let s = slot + 1; s < 3; s++) {
    // rounds not fought: the reserves still arrive on time, for the record
    if (turn === 1) for (let b = 0; b < c.nb; b++) if (loc[b] === PENDING && c.arrive[b] <= s + 1) setLoc(c, b, FIELD);
    record(c, acc, turn, s);
  }
  // After R3 (2.8): sallies go back in, stormers come out, the half-hit is cleared.
  for (let b = 0; b < c.nb; b++) {
    if (loc[b] === SALLY) setLoc(c, b, CASTLE);
    else if (loc[b] === STORM) setLoc(c, b, FIELD);
    else if (loc[b] === PENDING) setLoc(c, b, FIELD); // reserves that never reached a played round join at the end
  }
  halfhit = -1;
  if (!fell && fieldContested(c)) {
    // the field attacker retreats every field block; without a slot a block is eliminated
    for (let b = 0; b < c.nb; b++) if (c.side[b] === attacker && loc[b] === FIELD) retreat(c, b);
  }
  const occupied = castleCount(c) > 0;
  if (!fell && occupied) {
    const besieger = 1 - castleOwner;
    if (c.besiegerRetreats === 1 && fieldBlocks(c, besieger) > 0) {
      for (let b = 0; b < c.nb; b++) if (c.side[b] === besieger && loc[b] === FIELD) retreat(c, b);
    }
    if (fieldBlocks(c, besieger) > 0) attrition(c, rng); // 6.57: once per game turn
  }
  record(c, acc, turn, 3);
}

/** The state at the start of a trial: the compiled blocks where they start, roles as given. */
function startTrial(c: CrusaderRexCompiled): void {
  nIn.fill(0);
  for (let b = 0; b < c.nb; b++) {
    steps[b] = c.steps0[b];
    loc[b] = c.loc0[b];
    nIn[c.side[b] * 8 + loc[b]]++;
  }
  attacker = c.attacker0;
  castleOwner = c.castleOwner0;
  // 6.56: a relief force already in the field in R1 attacks the besiegers
  if (c.existing === 1 && castleCount(c) > 0 && fieldContested(c)) attacker = castleOwner;
  halfhit = -1;
}

// === the fast path: a field battle at a town without a castle ===============================
//
// With no castle, no harry or retreat decisions and a deterministic tie-break, a battle is: up
// to three rounds of volleys in the fixed order of 6.2 (knights charging by their policy), each
// hit on the strongest enemy block, reserves arriving in R2/R3, the 6.41 control change, and the attacker's retreat after
// R3. The table path below runs exactly that, drawing each run of one side's volleys as one
// number from its exact distribution (so not the general path's dice): test/crusader-rex.test.ts
// holds the two paths to each other statistically and both to the exact chain. Its
// per-case data (hit orders, per-block int32 arrays) and running totals are here.

/** Per side: its blocks in hit order (most steps first is decided at run time; ties by this order). */
let hitOrder: Int32Array[] = [];
const fieldN = new Int32Array(2); // blocks in the field
const pendN = new Int32Array(2); // blocks on the road
const fieldS = new Int32Array(2); // steps in the field
const pendS = new Int32Array(2); // steps on the road
const totalS = new Int32Array(2); // steps not eliminated (field, road, retreated)
let initialS: Int32Array = new Int32Array(2); // steps at the start
// The compiled case's per-block numbers as int32 arrays (the compiled object holds plain arrays).
let fSide: Int32Array = new Int32Array(0);
let fFp: Int32Array = new Int32Array(0);
let fArrive: Int32Array = new Int32Array(0);
let fLoc0: Int32Array = new Int32Array(0);
let fSteps0: Int32Array = new Int32Array(0);

function buildFast(c: CrusaderRexCompiled): void {
  hitOrder = [0, 1].map((side) => {
    const list: number[] = [];
    for (let b = 0; b < c.nb; b++) if (c.side[b] === side) list.push(b);
    // protect_best: among tied blocks the hit goes to the worse initiative, then firepower
    if (c.tieBreak === 1) list.sort((a, b) => c.letter[b] - c.letter[a] || c.fp[a] - c.fp[b] || a - b);
    return Int32Array.from(list);
  });
  initialS = new Int32Array(2);
  for (let b = 0; b < c.nb; b++) initialS[c.side[b]] += c.steps0[b];
  fSide = Int32Array.from(c.side);
  fFp = Int32Array.from(c.fp, (x) => (x > 6 ? 6 : x));
  fArrive = Int32Array.from(c.arrive);
  fLoc0 = Int32Array.from(c.loc0);
  fSteps0 = Int32Array.from(c.steps0);
}

function recordFast(acc: Float64Array, base: number): void {
  for (let side = 0; side < 2; side++) {
    const k = base + side * 6;
    const f = fieldS[side];
    const r = pendS[side];
    acc[k] += f;
    acc[k + 1] += f * f;
    acc[k + 4] += r;
    acc[k + 5] += r * r;
  }
}

/**
 * The end of a fast-path trial: the end-of-turn record (and the turns after, unchanged), the
 * outcome for the scenario's attacker, rounds, steps lost and survivors (fieldS, pendS and
 * totalS must hold the final state).
 */
function finishFast(c: CrusaderRexCompiled, acc: Float64Array, attrB: number, histN: number, attIn: boolean, defIn: boolean, nRounds: number): void {
  recordFast(acc, attrB + 3 * 12);
  for (let t = 2; t <= c.turns; t++) for (let s2 = 0; s2 < 4; s2++) recordFast(acc, attrB + ((t - 1) * 4 + s2) * 12);
  if (attIn && !defIn) acc[A_ATT_WINS] += 1;
  else if (defIn && !attIn) acc[A_DEF_HOLDS] += 1;
  else if (attIn && defIn) acc[A_CONTINUES] += 1;
  else acc[A_BOTH_GONE] += 1;
  acc[A_ROUNDS] += nRounds;
  acc[A_ROUNDS + 1] += nRounds * nRounds;
  for (let sd = 0; sd < 2; sd++) {
    const lost = initialS[sd] - totalS[sd];
    acc[A_LOST + 2 * sd] += lost;
    acc[A_LOST + 2 * sd + 1] += lost * lost;
    acc[SURV + sd * histN + totalS[sd]] += 1;
  }
}

// === the table path ==========================================================================
//
// For a castle-less field battle without harry or retreat choices (compile sets `fast`) and at most
// 5 blocks a side (larger field battles take the general path), a side's field is one number:
// its blocks' steps as base-5 digits (a block gone, retreated or not yet arrived is a 0).
// Applying h hits to the strongest blocks in turn (6.31, ties in the side's hit order) is one
// look-up in APPLY[state * HS + h]; blocks and steps in the field are look-ups too. A run of
// volleys by one side (buildRuns) is one draw from the exact distribution of its total hits,
// through an alias table: 3 draws a round in the reference battle instead of 8 volleys. A
// charging knight is a run of its own (its sixes are self-hits: runKind).
// Measured (bench/, reference battle): one volley per draw 2.4 M battles/s per thread; runs
// with a scanned cumulative table 4.2 M; runs with alias tables 5.6-6.9 M.

const TABLE_MAX = 5;
/** Hits one run of volleys can score: up to 5 blocks of 4 steps (the APPLY stride). */
const HS = 21;
interface SideTables {
  n: number;
  apply: Int32Array; // [state * HS + hits] -> state
  nz: Uint8Array; // blocks in the field
  sum: Uint8Array; // steps in the field
  max: Uint8Array; // steps of the strongest block in the field
  digit: Uint8Array; // [state * n + j] -> steps of the side's j-th block
}
/** The current case has its tables (a field battle of at most TABLE_MAX blocks a side). */
let tablesReady = false;
// Both sides' tables in one array each, side 1 after side 0 (no branch on the side in the loop):
// digit[dOff[sd] + state * n[sd] + pos], apply[aOff[sd] + state * HS + hits], nz[zOff[sd] + state].
let DIG: Uint8Array = new Uint8Array(0);
let APP: Int32Array = new Int32Array(0);
let NZ: Uint8Array = new Uint8Array(0);
let SUM: Uint8Array = new Uint8Array(0);
let MAXD: Uint8Array = new Uint8Array(0);
let dOff: Int32Array = new Int32Array(2);
let aOff: Int32Array = new Int32Array(2);
let zOff: Int32Array = new Int32Array(2);
let nSide: Int32Array = new Int32Array(2);
/** Field states at the start of a trial (blocks on the road are 0 until they arrive). */
let state0: Int32Array = new Int32Array(2);
let pendN0: Int32Array = new Int32Array(2);
let pendS0: Int32Array = new Int32Array(2);
let bPos: Int32Array = new Int32Array(0);
let bWeight: Int32Array = new Int32Array(0);
// Runs of volleys (see buildRuns): order o's runs are runFrom[o] .. runTo[o] - 1; run k fires
// side runSide[k] and its alias table for firing state x is ALIAS[runBase[k] + x * ALIAS_K ..].
let runFrom: Int32Array = new Int32Array(4);
let runTo: Int32Array = new Int32Array(4);
let runSide: Int32Array = new Int32Array(0);
let runBase: Int32Array = new Int32Array(0);
/**
 * A Knights' Charge (6.32) is a run of its own: kind 1 charges always, kind 2 only when the
 * enemy's strongest field block has fewer steps than the charger (else it fires plainly, from
 * the table at runAlt). A charge's table draws an outcome o = hits * 5 + sixes (CHARGE_HITS,
 * CHARGE_SIXES); the sixes are self-hits on the charger, at digit runPos, weight runW.
 */
let runKind: Int32Array = new Int32Array(0);
let runAlt: Int32Array = new Int32Array(0);
let runW: Int32Array = new Int32Array(0);
let runPos: Int32Array = new Int32Array(0);
const CHARGE_HITS = Int32Array.from({ length: 32 }, (_, o) => (o / 5) | 0);
const CHARGE_SIXES = Int32Array.from({ length: 32 }, (_, o) => o % 5);
let ALIAS: Int32Array = new Int32Array(0);
/** Slots of an alias table (2^5 >= the 21 possible hit counts of a run). */
const ALIAS_K = 32;
const ALIAS_SHIFT = 27; // a draw's top 5 bits pick the slot, its low 27 bits the side
const ALIAS_CAP = 1 << ALIAS_SHIFT;
/** Slot 0's entry when the run has no dice in the field (no draw, no hits): no real entry is 0. */
const NO_DICE = 0;

/**
 * Walker's alias table (Vose's construction, in integers) for hit counts with probabilities
 * `dist`, into out[at .. at + 32): slot i keeps i when the draw's low 27 bits are below its
 * threshold, else gives its alias. Entry = threshold << 5 | alias, a full slot has alias i.
 * Probabilities are rounded to multiples of 2^-32 (the largest absorbs the rounding).
 */
function aliasTable(dist: number[], out: Int32Array, at: number): void {
  const w = new Array<number>(ALIAS_K).fill(0);
  let total = 0;
  let big = 0;
  for (let h = 0; h < dist.length && h < ALIAS_K; h++) {
    w[h] = Math.round(dist[h] * 4294967296);
    total += w[h];
    if (w[h] > w[big]) big = h;
  }
  w[big] += 4294967296 - total;
  if (dist.length === 1) {
    out[at] = NO_DICE;
    for (let i = 1; i < ALIAS_K; i++) out[at + i] = 0; // never drawn
    return;
  }
  const small: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < ALIAS_K; i++) (w[i] < ALIAS_CAP ? small : large).push(i);
  // A full slot keeps i whatever the draw: threshold 2^27 - 1 and alias i. (So no entry is 0,
  // NO_DICE: a slot below full has an alias other than itself.)
  for (let i = 0; i < ALIAS_K; i++) out[at + i] = ((ALIAS_CAP - 1) * 32 + i) | 0;
  while (small.length > 0 && large.length > 0) {
    const sI = small.pop()!;
    const lI = large[large.length - 1];
    out[at + sI] = (w[sI] * 32 + lI) | 0;
    w[lI] -= ALIAS_CAP - w[sI];
    if (w[lI] < ALIAS_CAP) {
      large.pop();
      small.push(lI);
    }
  }
}

/**
 * Runs of volleys. In a field battle a side's blocks that fire one after another (a letter
 * group, and the next group of the same side when the enemy has none in between: 6.2) shoot
 * at the same enemy and are not hit in between, so the run's hits are the sum of its volleys
 * (6.31 applies them one at a time to the strongest enemy block: APPLY does that for any sum).
 * For each firing state x of the side, the run's total hits are a sum of binomials B(steps,
 * firepower / 6) over its blocks; ALIAS holds that distribution as an alias table (aliasTable),
 * exact to within 2^-31 per outcome. The general path rolls the same battles one volley at a
 * time (tests hold the two to each other and to the exact chain).
 */
function buildRuns(c: CrusaderRexCompiled, ords: Int32Array[]): void {
  const key = new Map<string, number>();
  const sides: number[] = [];
  const bases: number[] = [];
  const kinds: number[] = [];
  const alts: number[] = [];
  const weights: number[] = [];
  const positions: number[] = [];
  const chunks: Int32Array[] = [];
  let size = 0;
  /** One alias table per firing state of side sd, from that state's outcome distribution. */
  const table = (name: string, sd: number, dist: (digit: (b: number) => number) => number[]): number => {
    let at = key.get(name);
    if (at !== undefined) return at;
    const n = nSide[sd];
    const states = 5 ** n;
    const out = new Int32Array(states * ALIAS_K);
    const digits = DIG.subarray(dOff[sd], dOff[sd] + states * n);
    for (let x = 0; x < states; x++) aliasTable(dist((b) => digits[x * n + bPos[b]]), out, x * ALIAS_K);
    at = size;
    key.set(name, at);
    chunks.push(out);
    size += out.length;
    return at;
  };
  /** Total hits of plain volleys: the sum of Binomial(steps, firepower / 6) over the blocks. */
  const plain = (blocks: number[]) => (digit: (b: number) => number) => {
    let dist = [1];
    for (const b of blocks) {
      const p = fFp[b] / 6;
      for (let j = digit(b); j > 0; j--) dist = dist.map((q, h) => q * (1 - p) + (h > 0 ? dist[h - 1] * p : 0)).concat([dist[dist.length - 1] * p]);
    }
    return dist;
  };
  /** A charge (6.32): firepower + 1, each die a hit, a six (self-hit, unless firepower 6) or a miss. */
  const charge = (b: number) => (digit: (b: number) => number) => {
    const st = digit(b);
    if (st === 0) return [1];
    const f = Math.min(6, fFp[b] + 1);
    const ph = f / 6;
    const ps = f < 6 ? 1 / 6 : 0;
    const fact = (k: number): number => (k <= 1 ? 1 : k * fact(k - 1));
    const dist = new Array<number>(25).fill(0);
    for (let h = 0; h <= st; h++)
      for (let x = 0; h + x <= st; x++) dist[h * 5 + x] = (fact(st) / (fact(h) * fact(x) * fact(st - h - x))) * ph ** h * ps ** x * (1 - ph - ps) ** (st - h - x);
    return dist;
  };
  const charges = (b: number) => c.charge > 0 && c.knight[b] === 1;
  const from: number[] = [];
  const to: number[] = [];
  for (const order of ords) {
    from.push(sides.length);
    let k = 0;
    while (k < order.length) {
      const sd = c.side[order[k]];
      if (charges(order[k])) {
        const b = order[k++];
        sides.push(sd);
        bases.push(table(`c${b}`, sd, charge(b)));
        kinds.push(c.charge);
        alts.push(c.charge === 2 ? table(`${sd}:${b}`, sd, plain([b])) : 0);
        weights.push(bWeight[b]);
        positions.push(bPos[b]);
        continue;
      }
      const blocks: number[] = [];
      while (k < order.length && c.side[order[k]] === sd && !charges(order[k])) blocks.push(order[k++]);
      sides.push(sd);
      bases.push(table(`${sd}:${blocks.join(',')}`, sd, plain(blocks)));
      kinds.push(0);
      alts.push(0);
      weights.push(0);
      positions.push(0);
    }
    to.push(sides.length);
  }
  // Each order's runs are laid out contiguously (a table shared by orders is listed in each).
  runSide = Int32Array.from(sides);
  runBase = Int32Array.from(bases);
  runKind = Int32Array.from(kinds);
  runAlt = Int32Array.from(alts);
  runW = Int32Array.from(weights);
  runPos = Int32Array.from(positions);
  runFrom = Int32Array.from(from);
  runTo = Int32Array.from(to);
  ALIAS = new Int32Array(size);
  let at = 0;
  for (const ch of chunks) {
    ALIAS.set(ch, at);
    at += ch.length;
  }
}

function buildSideTables(n: number, pref: number[]): SideTables {
  const states = 5 ** n;
  const apply = new Int32Array(states * HS);
  const nz = new Uint8Array(states);
  const sum = new Uint8Array(states);
  const max = new Uint8Array(states);
  const digit = new Uint8Array(states * n);
  const d = new Array<number>(n).fill(0);
  for (let x = 0; x < states; x++) {
    let y = x;
    for (let j = 0; j < n; j++) {
      d[j] = y % 5;
      y = (y / 5) | 0;
      digit[x * n + j] = d[j];
      if (d[j] > 0) {
        nz[x]++;
        sum[x] += d[j];
        if (d[j] > max[x]) max[x] = d[j];
      }
    }
    const e = d.slice();
    for (let h = 0; h < HS; h++) {
      if (h > 0) {
        let best = -1;
        for (const j of pref) if (e[j] > 0 && (best < 0 || e[j] > e[best])) best = j;
        if (best >= 0) e[best]--;
      }
      let v = 0;
      for (let j = n - 1; j >= 0; j--) v = v * 5 + e[j];
      apply[x * HS + h] = v;
    }
  }
  return { n, apply, nz, sum, max, digit };
}

/** Two sides' tables in one array, side 1 after side 0. */
function joined<T extends Uint8Array | Int32Array>(a: T, b: T): T {
  const out = new (a.constructor as new (n: number) => T)(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function buildTables(c: CrusaderRexCompiled, ords: Int32Array[]): boolean {
  const perSide = [0, 1].map((sd) => c.side.filter((x) => x === sd).length);
  if (perSide[0] > TABLE_MAX || perSide[1] > TABLE_MAX) return false;
  bPos = new Int32Array(c.nb);
  bWeight = new Int32Array(c.nb);
  const next = [0, 0];
  for (let b = 0; b < c.nb; b++) {
    bPos[b] = next[c.side[b]]++;
    bWeight[b] = 5 ** bPos[b];
  }
  const [t0, t1] = [0, 1].map((sd) => buildSideTables(perSide[sd], Array.from(hitOrder[sd], (b) => bPos[b])));
  DIG = joined(t0.digit, t1.digit);
  APP = joined(t0.apply, t1.apply);
  NZ = joined(t0.nz, t1.nz);
  SUM = joined(t0.sum, t1.sum);
  MAXD = joined(t0.max, t1.max);
  dOff = Int32Array.of(0, t0.digit.length);
  aOff = Int32Array.of(0, t0.apply.length);
  zOff = Int32Array.of(0, t0.nz.length);
  nSide = Int32Array.of(t0.n, t1.n);
  buildRuns(c, ords);
  state0 = new Int32Array(2);
  pendN0 = new Int32Array(2);
  pendS0 = new Int32Array(2);
  for (let b = 0; b < c.nb; b++) {
    const sd = c.side[b];
    if (c.loc0[b] === FIELD) state0[sd] += c.steps0[b] * bWeight[b];
    else {
      pendN0[sd]++;
      pendS0[sd] += c.steps0[b];
    }
  }
  return true;
}

/** Reserves arriving for round r (4: all that are left), into the sides' field states. */
function arriveTable(nb: number, r: number, state: Int32Array): void {
  for (let b = 0; b < nb; b++) {
    if (loc[b] === PENDING && fArrive[b] <= r) {
      loc[b] = FIELD;
      const sd = fSide[b];
      state[sd] += fSteps0[b] * bWeight[b];
      pendN[sd]--;
      pendS[sd] -= fSteps0[b];
    }
  }
}

function runFieldTable(c: CrusaderRexCompiled, stream: RngState, trials: number, acc: Float64Array): void {
  const rng = TRIAL;
  const nb = c.nb;
  const histN = maxAll(c) + 1;
  const attrB = attrBase(c);
  const side = fSide;
  const jihad = c.jihad;
  const attacker0 = c.attacker0;
  const controlAny = c.controlChangeAnyRound;
  const state = fieldN; // reused: the two sides' field states
  const z1 = zOff[1];
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    state[0] = state0[0];
    state[1] = state0[1];
    pendN[0] = pendN0[0];
    pendN[1] = pendN0[1];
    pendS[0] = pendS0[0];
    pendS[1] = pendS0[1];
    if (pendN[0] + pendN[1] > 0) for (let b = 0; b < nb; b++) loc[b] = fLoc0[b];
    let att = attacker0;
    let nRounds = 0;
    let slot = 0;
    for (let r = 1; r <= 3; r++) {
      slot = r - 1;
      if (r > 1 && pendN[0] + pendN[1] > 0) arriveTable(nb, r, state);
      if (NZ[state[0]] > 0 && NZ[z1 + state[1]] > 0) {
        nRounds++;
        const o = (1 - att) * 2 + (jihad === 1 && r === 1 && att === attacker0 ? 1 : 0);
        const end = runTo[o];
        for (let k = runFrom[o]; k < end; k++) {
          const sd = runSide[k];
          const en = 1 - sd;
          const se = state[en];
          if (NZ[zOff[en] + se] === 0) break;
          let base = runBase[k] + state[sd] * ALIAS_K;
          let kind = runKind[k];
          if (kind === 2 && MAXD[zOff[en] + se] >= DIG[dOff[sd] + state[sd] * nSide[sd] + runPos[k]]) {
            base = runAlt[k] + state[sd] * ALIAS_K; // the enemy's strongest is not weaker: no charge
            kind = 0;
          }
          if (ALIAS[base] === NO_DICE) continue; // nobody of the run in the field
          const u = nextI32(rng);
          const i = u >>> ALIAS_SHIFT;
          const e = ALIAS[base + i];
          let h = (u & (ALIAS_CAP - 1)) < e >>> 5 ? i : e & 31;
          if (kind !== 0) {
            state[sd] -= CHARGE_SIXES[h] * runW[k]; // 6.32: each six a step off the charger
            h = CHARGE_HITS[h];
          }
          state[en] = APP[aOff[en] + se * HS + h];
        }
        const def = 1 - att;
        if (NZ[zOff[def] + state[def]] === 0 && NZ[zOff[att] + state[att]] > 0 && pendN[def] > 0 && (controlAny === 1 || r === 1)) att = def;
      } else if (pendN[0] + pendN[1] === 0) {
        fieldS[0] = SUM[state[0]];
        fieldS[1] = SUM[z1 + state[1]];
        recordFast(acc, attrB + slot * 12);
        break;
      }
      fieldS[0] = SUM[state[0]];
      fieldS[1] = SUM[z1 + state[1]];
      recordFast(acc, attrB + slot * 12);
      if ((NZ[state[0]] === 0 && pendN[0] === 0) || (NZ[z1 + state[1]] === 0 && pendN[1] === 0)) break;
    }
    for (let s2 = slot + 1; s2 < 3; s2++) {
      if (pendN[0] + pendN[1] > 0) arriveTable(nb, s2 + 1, state);
      fieldS[0] = SUM[state[0]];
      fieldS[1] = SUM[z1 + state[1]];
      recordFast(acc, attrB + s2 * 12);
    }
    // after the rounds (2.8): reserves join; the attacker retreats from a contested field
    if (pendN[0] + pendN[1] > 0) arriveTable(nb, 4, state);
    totalS[0] = SUM[state[0]];
    totalS[1] = SUM[z1 + state[1]];
    if (NZ[state[0]] > 0 && NZ[z1 + state[1]] > 0) {
      const slots = c.slots[att];
      let used = 0;
      if (slots >= 0) for (let b = 0; b < nb; b++) {
        if (side[b] !== att) continue;
        const s = DIG[dOff[att] + state[att] * nSide[att] + bPos[b]];
        if (s === 0) continue;
        if (slots < 0 || used < slots) used++; // retreats, keeping its steps
        else totalS[att] -= s; // no road left: eliminated
      }
      state[att] = 0; // nobody of the attacker's is left in the field
    }
    fieldS[0] = SUM[state[0]];
    fieldS[1] = SUM[z1 + state[1]];
    const attIn = NZ[zOff[attacker0] + state[attacker0]] > 0;
    const defIn = NZ[zOff[1 - attacker0] + state[1 - attacker0]] > 0;
    finishFast(c, acc, attrB, histN, attIn, defIn, nRounds);
  }
  acc[0] += trials;
}

/** Force the general path (tests compare it with the table path). */
let forceGeneral = false;

export function runCrusaderRex(c: CrusaderRexCompiled, stream: RngState, trials: number, acc: Float64Array): void {
  const rng = TRIAL;
  ensure(c);
  if (c.fast === 1 && !forceGeneral && tablesReady) {
    runFieldTable(c, stream, trials, acc);
    return;
  }
  const histN = maxAll(c) + 1;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    startTrial(c);
    fell = false;
    lifted = false;
    rounds = 0;
    guard = 0;
    everBesieged = false;
    let turn = 1;
    for (; turn <= c.turns; turn++) {
      battleTurn(c, rng, acc, turn);
      const a = townBlocks(c, 0) > 0;
      const d = townBlocks(c, 1) > 0;
      if (!(a && d) || fell) break;
    }
    for (let t = turn + 1; t <= c.turns; t++) for (let s = 0; s < 4; s++) record(c, acc, t, s);
    if (guard > 0) acc[A_GUARD] += 1; // counted, not hidden (docs/architecture.md "Kernel")
    // Outcome, for the scenario's attacker (the besieger of an existing siege).
    const att = c.attacker0;
    const attIn = townBlocks(c, att) > 0;
    const defIn = townBlocks(c, 1 - att) > 0;
    if (attIn && !defIn) acc[A_ATT_WINS] += 1;
    else if (defIn && !attIn) acc[A_DEF_HOLDS] += 1;
    else if (attIn && defIn) acc[A_CONTINUES] += 1;
    else acc[A_BOTH_GONE] += 1;
    if (fell) acc[A_FALLS] += 1;
    if (everBesieged && castleCount(c) > 0 && fieldBlocks(c, 1 - castleOwner) === 0) lifted = true;
    if (lifted) acc[A_LIFTED] += 1;
    acc[A_ROUNDS] += rounds;
    acc[A_ROUNDS + 1] += rounds * rounds;
    for (let side = 0; side < 2; side++) {
      let lost = 0;
      let left = 0;
      for (let b = 0; b < c.nb; b++) {
        if (c.side[b] !== side) continue;
        lost += c.steps0[b] - steps[b];
        left += steps[b];
      }
      acc[A_LOST + 2 * side] += lost;
      acc[A_LOST + 2 * side + 1] += lost * lost;
      acc[SURV + side * histN + left] += 1;
    }
  }
  acc[0] += trials;
}

export const crusaderRexKernel: Kernel<CrusaderRexCompiled> = {
  run: runCrusaderRex,
  accLength: accLengthCrusaderRex,
};

/** Test hooks: one trial's starting state, and single rules steps on it. */
export const _internals = {
  start(c: CrusaderRexCompiled): void {
    ensure(c);
    startTrial(c);
  },
  steps: () => steps,
  hitCastle,
  buildOrders,
  aliasTable,
  setForceGeneral(on: boolean): void {
    forceGeneral = on;
  },
};
