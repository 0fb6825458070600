/**
 * The fantasy kernel's open field (seed 001, docs/rules/fantasy.md 4.1 OPEN_FIELD_BATTLE): the
 * volleys of phases 2-4 (volley.ts), then the melee of phase 5 round after round; the siege's
 * melee (4.2 step 6) and its full battle after a breach (H21 (b)) are the same phases.
 */
import type { RngState } from '../../engine/rng.js';
import { histBase } from './accumulator.js';
import { allocate } from './allocation.js';
import * as S from './state.js';
import * as AC from './accumulator.js';
import type { FantasyCompiled } from './compile.js';
import { capOutcome, checkEnd, endTrial } from './record.js';
import { countStaying, countType, hpSide, sumDice, sumDice32, type FantasyState } from './state.js';
import { receiveVolley, rollPools, rollVolley } from './volley.js';

// The layout constants this module uses, as its own constants (V8 folds a module's own `const`;
// an imported binding is read and checked at every use), held to their definitions here.
const ALL_GROUPS = 7;
const ALL_TYPES = (1 << 7) - 1;
const P_RANDOM = 3;
const P_RECEIVER = 4;
const A_CAP = 9;
const A_VOLLEY = 10;
const A_VOLLEY2 = 11;
if ([ALL_GROUPS, ALL_TYPES, P_RANDOM, P_RECEIVER, A_CAP, A_VOLLEY, A_VOLLEY2].join() !== [S.ALL_GROUPS, S.ALL_TYPES, S.P_RANDOM, S.P_RECEIVER, AC.A_CAP, AC.A_VOLLEY, AC.A_VOLLEY2].join()) {
  throw new Error('internal: layout constants differ from state.ts and accumulator.ts');
}

// compile.ts's type codes as this module's own constants (state.ts checks them)
const INF = 0;
const CAV = 1;
const ARC = 2;
const MAG = 3;
const CLE = 4;
const CAP = 6;
const NT = 7;

// === 4.1 OPEN_FIELD_BATTLE ===================================================================

/** Phases 2-4 (ranged A, ranged B, charge) of the open field, with the current pools. */
function openFieldVolleys(st: FantasyState, c: FantasyCompiled, rng: RngState, acc: Float64Array, firstPass: boolean): void {
  const attMages = countStaying(st.cnt, 0, MAG, ALL_GROUPS);
  const attArchers = countStaying(st.cnt, 0, ARC, ALL_GROUPS);
  // H9 DEFAULT: the open-field defender reserves dice for the coming charge at lambda per pip.
  let lambda = 0;
  const cav = countType(st.cnt, 0, CAV, ALL_GROUPS);
  const pips = st.pool[5] + 2 * st.pool[6] + 3 * st.pool[7];
  if (c.shield === 0 && cav > 0 && pips > 0) {
    let v = 0;
    let hpTot = 0;
    for (let t = 0; t < NT; t++) {
      const n = countType(st.cnt, 1, t, ALL_GROUPS);
      v += n * c.value[NT + t];
      hpTot += n * c.hp[t];
    }
    lambda = hpTot > 0 ? ((3.5 * cav) / pips) * (v / hpTot) : 0;
  }
  // Phase A: attacker fires.
  st.mageRolls = st.rollsA;
  rollVolley(st, c, rng, attMages, attArchers);
  const MA = st.volleyM;
  const AA = st.volleyA;
  const magesA = st.volleyMages;
  // H6 (b): the defender's volley is rolled from the state before Phase A's casualties.
  let MB = 0;
  let AB = 0;
  let magesB = 0;
  if (c.simultaneousRanged === 1) {
    st.mageRolls = st.rollsB;
    rollVolley(st, c, rng, countStaying(st.cnt, 1, MAG, ALL_GROUPS), countStaying(st.cnt, 1, ARC, ALL_GROUPS));
    MB = st.volleyM;
    AB = st.volleyA;
    magesB = st.volleyMages;
    st.mageRolls = st.rollsA;
  }
  st.volleyMages = magesA;
  st.lambda[0] = lambda;
  const through = receiveVolley(st, c, rng, 1, MA, AA, ALL_TYPES, ALL_GROUPS, true);
  st.lambda[0] = 0;
  if (firstPass) {
    acc[A_VOLLEY] += through;
    acc[A_VOLLEY2] += through * through;
    acc[histBase(c) + (through <= c.maxVolley ? through : c.maxVolley)] += 1;
  }
  // Phase B: defender fires (H6 DEFAULT: survivors only).
  st.mageRolls = st.rollsB;
  if (c.simultaneousRanged === 0) {
    rollVolley(st, c, rng, countStaying(st.cnt, 1, MAG, ALL_GROUPS), countStaying(st.cnt, 1, ARC, ALL_GROUPS));
    MB = st.volleyM;
    AB = st.volleyA;
  } else st.volleyMages = magesB;
  receiveVolley(st, c, rng, 0, MB, AB, ALL_TYPES, ALL_GROUPS, false);
  st.mageRolls = st.rollsA;
  // Phase 4: cavalry charge, attacker only; the defender may shield it.
  const ncav = countType(st.cnt, 0, CAV, ALL_GROUPS);
  if (ncav > 0) {
    const C = sumDice(st, rng, ncav, 6);
    receiveVolley(st, c, rng, 1, 0, C, ALL_TYPES, ALL_GROUPS, false);
  }
}

/** Phase 5 once: both sides roll, then both take their damage (simultaneous). */
export function meleeExchange(st: FantasyState, c: FantasyCompiled, rng: RngState, attGroups: number): void {
  const Ma = meleeTotal(st, c, rng, 0, attGroups);
  const Md = meleeTotal(st, c, rng, 1, ALL_GROUPS);
  receiveMelee(st, c, rng, 1, Ma, ALL_GROUPS);
  receiveMelee(st, c, rng, 0, Md, attGroups);
}

/** An open-field battle from round `start` (1 for the open field; after a breach for H21 (b)). */
export function openField(st: FantasyState, c: FantasyCompiled, rng: RngState, acc: Float64Array, start: number): void {
  rollPools(st, c, rng, false);
  let r = start;
  for (; r <= c.maxRounds; r++) {
    st.recRound = r;
    st.carry[0] = 0;
    st.carry[1] = 0;
    const full = r === start || c.openRounds === 2; // H7 (c): phases 2-5 every round
    if (full) openFieldVolleys(st, c, rng, acc, r === 1 && c.siege === 0);
    if (!checkEnd(st)) meleeExchange(st, c, rng, ALL_GROUPS);
    if (checkEnd(st)) return endTrial(st, r);
    if (c.openRounds === 1) {
      // H7 (b): one pass, then compare survivors
      const ha = hpSide(st.cnt, 0, st.hmax);
      const hd = hpSide(st.cnt, 1, st.hmax);
      st.outcome = ha > hd ? 1 : hd > ha ? 2 : 3;
      return endTrial(st, r);
    }
  }
  st.endRound = c.maxRounds;
  acc[A_CAP] += 1;
  capOutcome(st, c);
}

// === Phase 5: melee =========================================================================

/** Damage with no shields (melee): allocate with the melee policy (H3), carry per H2 (c). */
function receiveMelee(st: FantasyState, c: FantasyCompiled, rng: RngState, s: number, D: number, groupMask: number): void {
  if (c.leftover === 2 && st.carry[s] > 0) {
    D += st.carry[s];
    st.carry[s] = 0;
  }
  const policy = c.meleeAlloc === 0 ? c.alloc : c.meleeAlloc === 1 ? P_RECEIVER : P_RANDOM;
  const left = allocate(st, c, rng, st.cnt, s, D, ALL_TYPES, groupMask, policy);
  if (c.leftover === 2) st.carry[s] += left;
}

/** Melee total of side s's fighters (phase 5): each unit's melee die, plus Might d6 (H23). */
function meleeTotal(st: FantasyState, c: FantasyCompiled, rng: RngState, s: number, groupMask: number): number {
  const might = c.might[s];
  const mightDice = might > 0 && (c.captainUnit === 0 || countStaying(st.cnt, s, CAP, ALL_GROUPS) > 0) ? might : 0;
  if (!st.perDie) {
    // the same dice by size (MELEE_DIE): d6 infantry, cavalry and Might; d3 archers; d2 mages, clerics
    const n6 = countType(st.cnt, s, INF, groupMask) + countType(st.cnt, s, CAV, groupMask) + mightDice;
    const n2 = countStaying(st.cnt, s, MAG, groupMask) + countStaying(st.cnt, s, CLE, groupMask);
    return sumDice(st, rng, n6, 6) + sumDice32(st, rng, countStaying(st.cnt, s, ARC, groupMask), n2);
  }
  let sum = 0;
  for (let t = 0; t < NT; t++) {
    const die = c.meleeDie[t];
    if (die === 0) continue;
    sum += sumDice(st, rng, countType(st.cnt, s, t, groupMask), die);
  }
  return sum + sumDice(st, rng, mightDice, 6);
}
