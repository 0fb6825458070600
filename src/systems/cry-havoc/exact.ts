/**
 * Exact answers for Cry Havoc questions: the first melee roll and the first shot by enumerating
 * the d10; battering to breach as a Markov chain over (D results, non-ram points left); fire as
 * a three-state chain; healing by enumerating the table. Written from the tables, not from the
 * kernel, so `check` compares two implementations.
 */
import type { ExactSummary } from '../types.js';
import {
  batteringColumn,
  K_BATTERING,
  K_FIRE,
  K_HEALING,
  K_MELEE,
  K_MISSILE,
  MELEE_FOOT_RESULTS,
  MELEE_MOUNTED_RESULTS,
  MISSILE_FOOT_RESULTS,
  MISSILE_MOUNTED_RESULTS,
  type CryHavocCompiled,
} from './compile.js';
import { BATTERING, FIRE, HEALING_CROISADES_REROLL_TURNS, HEALING_CROISADES_TURNS, HEALING_SIEGE_DAYS, MELEE_FOOT, MELEE_MOUNTED, MISSILE_FOOT, MISSILE_MOUNTED } from './tables.js';
import { maxHealDay } from './kernel.js';

type Metrics = ExactSummary['metrics'];

/** The first melee roll: the odds column from the starting values, each d10 face 1/10. */
export function exactFirstMelee(c: CryHavocCompiled): Metrics {
  let sum = 0;
  let alive = 0;
  for (let i = 0; i < c.nAtt; i++) {
    sum += c.attState0[i] === 1 ? c.attW[i] : c.attH[i];
    alive++;
  }
  const mounted = c.defMounted0 === 1;
  const defence = mounted ? (c.defState0 ? c.defW : c.defH) : c.defState0 ? c.dismW : c.dismH;
  const letters = mounted ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS;
  const out: Metrics = {};
  for (const l of letters) out[`p_first_${l === '-' ? 'none' : l}`] = { value: 0 };
  let odds = defence > 0 ? Math.floor(sum / defence) : 12;
  let col: number | null = null;
  if (odds >= 1 || c.oddsBelowOneNoAttack === 0) {
    odds = Math.min(12, Math.max(1, odds));
    let k = odds + c.terrainShift + (alive > 1 && (!mounted || c.multiBoth === 1) ? 1 : 0);
    if (k >= 1 || c.shiftBelowOneNoAttack === 0) col = Math.min(12, Math.max(1, k));
  }
  if (col === null) return out; // no attack: no first roll
  const table = mounted ? MELEE_MOUNTED : MELEE_FOOT;
  for (let roll = 1; roll <= 10; roll++) {
    const cell = table[roll - 1][col - 1];
    out[`p_first_${cell === '-' ? 'none' : cell}`].value += 0.1;
  }
  return out;
}

/** The first shot of the first shooter. */
export function exactFirstShot(c: CryHavocCompiled): Metrics {
  const mounted = c.targetMounted0 === 1;
  const letters = mounted ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS;
  const out: Metrics = {};
  for (const l of letters) out[`p_shot_${l === '-' ? 'miss' : l}`] = { value: 0 };
  for (let roll = 1; roll <= 10; roll++) {
    const cell = mounted
      ? MISSILE_MOUNTED[Math.min(8, roll + c.shootAdd[0]) - 1][c.coverMounted]
      : MISSILE_FOOT[Math.min(10, roll + c.shootAdd[0] + c.dismountedKnight) - 1][c.coverFoot];
    out[`p_shot_${cell === '-' ? 'miss' : cell}`].value += 0.1;
  }
  return out;
}

/** Battering to breach: a chain over (D results so far, non-ram points left), roll by roll. */
export function exactBattering(c: CryHavocCompiled): ExactSummary {
  const P0 = c.enginePoints.reduce((a, b) => a + b, 0);
  // prob[d][p]
  let prob = Array.from({ length: c.dNeeded }, () => new Array<number>(P0 + 1).fill(0));
  prob[0][P0] = 1;
  const breachedAt: number[] = [];
  const lostAtBreach: number[] = new Array(P0 + 1).fill(0); // mass of breached chains by points left
  for (let day = 1; day <= c.days; day++) {
    let breachedToday = 0;
    for (let k = 0; k < c.rollsPerDay; k++) {
      const next = Array.from({ length: c.dNeeded }, () => new Array<number>(P0 + 1).fill(0));
      for (let d = 0; d < c.dNeeded; d++)
        for (let p = 0; p <= P0; p++) {
          const m = prob[d][p];
          if (m === 0) continue;
          const col = batteringColumn(9 * c.rams + p);
          if (col < 0) {
            next[d][p] += m;
            continue;
          }
          for (let roll = 1; roll <= 10; roll++) {
            const cell = BATTERING[roll - 1][col];
            const hit = cell.includes('D') ? 1 : 0;
            const lose = Number(/(\d)C/.exec(cell)?.[1] ?? 0);
            const np = Math.max(0, p - lose);
            if (d + hit >= c.dNeeded) {
              breachedToday += m / 10;
              lostAtBreach[np] += m / 10;
            } else next[d + hit][np] += m / 10;
          }
        }
      prob = next;
    }
    breachedAt.push(breachedToday);
  }
  let cum = 0;
  let m1 = 0;
  let m2 = 0;
  const curve = breachedAt.map((p, i) => {
    cum += p;
    m1 += (i + 1) * p;
    m2 += (i + 1) ** 2 * p;
    return { x: { day: i + 1 }, value: cum };
  });
  // points lost at the end: from the breached chains and the ones still battering
  let l1 = 0;
  let l2 = 0;
  for (let p = 0; p <= P0; p++) {
    let m = lostAtBreach[p];
    for (let d = 0; d < c.dNeeded; d++) m += prob[d][p];
    l1 += (P0 - p) * m;
    l2 += (P0 - p) ** 2 * m;
  }
  const mu = cum > 0 ? m1 / cum : NaN;
  return {
    omitted: [{ metrics: ['mean_engines_out'], why: 'the battering chain keeps the points left, not which engines hold them' }],
    metrics: {
      p_breached: { value: cum },
      mean_days: { value: mu, variance: cum > 0 ? m2 / cum - mu * mu : NaN },
      mean_points_lost: { value: l1, variance: l2 - l1 * l1 },
    },
    curves: { breach_by_day: curve },
  };
}

/** Fire: a chain over (not burning, burning by hand/oil, burning by arrows), turn by turn. */
export function exactFire(c: CryHavocCompiled): ExactSummary {
  const pIgnite = 1 - (1 - fireRows(c).ignite / 10) ** c.attempts;
  const arrow = c.arrowFire === 1;
  const qOut = 1 - (1 - (fireRows(c).d + (arrow ? fireRows(c).da : 0)) / 10) ** c.extAttempts;
  let none = 1; // not burning
  let burning = 0;
  let never = 1; // never ignited so far
  const curve: { x: Record<string, number>; value: number }[] = [];
  for (let t = 1; t <= c.turns; t++) {
    const lit = none * pIgnite;
    never *= 1 - pIgnite;
    // burning from before may be put out; a fresh fire too when fought the same turn
    const stillOld = burning * (1 - qOut);
    const stillNew = c.sameTurn === 1 ? lit * (1 - qOut) : lit;
    const nb = stillOld + stillNew;
    none = 1 - nb;
    burning = nb;
    curve.push({ x: { turn: t }, value: nb });
  }
  return {
    metrics: { p_ever_ignited: { value: 1 - never }, p_burning_at_end: { value: burning } },
    omitted: [{ metrics: ['mean_turns_burning'], why: 'the fire chain keeps no count of the turns burning' }],
    curves: { p_burning_by_turn: curve },
  };
}

function fireRows(c: CryHavocCompiled): { ignite: number; d: number; da: number } {
  return {
    ignite: c.ignite.reduce((a, b) => a + b, 0),
    d: FIRE.filter((r) => r[4] === 'D').length,
    da: FIRE.filter((r) => r[4] === 'DA').length,
  };
}

/** Healing: enumerate the d10 (Siege) or the d6 with its re-roll (Croisades). */
export function exactHealing(c: CryHavocCompiled): ExactSummary {
  const byDay = new Array<number>(maxHealDay(c) + 1).fill(0);
  let out = 0;
  let dies = 0;
  if (c.croisades === 0) {
    for (const d of HEALING_SIEGE_DAYS) {
      if (d === 0) out += 0.1;
      else byDay[d] += 0.1;
    }
  } else {
    for (const t of HEALING_CROISADES_TURNS) {
      if (t === 0) {
        dies += (1 / 6) * (2 / 6);
        byDay[HEALING_CROISADES_REROLL_TURNS * c.turnDays] += (1 / 6) * (4 / 6);
      } else byDay[t * c.turnDays] += 1 / 6;
    }
  }
  const healed = 1 - out - dies;
  let m1 = 0;
  let m2 = 0;
  byDay.forEach((p, d) => {
    m1 += d * p;
    m2 += d * d * p;
  });
  const mu = m1 / healed;
  const curve: { x: Record<string, number>; value: number }[] = [];
  let cum = 0;
  for (let d = 1; d <= Math.min(c.horizon, maxHealDay(c)); d++) {
    cum += byDay[d];
    curve.push({ x: { day: d }, value: cum });
  }
  return {
    metrics: {
      p_healed: { value: healed },
      p_out_for_scenario: { value: out },
      p_dies: { value: dies },
      mean_days_to_heal: { value: mu, variance: m2 / healed - mu * mu },
    },
    curves: { heal_by_day: curve },
  };
}

/** The chain's largest number of attackers (exactMelee). */
export const EXACT_MELEE_MAX_ATTACKERS = 6;

/** What a melee with too many attackers for the chain has no exact answer for: all but the first roll. */
function meleeTooMany(c: CryHavocCompiled): { metrics: string[]; why: string } {
  return {
    metrics: ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack', 'mean_turns', 'results_by_turn'],
    why: `the melee chain is built for at most ${EXACT_MELEE_MAX_ATTACKERS} attackers and this case has ${c.nAtt}; only the first roll (p_first_*) is exact`,
  };
}

/**
 * Repeated melee (1.6) as a Markov chain over (defender wounded, stun turns left, mounted,
 * each attacker healthy / wounded / dead), turn by turn up to the cap, for up to 6 attackers.
 * Results by turn, who dies when, and the turns until someone dies, all exact.
 */
export function exactMelee(c: CryHavocCompiled): ExactSummary | null {
  if (c.nAtt > EXACT_MELEE_MAX_ATTACKERS) return null;
  type St = { w: number; stun: number; mounted: number; att: number[] };
  const key = (s: St) => `${s.w}${s.stun}${s.mounted}${s.att.join('')}`;
  let dist = new Map<string, { s: St; p: number }>([[key({ w: c.defState0, stun: 0, mounted: c.defMounted0, att: c.attState0.slice() }), { s: { w: c.defState0, stun: 0, mounted: c.defMounted0, att: c.attState0.slice() }, p: 1 }]]);
  const out = { defKilled: 0, attKilled: 0, noAttack: 0, m1: 0, m2: 0 };
  const byTurn: { x: Record<string, number | string>; value: number }[] = [];
  for (let t = 1; t <= c.turns; t++) {
    const foot = new Array<number>(7).fill(0);
    const mounted = new Array<number>(9).fill(0);
    const next = new Map<string, { s: St; p: number }>();
    for (const { s, p } of dist.values()) {
      // odds (1.6 step 2) from the current values
      let sum = 0;
      let alive = 0;
      s.att.forEach((a, i) => {
        if (a === 2) return;
        sum += a === 1 ? c.attW[i] : c.attH[i];
        alive++;
      });
      const weak = s.w === 1 || (s.stun > 0 && c.stunnedDefenceWounded === 1);
      const defence = s.mounted ? (weak ? c.defW : c.defH) : weak ? c.dismW : c.dismH;
      let odds = defence > 0 ? Math.floor(sum / defence) : 12;
      if (odds < 1 && c.oddsBelowOneNoAttack === 1) {
        out.noAttack += p;
        continue;
      }
      odds = Math.min(12, Math.max(1, odds));
      let col = odds + c.terrainShift + (alive > 1 && (!s.mounted || c.multiBoth === 1) ? 1 : 0);
      if (col < 1 && c.shiftBelowOneNoAttack === 1) {
        out.noAttack += p;
        continue;
      }
      col = Math.min(12, Math.max(1, col));
      for (let roll = 1; roll <= 10; roll++) {
        const q = p / 10;
        const cell = (s.mounted ? MELEE_MOUNTED : MELEE_FOOT)[roll - 1][col - 1];
        const code = cell === '-' ? 0 : cell.charCodeAt(0) - 64;
        (s.mounted ? mounted : foot)[code] += q;
        const n: St = { w: s.w, stun: s.stun, mounted: s.mounted, att: s.att.slice() };
        let defDead = false;
        let attDead = false;
        const woundAttacker = (all: boolean) => {
          if (all) {
            n.att = n.att.map((a) => (a === 2 ? 2 : a + 1));
            return n.att.some((a, i) => a === 2 && s.att[i] !== 2);
          }
          // the attacking player wounds his weakest healthy man, else his weakest wounded one
          let pick = -1;
          n.att.forEach((a, i) => {
            if (a === 0 && (pick < 0 || c.attH[i] < c.attH[pick])) pick = i;
          });
          if (pick < 0) n.att.forEach((a, i) => {
            if (a === 1 && (pick < 0 || c.attW[i] < c.attW[pick])) pick = i;
          });
          if (pick < 0) return false;
          n.att[pick]++;
          return n.att[pick] === 2;
        };
        const hurt = () => s.w === 1 || s.stun > 0; // wounded or stunned already: death
        if (code === 1) attDead = woundAttacker(c.woundAll === 1);
        else if (code === 2) attDead = c.retreatBlocked === 1 ? woundAttacker(true) : false;
        else if (code === 3) {
          if (s.stun > 0) defDead = true;
          else if (c.retreatBlocked === 1) {
            if (s.w === 1) defDead = true;
            else n.w = 1;
          }
        } else if (!s.mounted) {
          if (code === 4 || code === 5) {
            if (hurt()) defDead = true;
            else if (code === 4) n.stun = 1 + c.stunLasts;
            else n.w = 1;
          } else if (code === 6) defDead = true;
        } else if (code === 4) {
          n.mounted = 0;
          if (hurt()) defDead = true;
          else n.stun = 1 + c.stunLasts;
        } else if (code === 5 || code === 6) {
          if (code === 6) n.mounted = 0;
          if (hurt()) defDead = true;
          else n.w = 1;
        } else if (code >= 7) defDead = true;
        if (defDead || attDead) {
          if (defDead) out.defKilled += q;
          else out.attKilled += q;
          out.m1 += t * q;
          out.m2 += t * t * q;
          continue;
        }
        if (n.stun > 0) n.stun--;
        const k = key(n);
        const e = next.get(k);
        if (e) e.p += q;
        else next.set(k, { s: n, p: q });
      }
    }
    ['-', 'A', 'B', 'C', 'D', 'E', 'F'].forEach((l, k) => byTurn.push({ x: { turn: t, table: 'foot', result: l }, value: foot[k] }));
    ['-', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].forEach((l, k) => byTurn.push({ x: { turn: t, table: 'mounted', result: l }, value: mounted[k] }));
    dist = next;
  }
  const decided = out.defKilled + out.attKilled;
  const mu = decided > 0 ? out.m1 / decided : NaN;
  return {
    metrics: {
      ...exactFirstMelee(c),
      p_defender_killed: { value: out.defKilled },
      p_attacker_killed: { value: out.attKilled },
      p_no_attack: { value: out.noAttack },
      p_undecided: { value: 1 - decided - out.noAttack },
      mean_turns: { value: mu, variance: decided > 0 ? out.m2 / decided - mu * mu : NaN },
    },
    curves: { results_by_turn: byTurn },
  };
}

/**
 * Missile fire over the turns (1.4, 1.5) as a Markov chain over the target's (wounded, stun
 * left, mounted), shot by shot: the kill-by-turn curve and the kill probability, exact.
 */
export function exactMissile(c: CryHavocCompiled): ExactSummary {
  type St = { w: number; stun: number; mounted: number };
  const key = (s: St) => `${s.w}${s.stun}${s.mounted}`;
  let dist = new Map<string, { s: St; p: number }>([[key({ w: c.targetState0, stun: 0, mounted: c.targetMounted0 }), { s: { w: c.targetState0, stun: 0, mounted: c.targetMounted0 }, p: 1 }]]);
  let killed = 0;
  let m1 = 0;
  let m2 = 0;
  const curve: { x: Record<string, number>; value: number }[] = [];
  for (let t = 1; t <= c.turns; t++) {
    for (let sh = 0; sh < c.nShoot; sh++) {
      const next = new Map<string, { s: St; p: number }>();
      const add = (n: St, q: number) => {
        const k = key(n);
        const e = next.get(k);
        if (e) e.p += q;
        else next.set(k, { s: n, p: q });
      };
      for (const { s, p } of dist.values()) {
        for (let roll = 1; roll <= 10; roll++) {
          const q = p / 10;
          const cell = s.mounted
            ? MISSILE_MOUNTED[Math.min(8, roll + c.shootAdd[sh]) - 1][c.coverMounted]
            : MISSILE_FOOT[Math.min(10, roll + c.shootAdd[sh] + c.dismountedKnight) - 1][c.coverFoot];
          const n: St = { ...s };
          let dead = false;
          const hurt = s.w === 1 || s.stun > 0;
          if (cell === 'A') {
            if (s.stun > 0) dead = true; // a stunned character forced to retreat dies
            else if (c.retreatBlocked === 1) {
              if (s.w === 1) dead = true;
              else n.w = 1;
            }
          } else if (!s.mounted) {
            if (cell === 'B') {
              if (hurt) dead = true;
              else n.w = 1;
            } else if (cell === 'C') dead = true;
          } else if (cell === 'B') {
            n.mounted = 0; // rider stunned and dismounted
            if (hurt) dead = true;
            else n.stun = 1 + c.stunLasts;
          } else if (cell === 'C' || cell === 'D') {
            if (cell === 'D' || c.errata === 0) n.mounted = 0;
            if (hurt) dead = true;
            else n.w = 1;
          } else if (cell === 'E' || cell === 'F') dead = true;
          if (dead) {
            killed += q;
            m1 += t * q;
            m2 += t * t * q;
          } else add(n, q);
        }
      }
      dist = next;
    }
    // the stun wears off at the end of the target's own turn
    const after = new Map<string, { s: St; p: number }>();
    for (const { s, p } of dist.values()) {
      const n = { ...s, stun: s.stun > 0 ? s.stun - 1 : 0 };
      const k = key(n);
      const e = after.get(k);
      if (e) e.p += p;
      else after.set(k, { s: n, p });
    }
    dist = after;
    curve.push({ x: { turn: t }, value: killed });
  }
  const mu = killed > 0 ? m1 / killed : NaN;
  return {
    metrics: {
      ...exactFirstShot(c),
      p_killed: { value: killed },
      mean_turns_to_kill: { value: mu, variance: killed > 0 ? m2 / killed - mu * mu : NaN },
    },
    omitted: [{ metrics: ['p_hurt'], why: 'the missile chain follows the kill, not whether the target was ever hurt' }],
    curves: { p_killed_by_turn: curve },
  };
}

export function exactCryHavoc(c: CryHavocCompiled): ExactSummary | null {
  switch (c.kind) {
    case K_MELEE:
      return exactMelee(c) ?? { metrics: exactFirstMelee(c), curves: {}, omitted: [meleeTooMany(c)] };
    case K_MISSILE:
      return exactMissile(c);
    case K_BATTERING:
      return exactBattering(c);
    case K_FIRE:
      return exactFire(c);
    case K_HEALING:
      return exactHealing(c);
    default:
      return null;
  }
}
