/**
 * The Crusader Rex field run path: a field battle at a town without a castle, with no harry or
 * retreat choices, a fixed tie-break and the listed firing order, or a strongest-first order
 * that cannot change the outcome (fieldPathApplies, order.ts fireOrderMatters), at most
 * TABLE_MAX blocks a side, that the closed field path (closed-field-path.ts) does not take:
 * reserves on the road (arrivals, the 6.41 control change) or knights that charge. Each run of
 * one side's volleys is one alias draw, as in the table path (table-path.ts), with only the
 * field to track: 1.1-1.3x the table path on these battles (CPU-time pairs). Its dice are its
 * own (other tables and runs than the table path's). The volley path (volley-path.ts) runs
 * the same battles volley by volley; the tests hold this path to it and to the exact chain.
 * Allocation-free: the per-case tables are made once (buildFieldTables) and swapped in
 * (useFieldTables).
 */
import { cached } from './cache.js';
import { nextI32, nextTrialState, type RngState } from '../../engine/rng.js';
import { writeTrace } from '../trace.js';
import type { Trace } from '../types.js';
import { FIELD, PENDING, type CrusaderRexCompiled } from './compile.js';
import { fireOrderMatters } from './order.js';
import { chargeOutcomes, joined, runDists, sideTables } from './state-tables.js';
import { A_ATT_WINS, A_BOTH_GONE, A_CONTINUES, A_DEF_HOLDS, A_LOST, A_ROUNDS, OUTCOME_W, SURV, attrBase, maxAll, setOutcomes } from './layout.js';

// === a field battle at a town without a castle =================================================
//
// With no castle, no harry or retreat decisions and a deterministic tie-break, a battle is: up
// to three rounds of volleys in the fixed order of 6.2 (knights charging by their policy), each
// hit on the strongest enemy block, reserves arriving in R2/R3, the 6.41 control change, and the attacker's retreat after
// R3. The field path below runs exactly that, drawing each run of one side's volleys as one
// number from its exact distribution (so not the general path's dice): test/crusader-rex.test.ts
// holds the two paths to each other statistically and both to the exact chain. Its
// per-case data (hit orders, per-block int32 arrays) and running totals are here.

// The case's data and the running totals are module `var`s, not `let`s, as in table-path.ts: a read of
// a module-level `let` is checked for its temporal dead zone (dropping the checks: ~2-3% here).
/** Per side: its blocks in hit order (most steps first is decided at run time; ties by this order). */
var hitOrder: Int32Array[] = [];
const fieldN = new Int32Array(2); // blocks in the field
const pendN = new Int32Array(2); // blocks on the road
const fieldS = new Int32Array(2); // steps in the field
const pendS = new Int32Array(2); // steps on the road
const totalS = new Int32Array(2); // steps not eliminated (field, road, retreated)
var initialS: Int32Array = new Int32Array(2); // steps at the start
// The compiled case's per-block numbers as int32 arrays (the compiled object holds plain arrays).
var fSide: Int32Array = new Int32Array(0);
var fFp: Int32Array = new Int32Array(0);
var fArrive: Int32Array = new Int32Array(0);
var fLoc0: Int32Array = new Int32Array(0);
var fSteps0: Int32Array = new Int32Array(0);
/** Where each block is: FIELD or PENDING (on the road), for the reserves' arrival. */
var loc: Int32Array = new Int32Array(0);

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

// === the tables ==============================================================================
//
// For a castle-less field battle without harry or retreat choices (fieldPathApplies) and at most
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
// Both sides' state tables (state-tables.ts' sideTables) in one array each, side 1 after side 0 (no
// branch on the side in the loop):
// digit[dOff[sd] + state * n[sd] + pos], apply[aOff[sd] + state * HS + hits], nz[zOff[sd] + state].
var DIG: Uint8Array = new Uint8Array(0);
var APP: Int32Array = new Int32Array(0);
var NZ: Uint8Array = new Uint8Array(0);
var SUM: Uint8Array = new Uint8Array(0);
var MAXD: Uint8Array = new Uint8Array(0);
var dOff: Int32Array = new Int32Array(2);
var aOff: Int32Array = new Int32Array(2);
var zOff: Int32Array = new Int32Array(2);
var nSide: Int32Array = new Int32Array(2);
/** Field states at the start of a trial (blocks on the road are 0 until they arrive). */
var state0: Int32Array = new Int32Array(2);
var pendN0: Int32Array = new Int32Array(2);
var pendS0: Int32Array = new Int32Array(2);
var bPos: Int32Array = new Int32Array(0);
var bWeight: Int32Array = new Int32Array(0);
// Runs of volleys (see buildRuns): order o's runs are runFrom[o] .. runTo[o] - 1; run k fires
// side runSide[k] and its alias table for firing state x is ALIAS[runBase[k] + x * ALIAS_K ..].
var runFrom: Int32Array = new Int32Array(4);
var runTo: Int32Array = new Int32Array(4);
var runSide: Int32Array = new Int32Array(0);
var runBase: Int32Array = new Int32Array(0);
/**
 * A Knights' Charge (6.32) is a run of its own: kind 1 charges always, kind 2 only when the
 * enemy's strongest field block has fewer steps than the charger (else it fires plainly, from
 * the table at runAlt). A charge's table draws an outcome o = hits * 5 + sixes (CHARGE_HITS,
 * CHARGE_SIXES); the sixes are self-hits on the charger, at digit runPos, weight runW.
 */
var runKind: Int32Array = new Int32Array(0);
var runAlt: Int32Array = new Int32Array(0);
var runW: Int32Array = new Int32Array(0);
var runPos: Int32Array = new Int32Array(0);
const CHARGE_HITS = Int32Array.from({ length: 32 }, (_, o) => (o / 5) | 0);
const CHARGE_SIXES = Int32Array.from({ length: 32 }, (_, o) => o % 5);
var ALIAS: Int32Array = new Int32Array(0);
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
export function fieldAliasTable(dist: number[], out: Int32Array, at: number): void {
  if (dist.length === 1) {
    out[at] = NO_DICE;
    for (let i = 1; i < ALIAS_K; i++) out[at + i] = 0; // never drawn
    return;
  }
  // (typed scratch arrays and stacks: a case's tables make hundreds of these, mostly in cold code)
  const w = FA_W;
  let total = 0;
  let big = 0;
  for (let h = 0; h < ALIAS_K; h++) {
    w[h] = h < dist.length ? Math.round(dist[h] * 4294967296) : 0;
    total += w[h];
    if (w[h] > w[big]) big = h;
  }
  w[big] += 4294967296 - total;
  const small = FA_SMALL;
  const large = FA_LARGE;
  let ns = 0;
  let nl = 0;
  for (let i = 0; i < ALIAS_K; i++) {
    if (w[i] < ALIAS_CAP) small[ns++] = i;
    else large[nl++] = i;
    // A full slot keeps i whatever the draw: threshold 2^27 - 1 and alias i. (So no entry is 0,
    // NO_DICE: a slot below full has an alias other than itself.)
    out[at + i] = ((ALIAS_CAP - 1) * 32 + i) | 0;
  }
  while (ns > 0 && nl > 0) {
    const sI = small[--ns];
    const lI = large[nl - 1];
    out[at + sI] = (w[sI] * 32 + lI) | 0;
    w[lI] -= ALIAS_CAP - w[sI];
    if (w[lI] < ALIAS_CAP) {
      nl--;
      small[ns++] = lI;
    }
  }
}
/** fieldAliasTable's scratch: the weights, the small and large stacks. */
const FA_W = new Float64Array(ALIAS_K);
const FA_SMALL = new Int32Array(ALIAS_K);
const FA_LARGE = new Int32Array(ALIAS_K);

/**
 * A run's alias tables for each combination of its blocks' steps (ALIAS_K entries each, by the
 * steps in base 5, the first block's most significant; a charge's by the charger's steps), by
 * what they depend on: plain or a charge, and the firepowers in firing order. Made once per
 * worker (the cases of a sweep share them), at most ALIAS_RUNS_KEEP runs (a 5-block run's are 400 kB).
 */
const ALIAS_MADE = new Map<string, Int32Array[]>();
const ALIAS_RUNS_KEEP = 64;

function makeRunAlias(fps: number[], charge: boolean): Int32Array[] {
  const dists = charge ? Array.from({ length: 5 }, (_, s) => chargeOutcomes(s, fps[0])) : runDists(fps);
  const all = new Int32Array(dists.length * ALIAS_K);
  for (let r = 0; r < dists.length; r++) fieldAliasTable(dists[r], all, r * ALIAS_K);
  return dists.map((_, r) => all.subarray(r * ALIAS_K, (r + 1) * ALIAS_K));
}

/**
 * Runs of volleys. In a field battle a side's blocks that fire one after another (a letter
 * group, and the next group of the same side when the enemy has none in between: 6.2) shoot
 * at the same enemy and are not hit in between, so the run's hits are the sum of its volleys
 * (6.31 applies them one at a time to the strongest enemy block: APPLY does that for any sum).
 * For each firing state x of the side, the run's total hits are a sum of binomials B(steps,
 * firepower / 6) over its blocks; ALIAS holds that distribution as an alias table (fieldAliasTable),
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
  /**
   * One alias table per firing state of side sd, from that state's outcome distribution. A
   * run's distribution depends only on the firepower and steps of its own blocks (or of the
   * charger): its 5^len step combinations' tables (5 for a charge) are made together, once per
   * worker (makeRunAlias, ALIAS_MADE: the distributions by runDists' walk, the sums one state at
   * a time made before, so the tables are the same bits), and each state copies its own: a
   * 5-block side has 3125 states, and a string key and a table per state cost each worker
   * 20-40 ms per case before its first battle.
   */
  const table = (name: string, sd: number, blocks: number[], chargeB: number): number => {
    let at = key.get(name);
    if (at !== undefined) return at;
    const n = nSide[sd];
    const states = 5 ** n;
    const out = new Int32Array(states * ALIAS_K);
    const fired = chargeB >= 0 ? [chargeB] : blocks;
    const fps = fired.map((b) => fFp[b]);
    const made = cached(ALIAS_MADE, `${chargeB >= 0 ? 'c' : 'p'}${fps.join(',')}`, () => makeRunAlias(fps, chargeB >= 0), ALIAS_RUNS_KEEP);
    const d0 = dOff[sd];
    for (let x = 0; x < states; x++) {
      let r = 0;
      for (let i = 0; i < fired.length; i++) r = r * 5 + DIG[d0 + x * n + bPos[fired[i]]];
      out.set(made[r], x * ALIAS_K); // (a builtin copy: a loop of ALIAS_K here ran interpreted, before the first battle)
    }
    at = size;
    key.set(name, at);
    chunks.push(out);
    size += out.length;
    return at;
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
        bases.push(table(`c${b}`, sd, [], b));
        kinds.push(c.charge);
        alts.push(c.charge === 2 ? table(`${sd}:${b}`, sd, [b], -1) : 0);
        weights.push(bWeight[b]);
        positions.push(bPos[b]);
        continue;
      }
      const blocks: number[] = [];
      while (k < order.length && c.side[order[k]] === sd && !charges(order[k])) blocks.push(order[k++]);
      sides.push(sd);
      bases.push(table(`${sd}:${blocks.join(',')}`, sd, blocks, -1));
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

function buildTablesInto(c: CrusaderRexCompiled, ords: Int32Array[]): boolean {
  const perSide = [0, 1].map((sd) => c.side.filter((x) => x === sd).length);
  if (perSide[0] > TABLE_MAX || perSide[1] > TABLE_MAX) return false;
  bPos = new Int32Array(c.nb);
  bWeight = new Int32Array(c.nb);
  const next = [0, 0];
  for (let b = 0; b < c.nb; b++) {
    bPos[b] = next[c.side[b]]++;
    bWeight[b] = 5 ** bPos[b];
  }
  // the table path's state tables (state-tables.ts: the same tables, apply as Uint16Array there)
  const [t0, t1] = [0, 1].map((sd) => sideTables(perSide[sd], Array.from(hitOrder[sd], (b) => bPos[b])));
  DIG = joined(t0.digit, t1.digit);
  APP = new Int32Array(t0.apply.length + t1.apply.length);
  APP.set(t0.apply, 0);
  APP.set(t1.apply, t0.apply.length);
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

export function runField(c: CrusaderRexCompiled, rng: RngState, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  const nb = c.nb;
  const histN = maxAll(c) + 1;
  const attrB = attrBase(c);
  const side = fSide;
  const jihad = c.jihad;
  const attacker0 = c.attacker0;
  const controlAny = c.controlChangeAnyRound;
  const state = fieldN; // reused: the two sides' field states
  const z1 = zOff[1];
  // outcome mode (Trace.outcome): a code a trial instead of a row (the case's codes by outcome, made as met)
  const outc = trace?.outcome;
  const w0 = initialS[0] + 1;
  const w1 = initialS[1] + 1;
  if (outc !== undefined && current!.ocDense.length === 0) current!.ocDense = new Int32Array(16 * w0 * w1).fill(-1);
  const dense = current!.ocDense;
  ocTrace = outc !== undefined ? trace : undefined;
  // set before the loop (nothing may follow it); fieldOutcome sets the table again when it grows it
  if (outc !== undefined) setOutcomes(trace!, current!.ocTable, OUTCOME_W);
  acc[0] += trials; // before the loop: nothing may follow it (the Kernel contract, systems/types.ts)
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
    if (outc !== undefined) {
      // the trial's code: its outcome (finishFast's order), rounds and each side's steps lost, by the code it was first met as
      const k = (((attIn ? (defIn ? 2 : 0) : defIn ? 1 : 3) * 4 + nRounds) * w0 + initialS[0] - totalS[0]) * w1 + initialS[1] - totalS[1];
      const d = dense[k];
      outc[i] = d >= 0 ? d : fieldOutcome(k);
    } else if (trace !== undefined) writeTrace(trace, i, acc);
  }
}

/**
 * Outcome mode: the code of a trial whose outcome, rounds and steps lost are k (runField's
 * order), met for the first time in this case: the next code, its row (layout.ts OUTCOME_SLOTS)
 * written into the case's table. Codes keep their meaning for as long as the case's tables live.
 */
function fieldOutcome(k: number): number {
  const t = current!;
  const w1 = initialS[1] + 1;
  const w0 = initialS[0] + 1;
  const lost1 = k % w1;
  const lost0 = Math.floor(k / w1) % w0;
  const rounds = Math.floor(k / (w1 * w0)) % 4;
  const result = Math.floor(k / (w1 * w0 * 4));
  const code = t.ocN++;
  if (t.ocTable.length < t.ocN * OUTCOME_W) {
    const grown = new Int32Array(2 * t.ocN * OUTCOME_W);
    grown.set(t.ocTable);
    t.ocTable = grown;
    ocTrace!.table = grown;
  }
  const o = code * OUTCOME_W;
  t.ocTable[o + result] = 1; // wins, holds, goes on or both gone
  t.ocTable[o + 6] = rounds;
  t.ocTable[o + 7] = lost0;
  t.ocTable[o + 8] = lost1;
  t.ocDense[k] = code;
  return code;
}

/** The field path's data for one compiled case (hit orders, per-block arrays, tables). */
export interface FieldTables {
  hitOrder: Int32Array[];
  initialS: Int32Array;
  fSide: Int32Array;
  fFp: Int32Array;
  fArrive: Int32Array;
  fLoc0: Int32Array;
  fSteps0: Int32Array;
  loc: Int32Array;
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
  /** Outcome mode: each outcome's code (-1: not met yet; empty until the first call in outcome mode) and the rows of the codes met (OUTCOME_W words each). */
  ocDense: Int32Array;
  ocTable: Int32Array;
  ocN: number;
}

/**
 * The field path applies: no castle (town rating 0, so a new battle), no harry or retreat
 * choices, a fixed tie-break, the listed firing order or a strongest-first order that cannot
 * change the outcome (order.ts fireOrderMatters: no charge policy with two knights that may
 * fire in one letter group), at most TABLE_MAX blocks a side.
 */
export function fieldPathApplies(c: CrusaderRexCompiled): boolean {
  const n0 = c.side.filter((s) => s === 0).length;
  const plain = c.rating === 0 && c.existing === 0 && c.tieBreak !== 2 && !fireOrderMatters(c) && c.harry === 0 && c.retreat === 0;
  return plain && n0 <= TABLE_MAX && c.nb - n0 <= TABLE_MAX;
}

/** The field path's data for a case it applies to (fieldPathApplies), over the firing orders. */
export function buildFieldTables(c: CrusaderRexCompiled, ords: Int32Array[]): FieldTables {
  buildFast(c);
  loc = new Int32Array(c.nb);
  if (!buildTablesInto(c, ords)) throw new Error('crusader-rex: the field path does not apply');
  return { hitOrder, initialS, fSide, fFp, fArrive, fLoc0, fSteps0, loc, DIG, APP, NZ, SUM, MAXD, dOff, aOff, zOff, nSide, state0, pendN0, pendS0, bPos, bWeight, runFrom, runTo, runSide, runBase, runKind, runAlt, runW, runPos, ALIAS, ocDense: new Int32Array(0), ocTable: new Int32Array(16 * OUTCOME_W), ocN: 0 };
}

/** The case in use (useFieldTables): its outcome codes. */
var current: FieldTables | null = null;
/** The trace of the call in outcome mode (runField), whose table fieldOutcome replaces when it grows it. */
var ocTrace: Trace | undefined;

/** The case the field path runs next. */
export function useFieldTables(t: FieldTables): void {
  current = t;
  ({ hitOrder, initialS, fSide, fFp, fArrive, fLoc0, fSteps0, loc } = t);
  ({ DIG, APP, NZ, SUM, MAXD, dOff, aOff, zOff, nSide, state0, pendN0, pendS0, bPos, bWeight, runFrom, runTo, runSide, runBase, runKind, runAlt, runW, runPos, ALIAS } = t);
}
