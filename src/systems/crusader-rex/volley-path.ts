/**
 * The Crusader Rex volley path (the general one): one battle location over one or more game turns, block by
 * block, following the v2.0 rules as the Rally the Troops engine resolves them
 * (docs/rules/crusader-rex.md 2-4, 6.5), with every policy and any number of blocks. The table
 * path (table-path.ts) and the field paths run some of the same battles faster; the tests hold the two to each other and
 * to the exact chain (exact.ts).
 *
 * A block's volley is exact and cheap: one unbiased draw d in [0, 6^steps) is the whole roll
 * (its base-6 digits are the dice), and precomputed tables give the hits (die <= firepower)
 * and the sixes (the charge's self-hits) of every d: the same distribution as rolling each die,
 * one draw instead of up to four (test/crusader-rex.test.ts checks the tables die by die).
 * Allocation-free: block state lives in typed arrays grown once.
 */
import { nextTrialState, type RngState } from '../../engine/rng.js';
import { writeTrace } from '../trace.js';
import type { Trace } from '../types.js';
import { rollDie } from '../../engine/dice.js';
import { CASTLE, FIELD, GONE, LEFT, PENDING, SALLY, STORM, type CrusaderRexCompiled } from './compile.js';
import { A_ATT_WINS, A_BOTH_GONE, A_CONTINUES, A_DEF_HOLDS, A_FALLS, A_GUARD, A_LIFTED, A_LOST, A_ROUNDS, SURV, attrBase, maxAll } from './layout.js';

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
 * uncontested field. Counting them is what notices that arrival.)
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
  // Candidates up to the castle limit (6.54): the strongest first, ties in listed order
  // (policy.stormers: strongest), or the first listed (listed).
  const room = c.rating - storming;
  let addSteps = 0;
  for (let k = 0; k < room; k++) {
    let best = -1;
    for (let b = 0; b < c.nb; b++) {
      if (c.side[b] !== besieger || loc[b] !== FIELD || acted[b] === 2) continue;
      if (best < 0 || (c.stormersListed === 0 && steps[b] > steps[best])) best = b;
      if (c.stormersListed === 1) break;
    }
    if (best < 0) break;
    acted[best] = 2; // marked as chosen
    addSteps += steps[best];
  }
  const total = stepsAt(c, besieger, STORM) + addSteps;
  // a storm under way is topped up untested (policy.storm_top_up: always), or by the storm policy's test (retest)
  const go = (storming > 0 && c.stormTopUpRetest === 0) || c.storm === 1 || total >= c.stormRatio * 2 * stepsAt(c, castleOwner, CASTLE);
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

/** The general path: block by block, every rule and policy, any number of blocks. */
export function runGeneral(c: CrusaderRexCompiled, rng: RngState, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  const histN = maxAll(c) + 1;
  acc[0] += trials; // before the loop: nothing may follow it (the Kernel contract, systems/types.ts)
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
    if (trace !== undefined) writeTrace(trace, i, acc);
  }
}

/** The case the general path runs next: its firing orders (order.ts) and each side's blocks. */
export function useGeneral(c: CrusaderRexCompiled, ords: Int32Array[], blocks: Int32Array[]): void {
  if (steps.length < c.nb) {
    steps = new Int32Array(c.nb);
    loc = new Int32Array(c.nb);
    acted = new Int32Array(c.nb);
  }
  orders = ords;
  sideBlocks = blocks;
}

/** Test hooks: one trial's starting state, and single rules steps on it. */
export const _general = { startTrial, steps: () => steps, hitCastle, tables: { HITS, SIXES, POW6 } };
