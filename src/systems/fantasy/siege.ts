/**
 * The fantasy kernel's siege (seed 001, docs/rules/fantasy.md 4.2 SIEGE_ROUND): each round the
 * cleric pools, the attacker's fire at the wall and the defenders, the defender's fire, the
 * climbs, the breach check and the melee (open-field.ts), on the case's FantasyState (state.ts).
 */
import { rollDie } from '../../engine/dice.js';
import type { RngState } from '../../engine/rng.js';

import * as S from './state.js';
import * as AC from './accumulator.js';
import type { FantasyCompiled } from './compile.js';
import { aliasDraw } from './kernel-tables.js';
import { meleeExchange, openField } from './open-field.js';
import { capOutcome, checkEnd, endTrial, noteLoss, noteWall } from './record.js';
import { addCount, countGroups, countStaying, off, sumDice, sumDice32, type FantasyState } from './state.js';
import { pickNoWaste, receiveVolley, rollPools, rollVolley, spendPick } from './volley.js';

// The layout constants this module uses, as its own constants (V8 folds a module's own `const`;
// an imported binding is read and checked at every use), held to their definitions here.
const ALL_GROUPS = 7;
const ALL_TYPES = (1 << 7) - 1;
const TOT = 2 * 3 * 7 * 31;
const TOTG = 2 * 3 * 7 * 31 + 2 * 3 * 7;
const A_BREACH_ROUND = 7;
const A_BREACH_ROUND2 = 8;
const A_BREACHED = 6;
const A_BY_ROUND = 13;
const A_CAP = 9;
const A_WITHDREW = 12;
if ([ALL_GROUPS, ALL_TYPES, TOT, TOTG, A_BREACH_ROUND, A_BREACH_ROUND2, A_BREACHED, A_BY_ROUND, A_CAP, A_WITHDREW].join() !== [S.ALL_GROUPS, S.ALL_TYPES, S.TOT, S.TOTG, AC.A_BREACH_ROUND, AC.A_BREACH_ROUND2, AC.A_BREACHED, AC.A_BY_ROUND, AC.A_CAP, AC.A_WITHDREW].join()) {
  throw new Error('internal: layout constants differ from state.ts and accumulator.ts');
}

// compile.ts's type codes as this module's own constants (state.ts checks them)
const INF = 0;
const CAV = 1;
const ARC = 2;
const MAG = 3;
const ENG = 5;
const NT = 7;

// === 4.2 SIEGE_ROUND =========================================================================

/** Step 4: the attacker's infantry (and cavalry, H18) climb the standing wall (H16, H17). */
function climbs(st: FantasyState, c: FantasyCompiled, rng: RngState): void {
  if (c.climbers === 0) return;
  for (let t = INF; t <= CAV; t++) {
    if (t === CAV && (c.climbers < 2 || c.cavalryClimb === 0)) continue; // policy, H18
    const b0 = off(0, 0, t);
    const b1 = off(0, 1, t);
    const b2 = off(0, 2, t);
    // HP never exceeds the type's full HP, and is below it only where wounds last (H2 (b), H17 (b))
    const top = c.hp[t];
    for (let h = st.wounds ? 1 : top; h <= top; h++) {
      const n = st.cnt[b0 + h];
      if (n === 0) continue;
      if (!st.perDie && c.failedClimb !== 1) {
        // One class at once: successes ~ Binomial(n, p), the lost among the failures ~
        // Binomial(failures, P(2d3 >= h)), the pair in one draw when the case has its table;
        // H17 (b) needs each failure's damage (per die).
        const hi = h < 2 ? 0 : h > 7 ? 5 : h - 2;
        let ok: number;
        let lost: number;
        if (st.climbJoint.length > 0) {
          const code = aliasDraw(rng, st.al, st.climbJoint[hi][n]);
          ok = code & 0xff;
          lost = code >>> 8;
        } else {
          ok = aliasDraw(rng, st.al, st.climbOk[n]);
          lost = aliasDraw(rng, st.al, st.climbDies[hi][n - ok]);
        }
        const out = c.failedClimb === 2 ? n : ok + lost; // H17 (c): the failures may not retry
        st.cnt[b0 + h] -= out;
        st.cnt[TOT + t] -= out;
        st.cnt[TOTG] -= out;
        st.cnt[b1 + h] += ok;
        st.cnt[TOT + NT + t] += ok;
        st.cnt[TOTG + 1] += ok;
        if (c.failedClimb === 2) {
          st.cnt[b2 + h] += n - ok - lost;
          st.cnt[TOT + 2 * NT + t] += n - ok - lost;
          st.cnt[TOTG + 2] += n - ok - lost;
        }
        if (lost > 0) noteLoss(st, 0, t, lost);
        continue;
      }
      for (let i = 0; i < n; i++) {
        const d20 = rollDie(rng, 20, c.t20);
        const ok = c.climbGt === 1 ? d20 > c.dc : d20 >= c.dc; // H16
        if (ok) {
          addCount(st.cnt, b0 + h, -1);
          addCount(st.cnt, b1 + h, 1);
          continue;
        }
        const dmg = rollDie(rng, 3, c.t3) + rollDie(rng, 3, c.t3); // 2d3 on a failed climb
        if (dmg >= h) {
          addCount(st.cnt, b0 + h, -1); // the unit is lost
          noteLoss(st, 0, t, 1);
        } else if (c.failedClimb === 1) {
          st.cnt[b0 + h]--; // H17 (b): the damage stays (same type and group: totals unchanged)
          st.cnt[b0 + h - dmg]++;
        } else if (c.failedClimb === 2) {
          addCount(st.cnt, b0 + h, -1); // H17 (c): may not retry
          addCount(st.cnt, b2 + h, 1);
        } // H17 DEFAULT: no lasting damage
      }
    }
  }
}

/** Step 2: attacker ranged. Engines batter the wall; mages and archers per the fire policy. */
function attackerRanged(st: FantasyState, c: FantasyCompiled, rng: RngState): void {
  let wallUp = st.wallHp > 0;
  let wallDmg = 0;
  if (wallUp) {
    // 2d6 per engine (sumDice's table draw written here: a call fewer a round)
    const n = 2 * countStaying(st.cnt, 0, ENG, ALL_GROUPS);
    if (n > 0) wallDmg += st.perDie ? sumDice(st, rng, n, 6) : aliasDraw(rng, st.al, st.sum6[n]);
  }
  if (wallUp && wallDmg > 0 && c.wallFall === 0) {
    // H28 DEFAULT: "Start with Siege engine" (seed 4.2 step 2): the engines' damage lands before
    // the mages and archers fire, so a wall it brings to 0 is down for their volley too (no
    // dice removed, any target), as it is for the tower bonus, the climbs and the breach check.
    if (c.shieldsVsWall === 1) {
      pickNoWaste(st, 1, wallDmg); // H14 (b): shields meet the engines' damage as it lands
      wallDmg -= spendPick(st, 1);
      if (wallDmg < 0) wallDmg = 0;
    }
    const before = st.wallHp;
    st.wallHp -= wallDmg;
    if (st.wallHp < 0) st.wallHp = 0;
    noteWall(st, before, st.wallHp);
    wallDmg = 0;
    wallUp = st.wallHp > 0;
  }
  const mages = countStaying(st.cnt, 0, MAG, ALL_GROUPS);
  const archers = countStaying(st.cnt, 0, ARC, ALL_GROUPS);
  // How many of each shoot the defenders (the rest shoot the wall), H12.
  let magesD = mages;
  let archersD = archers;
  if (wallUp) {
    if (c.fireSplit === 0) {
      let atWall = c.fire === 1;
      if (c.fire === 2) atWall = wallDmg + 2 * mages + 1.5 * archers >= st.wallHp; // finish_wall
      if (atWall) {
        magesD = 0;
        archersD = 0;
      }
    } else if (c.fireSplit === 1) {
      magesD = Math.round(mages * c.shareDefenders);
      archersD = Math.round(archers * c.shareDefenders);
    } else {
      if (c.mageFire === 1) magesD = 0;
      if (c.archerFire === 1) archersD = 0;
    }
    if (mages > magesD) wallDmg += sumDice(st, rng, mages - magesD, 3);
    if (archers > archersD) wallDmg += sumDice(st, rng, archers - archersD, 2);
    if (c.shieldsVsWall === 1 && wallDmg > 0) {
      pickNoWaste(st, 1, wallDmg); // H14 (b): use it or lose it against the wall
      wallDmg -= spendPick(st, 1);
      if (wallDmg < 0) wallDmg = 0;
    }
    const before = st.wallHp;
    st.wallHp -= wallDmg;
    if (st.wallHp < 0) st.wallHp = 0;
    if (st.wallHp !== before) noteWall(st, before, st.wallHp);
  }
  if (magesD + archersD === 0) return;
  // Fire at the defenders: while the wall stands, remove k dice (H11) and only the units on the
  // wall are legal targets (H13).
  let M = 0;
  let A = 0;
  if (wallUp) {
    const k = c.removeK;
    if (c.diceRemoval === 0 || c.diceRemoval === 2) {
      let m = magesD;
      let a = archersD;
      if (c.diceRemoval === 0) {
        const rm = k < m ? k : m;
        m -= rm;
        a -= k - rm < a ? k - rm : a;
      } else {
        const ra = k < a ? k : a;
        a -= ra;
        m -= k - ra < m ? k - ra : m;
      }
      rollVolley(st, c, rng, m, a); // H26: nothing left, no damage
      M = st.volleyM;
      A = st.volleyA;
    } else {
      rollVolley(st, c, rng, magesD, archersD);
      M = st.volleyM;
      A = st.volleyA;
      if (c.diceRemoval === 3) {
        // H11 (d): k points off the total, archer part first, then off M. Where each mage die
        // is held (per-mage targets, per-die mode) the points off M come off the dice in roll
        // order, die 1 first, as the shields' do (4.0 PER_MAGE); a die left at 0 is dropped.
        let cut = k;
        const ca = cut < A ? cut : A;
        A -= ca;
        cut -= ca;
        const cm = cut < M ? cut : M;
        M -= cm;
        if (cm > 0 && (st.perDie || c.mageTargeting === 1)) {
          let j = 0;
          for (let i = 0; i < st.volleyMages; i++) {
            let r = st.mageRolls[i];
            const take = cut < r ? cut : r;
            r -= take;
            cut -= take;
            if (r > 0) st.mageRolls[j++] = r;
          }
          st.volleyMages = j;
        }
      } else {
        // H11 (b): roll everything, drop the k highest results (mage dice first on ties).
        // The archer dice are d2: A = n1 + 2 n2 with n1 + n2 = archersD.
        const n2 = A - archersD;
        const n1 = archersD - n2;
        let cut = k;
        for (let face = 3; face >= 1 && cut > 0; face--) {
          for (let i = 0; i < st.volleyMages && cut > 0; i++) {
            if (st.mageRolls[i] === face) {
              M -= face;
              st.mageRolls[i] = 0;
              cut--;
            }
          }
          if (face <= 2) {
            const nFace = face === 2 ? n2 : n1;
            const drop = nFace < cut ? nFace : cut;
            A -= drop * face;
            cut -= drop;
          }
        }
        // compact the kept mage dice
        let j = 0;
        for (let i = 0; i < st.volleyMages; i++) if (st.mageRolls[i] > 0) st.mageRolls[j++] = st.mageRolls[i];
        st.volleyMages = j;
      }
    }
  } else {
    rollVolley(st, c, rng, magesD, archersD);
    M = st.volleyM;
    A = st.volleyA;
  }
  const targets = wallUp && c.anyTargets === 0 ? (1 << MAG) | (1 << ARC) : ALL_TYPES;
  // the defender's units among the targets (its types never leave group 0)
  const left = targets === ALL_TYPES ? countGroups(st.cnt, 1, ALL_GROUPS) : countStaying(st.cnt, 1, MAG, ALL_GROUPS) + countStaying(st.cnt, 1, ARC, ALL_GROUPS);
  if (left === 0) return;
  receiveVolley(st, c, rng, 1, M, A, targets, ALL_GROUPS, false);
}

/** Step 3: defender ranged, with the 2d3 tower bonus (H15); legal targets per H22, H25. */
function defenderRanged(st: FantasyState, c: FantasyCompiled, rng: RngState): void {
  const mages = countStaying(st.cnt, 1, MAG, ALL_GROUPS);
  const archers = countStaying(st.cnt, 1, ARC, ALL_GROUPS);
  const tower = c.tower === 1 || (c.tower === 0 && st.wallHp > 0);
  let M: number;
  let A: number;
  if (tower && !st.perDie && c.mageTargeting !== 1 && c.diceRemoval !== 1) {
    // as rollVolley, with the 2d3 in the archers' total: one draw of both totals, or the mages'
    // and then the archers' with the tower's (one table of d3 and d2 together)
    st.volleyMages = mages;
    if (mages <= st.towerNM && archers <= st.towerNA) {
      const code = aliasDraw(rng, st.al, st.volleyTower[mages * (st.towerNA + 1) + archers]);
      M = code & 0xffff;
      A = code >>> 16;
    } else {
      M = sumDice(st, rng, mages, 3);
      A = sumDice32(st, rng, 2, archers);
    }
  } else {
    rollVolley(st, c, rng, mages, archers);
    A = st.volleyA;
    M = st.volleyM;
    if (tower) A += sumDice(st, rng, 2, 3);
  }
  if (M + A === 0) return;
  const typeMask = c.enginesTargetable === 1 ? ALL_TYPES : ALL_TYPES & ~(1 << ENG);
  const groupMask = c.poolTargetable === 1 ? ALL_GROUPS : ALL_GROUPS & ~2;
  // the attacker's units among the targets (engines never leave group 0)
  const left = countGroups(st.cnt, 0, groupMask) - (c.enginesTargetable === 1 ? 0 : countStaying(st.cnt, 0, ENG, groupMask));
  if (left === 0) return;
  receiveVolley(st, c, rng, 0, M, A, typeMask, groupMask, false);
}

/** A siege from round 1 (4.2): rounds of steps 1-6 until a side is gone, the attacker withdraws or the cap. */
export function siege(st: FantasyState, c: FantasyCompiled, rng: RngState, acc: Float64Array): void {
  st.wallHp = c.wallHp;
  let melee = false;
  const startUnits = c.withdrawUnits > 0 ? countGroups(st.cnt, 0, ALL_GROUPS) : 0; // H27's threshold alone reads it
  for (let r = 1; r <= c.maxRounds; r++) {
    st.recRound = r;
    st.carry[0] = 0;
    st.carry[1] = 0;
    // 1. Cleric pools, re-rolled every round (H10 (b): unused dice accumulate).
    rollPools(st, c, rng, c.poolAccumulates === 1);
    attackerRanged(st, c, rng);
    if (checkEnd(st)) return endTrial(st, r);
    defenderRanged(st, c, rng);
    if (checkEnd(st)) return endTrial(st, r);
    if (st.wallHp > 0) climbs(st, c, rng);
    if (checkEnd(st)) return endTrial(st, r);
    // 5. Breach check.
    const breachNow = st.wallHp <= 0 || st.cnt[TOTG + 1] >= c.breachThreshold; // the breach pool (group 1)
    const fresh = breachNow && st.breachRound === 0;
    if (fresh) {
      st.breachRound = r;
      acc[A_BREACHED] += 1;
      acc[A_BREACH_ROUND] += r;
      acc[A_BREACH_ROUND2] += r * r;
      acc[A_BY_ROUND + r - 1] += 1;
    }
    if (fresh && c.meleeStart === 2) melee = true; // H21 (c): melee this round
    if (melee) {
      const attGroups = st.wallHp <= 0 || c.meleeStart === 3 ? ALL_GROUPS : 2;
      if (countGroups(st.cnt, 0, attGroups) > 0) meleeExchange(st, c, rng, attGroups);
      if (checkEnd(st)) return endTrial(st, r);
    }
    if (breachNow && !melee) {
      if (c.meleeStart === 1) {
        // H21 (b): from the next round on, a full open-field battle
        if (r === c.maxRounds) break;
        openField(st, c, rng, acc, r + 1);
        return;
      }
      melee = true; // H21 DEFAULT and (d): melee from the next round
    }
    // A breach force wiped out with the wall standing ends the melee until the next breach.
    // H30 (b) stays_open: the melee goes on, fought by whoever is in the pool (none: no exchange).
    if (melee && st.wallHp > 0 && c.meleeStart !== 3 && c.repelledStaysOpen === 0 && st.cnt[TOTG + 1] === 0) {
      melee = false; // the first breach still counts: metrics are "ever breached"
    }
    // H27: the attacker withdraws below its threshold.
    if (c.withdrawUnits > 0 && countGroups(st.cnt, 0, ALL_GROUPS) < c.withdrawUnits && startUnits > 0) {
      st.outcome = 2;
      acc[A_WITHDREW] += 1;
      return endTrial(st, r);
    }
  }
  st.endRound = c.maxRounds;
  acc[A_CAP] += 1;
  capOutcome(st, c);
}
