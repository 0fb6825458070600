/**
 * Cry Havoc / Siege kernels (docs/rules/cry-havoc.md): repeated melee, missile fire, battering,
 * fire and healing, one compiled `kind` each. Allocation-free: integer state in locals and a
 * few typed arrays made once per compiled case.
 *
 * Accumulator layouts ([0] is always the trial count):
 *  melee     [1] defender killed [2] an attacker killed [3] cap reached [4] no attack possible
 *            [5] Σ turns [6] Σ turns² (over decided trials)
 *            [7 + (t - 1) * 16 + k] results in turn t: k = code on the foot table (0..6),
 *            or 7 + code on the mounted table (0..8)
 *  missile   [1] killed [2] Σ turn of the kill [3] Σ² [4] ever wounded or stunned
 *            [5 + k] first shot of the first shooter: k = its code on the table the target
 *            starts on (foot 0..3, mounted 0..6)
 *            [12 + t - 1] killed in turn t
 *  battering [1] breached [2] Σ day [3] Σ day² [4] Σ points lost [5] Σ² [6] Σ engines out [7] Σ²
 *            [8 + d - 1] breached on day d
 *  fire      [1] ever ignited [2] burning at the end [3] Σ turns burning [4] Σ²
 *            [5 + t - 1] burning at the end of turn t
 *  healing   [1] healed [2] out for the scenario [3] died [4] Σ days [5] Σ days²
 *            [6 + d - 1] healed on day d, d = 1..min(horizon_days, maxHealDay): the curve's
 *            days (a wound healed later counts in [1], [4] and [5] only)
 *
 * Codes of a traced trial (Trace.codes; the groups are summarize.ts's pairedGroupsCryHavoc):
 *  melee     [0] how it ended: 0 cap reached, 1 defender killed, 2 an attacker killed, 3 no
 *            attack possible; [1] the turn-1 roll's slot in the turn's 16 (k, or 7 + k on the
 *            mounted table), M_FIRST_NONE when turn 1 allowed no attack
 *  missile   [0] the first shot's code on the table the target starts on, S_SHOT_NONE if none
 *  healing   [0] 1 healed, 2 out for the scenario, 3 died, 0 none of them
 */
import { nextTrialState, type RngState } from '../../engine/rng.js';
import { rollDie } from '../../engine/dice.js';
import { writeTrace } from '../trace.js';
import type { Kernel, Trace } from '../types.js';
import { BATTERING_COLUMNS, HEALING_CROISADES_REROLL_TURNS } from './tables.js';
import { K_BATTERING, K_FIRE, K_HEALING, K_MELEE, K_MISSILE, type CryHavocCompiled } from './compile.js';

/** The current trial's generator state, drawn from the chunk's stream at each trial's start. */
const TRIAL: RngState = new Int32Array(4);

export const M_BY_TURN = 7;
export const M_SLOTS = 16;
export const S_FIRST = 5;
export const S_BY_TURN = 12;
export const B_BY_DAY = 8;
export const F_BY_TURN = 5;
export const H_BY_DAY = 6;
/** Melee: the code of a trial with no turn-1 roll (turn 1 allowed no attack); codes below it are turn-1 slots. */
export const M_FIRST_NONE = M_SLOTS;
/** Missile: the code of a trial with no first shot; codes below it are results on the target's starting table (at most 7). */
export const S_SHOT_NONE = S_BY_TURN - S_FIRST;

/** Latest day a healing roll can give. */
export function maxHealDay(c: CryHavocCompiled): number {
  return Math.max(10, HEALING_CROISADES_REROLL_TURNS * c.turnDays, 3 * c.turnDays);
}

/** The days of the healing curve: up to the horizon, and no further than a roll can give. */
export function healCurveDays(c: CryHavocCompiled): number {
  return Math.min(c.horizon, maxHealDay(c));
}

export function accLengthCryHavoc(c: CryHavocCompiled): number {
  switch (c.kind) {
    case K_MELEE:
      return M_BY_TURN + c.turns * M_SLOTS;
    case K_MISSILE:
      return S_BY_TURN + c.turns;
    case K_BATTERING:
      return B_BY_DAY + c.days;
    case K_FIRE:
      return F_BY_TURN + c.turns;
    default:
      return H_BY_DAY + healCurveDays(c);
  }
}

let sized: CryHavocCompiled | null = null;
let attState = new Int32Array(0); // 0 healthy, 1 wounded, 2 dead
let engines = new Int32Array(0);

function ensure(c: CryHavocCompiled): void {
  if (sized === c) return;
  sized = c;
  if (attState.length < c.nAtt) attState = new Int32Array(c.nAtt);
  if (engines.length < c.enginePoints.length) engines = new Int32Array(c.enginePoints.length);
}

// === 1.6 melee ==============================================================================

/** Wound an attacker: the healthy one with the lowest printed attack, ties to the first listed, else the wounded one with the lowest wounded attack (1.6 step 5, siegesim's reading). Returns true if he dies. */
function woundOneAttacker(c: CryHavocCompiled): boolean {
  let pick = -1;
  for (let i = 0; i < c.nAtt; i++) {
    if (attState[i] !== 0) continue;
    if (pick < 0 || c.attH[i] < c.attH[pick]) pick = i;
  }
  if (pick < 0) {
    for (let i = 0; i < c.nAtt; i++) if (attState[i] === 1 && (pick < 0 || c.attW[i] < c.attW[pick])) pick = i;
  }
  if (pick < 0) return false;
  attState[pick]++; // wounded twice = dead (death by accumulation)
  return attState[pick] === 2;
}

function woundAttackers(c: CryHavocCompiled, all: boolean): boolean {
  if (!all) return woundOneAttacker(c);
  let died = false;
  for (let i = 0; i < c.nAtt; i++) {
    if (attState[i] === 2) continue;
    attState[i]++;
    if (attState[i] === 2) died = true;
  }
  return died;
}

function runMelee(c: CryHavocCompiled, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  const rng = TRIAL;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    for (let a = 0; a < c.nAtt; a++) attState[a] = c.attState0[a];
    let wounded = c.defState0; // defender: 0 healthy, 1 wounded
    let stunned = 0; // turns of stun left
    let mounted = c.defMounted0;
    let defDead = false;
    let attDead = false;
    let end = 0; // 1 defender killed, 2 attacker killed, 3 no attack
    let first = M_FIRST_NONE; // the turn-1 roll's slot in its turn
    let t = 1;
    for (; t <= c.turns; t++) {
      // 1.6 step 2: odds from current values
      let sum = 0;
      let alive = 0;
      for (let a = 0; a < c.nAtt; a++) {
        if (attState[a] === 2) continue;
        sum += attState[a] === 1 ? c.attW[a] : c.attH[a];
        alive++;
      }
      const woundedDef = wounded === 1 || (stunned > 0 && c.stunnedDefenceWounded === 1);
      const defence = mounted === 1 ? (woundedDef ? c.defW : c.defH) : woundedDef ? c.dismW : c.dismH;
      let odds = defence > 0 ? (sum / defence) | 0 : 12;
      if (odds < 1) {
        if (c.oddsBelowOneNoAttack === 1) {
          end = 3;
          break;
        }
        odds = 1;
      }
      if (odds > 12) odds = 12;
      // 1.3: terrain shift, and one more column for several attackers (foot table as printed)
      let col = odds + c.terrainShift + (alive > 1 && (mounted === 0 || c.multiBoth === 1) ? 1 : 0);
      if (col < 1) {
        if (c.shiftBelowOneNoAttack === 1) {
          end = 3;
          break;
        }
        col = 1;
      }
      if (col > 12) col = 12;
      const roll = rollDie(rng, 10, c.t10);
      const code = mounted === 1 ? c.meleeMounted[(roll - 1) * 12 + col - 1] : c.meleeFoot[(roll - 1) * 12 + col - 1];
      const k = mounted === 1 ? 7 + code : code;
      acc[M_BY_TURN + (t - 1) * M_SLOTS + k] += 1;
      if (t === 1) first = k;
      // 1.6 step 5: apply. Letters A-C mean the same on both tables.
      if (code === 1) attDead = woundAttackers(c, c.woundAll === 1);
      else if (code === 2) {
        if (c.retreatBlocked === 1) attDead = woundAttackers(c, true); // a blocked retreat wounds
      } else if (code === 3) {
        if (stunned > 0) defDead = true; // a stunned character forced to retreat dies
        else if (c.retreatBlocked === 1) {
          if (wounded === 1) defDead = true;
          else wounded = 1;
        }
      } else if (mounted === 0) {
        if (code === 4 || code === 5) {
          // stunned or wounded: death if already wounded or stunned
          if (wounded === 1 || stunned > 0) defDead = true;
          else if (code === 4) stunned = 1 + c.stunLasts;
          else wounded = 1;
        } else if (code === 6) defDead = true;
      } else {
        if (code === 4) {
          mounted = 0; // horse killed, rider stunned and dismounted
          if (wounded === 1 || stunned > 0) defDead = true;
          else stunned = 1 + c.stunLasts;
        } else if (code === 5 || code === 6) {
          if (code === 6) mounted = 0; // F: horse killed, rider wounded and dismounted
          if (wounded === 1 || stunned > 0) defDead = true;
          else wounded = 1;
        } else if (code >= 7) defDead = true; // G, H
      }
      if (defDead) {
        end = 1;
        break;
      }
      if (attDead) {
        end = 2;
        break;
      }
      // 1.1 DEFAULT: the stun wears off at the end of the defender's own next turn
      if (stunned > 0) stunned--;
    }
    if (end === 1 || end === 2) {
      acc[end] += 1;
      acc[5] += t;
      acc[6] += t * t;
    } else if (end === 3) acc[4] += 1;
    else acc[3] += 1;
    if (trace !== undefined) {
      writeTrace(trace, i, acc);
      const codes = trace.codes;
      if (codes !== undefined) {
        codes[2 * i] = end;
        codes[2 * i + 1] = first;
      }
    }
  }
}

// === 1.4-1.5 missile fire ==================================================================

function runMissile(c: CryHavocCompiled, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  const rng = TRIAL;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    let mounted = c.targetMounted0;
    let wounded = c.targetState0;
    let stunned = 0;
    let dead = false;
    let hurt = wounded === 1;
    let shot = S_SHOT_NONE; // the first shot's code
    let t = 1;
    for (; t <= c.turns && !dead; t++) {
      for (let s = 0; s < c.nShoot && !dead; s++) {
        const roll = rollDie(rng, 10, c.t10);
        let line = roll + c.shootAdd[s];
        let code: number;
        if (mounted === 1) {
          if (line > 8) line = 8;
          code = c.missileMounted[(line - 1) * 3 + c.coverMounted];
        } else {
          line += c.dismountedKnight; // +1 against a dismounted knight, foot table only
          if (line > 10) line = 10;
          code = c.missileFoot[(line - 1) * 4 + c.coverFoot];
        }
        if (t === 1 && s === 0) {
          acc[S_FIRST + code] += 1; // on the table the target starts on
          shot = code;
        }
        if (code === 0) continue;
        if (code === 1) {
          // retreat (2 or 4 hexes): fatal when stunned; wounds when blocked
          if (stunned > 0) dead = true;
          else if (c.retreatBlocked === 1) {
            if (wounded === 1) dead = true;
            else wounded = 1;
          }
        } else if (mounted === 0) {
          if (code === 2) {
            if (wounded === 1 || stunned > 0) dead = true;
            else wounded = 1;
          } else dead = true; // C killed
        } else if (code === 2) {
          // B: rider stunned and dismounted (horse killed; Croisades: horse unhurt)
          mounted = 0;
          if (wounded === 1 || stunned > 0) dead = true;
          else stunned = 1 + c.stunLasts;
        } else if (code === 3 || code === 4) {
          // C: rider wounded and dismounted (Croisades: stays mounted); D: also the horse killed
          if (code === 4 || c.errata === 0) mounted = 0;
          if (wounded === 1 || stunned > 0) dead = true;
          else wounded = 1;
        } else dead = true; // E, F
        if (wounded === 1 || stunned > 0) hurt = true;
      }
      if (dead) {
        acc[1] += 1;
        acc[2] += t;
        acc[3] += t * t;
        acc[S_BY_TURN + t - 1] += 1;
        break;
      }
      if (stunned > 0) stunned--;
    }
    if (hurt) acc[4] += 1;
    if (trace !== undefined) {
      writeTrace(trace, i, acc);
      if (trace.codes !== undefined) trace.codes[i] = shot;
    }
  }
}

// === 1.7 battering ==========================================================================

function runBattering(c: CryHavocCompiled, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  const rng = TRIAL;
  const nEng = c.enginePoints.length;
  const ramPoints = 9 * c.rams;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    let pts = 0;
    for (let e = 0; e < nEng; e++) {
      engines[e] = c.enginePoints[e];
      pts += engines[e];
    }
    const start = pts;
    let d = 0;
    let day = 1;
    let breached = false;
    for (; day <= c.days && !breached; day++) {
      for (let k = 0; k < c.rollsPerDay; k++) {
        const total = ramPoints + pts;
        // DEFAULT 1.7: the largest column not above the total; nothing to roll below 1 point
        let col = -1;
        for (let j = 0; j < 5; j++) if (total >= BATTERING_COLUMNS[j]) col = j;
        if (col < 0) break;
        const cell = (rollDie(rng, 10, c.t10) - 1) * 5 + col;
        if (c.batterD[cell] === 1) d++;
        let lose = c.batterC[cell];
        // C results take points from non-ram engines, the owner's choice (policy); never from rams
        while (lose > 0 && pts > 0) {
          let pick = -1;
          for (let e = 0; e < nEng; e++) {
            if (engines[e] === 0) continue;
            if (pick < 0 || (c.lossesLargestFirst === 1 ? engines[e] > engines[pick] : engines[e] < engines[pick])) pick = e;
          }
          engines[pick]--;
          pts--;
          lose--;
        }
        if (d >= c.dNeeded) {
          breached = true;
          break;
        }
      }
      if (breached) break;
    }
    if (breached) {
      acc[1] += 1;
      acc[2] += day;
      acc[3] += day * day;
      acc[B_BY_DAY + day - 1] += 1;
    }
    const lost = start - pts;
    let out = 0;
    for (let e = 0; e < nEng; e++) if (engines[e] === 0) out++;
    acc[4] += lost;
    acc[5] += lost * lost;
    acc[6] += out;
    acc[7] += out * out;
    if (trace !== undefined) writeTrace(trace, i, acc);
  }
}

// === 1.9 fire ================================================================================

function runFire(c: CryHavocCompiled, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  const rng = TRIAL;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    let burning = 0; // 0 not burning, 1 set by hand or oil, 2 by fire arrows
    let ever = false;
    let turnsBurning = 0;
    for (let t = 1; t <= c.turns; t++) {
      let fresh = false;
      if (burning === 0) {
        for (let a = 0; a < c.attempts; a++) {
          if (c.ignite[rollDie(rng, 10, c.t10) - 1] === 1) {
            burning = c.arrowFire === 1 ? 2 : 1;
            ever = true;
            fresh = true;
            break;
          }
        }
      }
      if (burning > 0 && (c.sameTurn === 1 || !fresh)) {
        for (let a = 0; a < c.extAttempts; a++) {
          const x = c.extinguish[rollDie(rng, 10, c.t10) - 1];
          if (x === 1 || (x === 2 && burning === 2)) {
            burning = 0; // D: every fire out; DA: only a fire started by arrows
            break;
          }
        }
      }
      if (burning > 0) {
        turnsBurning++;
        acc[F_BY_TURN + t - 1] += 1;
      }
    }
    if (ever) acc[1] += 1;
    if (burning > 0) acc[2] += 1;
    acc[3] += turnsBurning;
    acc[4] += turnsBurning * turnsBurning;
    if (trace !== undefined) writeTrace(trace, i, acc);
  }
}

// === 1.8 healing =============================================================================

function runHealing(c: CryHavocCompiled, stream: RngState, trials: number, acc: Float64Array, trace: Trace | undefined): void {
  const rng = TRIAL;
  for (let i = 0; i < trials; i++) {
    nextTrialState(stream, rng); // this trial's own stream (engine/rng.ts)
    let days = 0; // 0: not healed (several months, or died)
    let end = 0; // the slot counted: 1 healed, 2 out for the scenario, 3 died
    if (c.croisades === 0) {
      days = c.siegeDays[rollDie(rng, 10, c.t10) - 1]; // 0: several months
      if (days === 0) {
        acc[2] += 1;
        end = 2;
      }
    } else {
      const turns = c.croisadesTurns[rollDie(rng, 6, c.t6) - 1];
      if (turns !== 0) days = turns * c.turnDays;
      // 6: roll again, 1-2 dies, 3-6 heals after 5 strategic turns
      else if (rollDie(rng, 6, c.t6) <= 2) {
        acc[3] += 1;
        end = 3;
      } else days = HEALING_CROISADES_REROLL_TURNS * c.turnDays;
    }
    if (days > 0) {
      acc[1] += 1;
      end = 1;
      acc[4] += days;
      acc[5] += days * days;
      if (days <= c.horizon) acc[H_BY_DAY + days - 1] += 1;
    }
    if (trace !== undefined) {
      writeTrace(trace, i, acc);
      if (trace.codes !== undefined) trace.codes[i] = end;
    }
  }
}

export function runCryHavoc(c: CryHavocCompiled, stream: RngState, trials: number, acc: Float64Array, trace?: Trace): void {
  ensure(c);
  if (c.kind === K_MELEE) runMelee(c, stream, trials, acc, trace);
  else if (c.kind === K_MISSILE) runMissile(c, stream, trials, acc, trace);
  else if (c.kind === K_BATTERING) runBattering(c, stream, trials, acc, trace);
  else if (c.kind === K_FIRE) runFire(c, stream, trials, acc, trace);
  else if (c.kind === K_HEALING) runHealing(c, stream, trials, acc, trace);
  acc[0] += trials;
}

export const cryHavocKernel: Kernel<CryHavocCompiled> = {
  run: runCryHavoc,
  accLength: accLengthCryHavoc,
};
