/**
 * A plain, per-die reference of the fantasy rules, written from docs/rules/fantasy.md (4.0-4.2
 * and "What each metric counts") alone: no import from src/systems/fantasy, no tables, no unit
 * classes: every unit is an object, every die is rolled, every allocation sorts the units anew.
 * Slow and obvious on purpose; test/fantasy-reference.test.ts holds the fast kernel to it.
 *
 * Covers every DEFAULT of docs/rules/fantasy.md, and these options (the ones the differential
 * test's generator varies): mode; both armies (captain Might as a bonus); wall.hp, dc, upgrades,
 * breach_threshold; max_rounds; rules.wall_fall (H28), rules.pool_fire_order (H29),
 * rules.repelled_breach (H30), rules.tower_bonus (H15), rules.climb_comparison (H16),
 * rules.cavalry_climb (H18), rules.melee_start (H21, all four: full_battle's battle is 4.1's),
 * rules.round_cap_result (H7, H27), rules.ranged_phases (H6), rules.open_field_rounds (H7),
 * rules.melee_allocation dealer / receiver (H3), rules.siege_pool (H10), rules.dice_removal
 * (H11, all four), rules.mage_targeting one_type_together / per_mage (H5), rules.attacker_fire_targets (H13), rules.shields_vs_wall (H14),
 * rules.breach_pool_targetable (H22), rules.engines_targetable (H25), policy.climbers,
 * policy.attacker_fire defenders / wall / finish_wall, policy.damage_allocation greedy_value /
 * lowest_hp (H4), policy.shield_spending optimal / no_waste (H9), policy.withdraw_below (H27).
 * Every other option must be at its DEFAULT (checked: `referenceCovers`).
 */
import { deriveState, nextU32, type RngState } from '../../src/engine/rng.js';

// ---- the scenario, as YAML gives it (docs/rules/fantasy.md "Every scenario option") ----------

export interface RefArmy {
  infantry?: number;
  cavalry?: number;
  archers?: number;
  mages?: number;
  clerics?: number;
  siege_engines?: number;
  captain_might?: number;
}
export interface RefScenario {
  mode: 'open_field' | 'siege';
  attacker: RefArmy;
  defender: RefArmy;
  wall?: { hp?: number; dc?: number; upgrades?: number; breach_threshold?: number };
  max_rounds?: number;
  rules?: {
    wall_fall?: 'at_once' | 'end_of_phase';
    pool_fire_order?: 'outside_first' | 'pool_first';
    repelled_breach?: 'closes' | 'stays_open';
    tower_bonus?: 'standing_wall' | 'always' | 'none';
    climb_comparison?: 'ge' | 'gt';
    cavalry_climb?: boolean;
    melee_start?: 'next_round' | 'full_battle' | 'same_round' | 'all_attackers';
    round_cap_result?: 'auto' | 'more_hp' | 'defender' | 'undecided';
    ranged_phases?: 'sequential' | 'simultaneous';
    open_field_rounds?: 'repeat_melee' | 'single_pass' | 'repeat_phases';
    melee_allocation?: 'dealer' | 'receiver';
    siege_pool?: 'reroll' | 'accumulate';
    dice_removal?: 'highest_type_first' | 'highest_results' | 'lowest_type_first' | 'points';
    mage_targeting?: 'one_type_together' | 'per_mage';
    attacker_fire_targets?: 'mages_and_archers' | 'any';
    shields_vs_wall?: boolean;
    breach_pool_targetable?: boolean;
    engines_targetable?: boolean;
  };
  policy?: {
    climbers?: 'none' | 'infantry' | 'infantry_and_cavalry';
    attacker_fire?: 'defenders' | 'wall' | 'finish_wall';
    damage_allocation?: 'greedy_value' | 'lowest_hp';
    shield_spending?: 'optimal' | 'no_waste';
    withdraw_below?: number;
  };
}

const COVERED_RULES = new Set([
  'wall_fall',
  'pool_fire_order',
  'repelled_breach',
  'tower_bonus',
  'climb_comparison',
  'cavalry_climb',
  'melee_start',
  'round_cap_result',
  'ranged_phases',
  'open_field_rounds',
  'melee_allocation',
  'siege_pool',
  'dice_removal',
  'mage_targeting',
  'attacker_fire_targets',
  'shields_vs_wall',
  'breach_pool_targetable',
  'engines_targetable',
]);
const COVERED_POLICY = new Set(['climbers', 'attacker_fire', 'damage_allocation', 'shield_spending', 'withdraw_below']);

/** Does the reference play this scenario (only covered options set, to covered values)? */
export function referenceCovers(s: RefScenario): boolean {
  for (const k of Object.keys(s.rules ?? {})) if (!COVERED_RULES.has(k)) return false;
  for (const k of Object.keys(s.policy ?? {})) if (!COVERED_POLICY.has(k)) return false;
  const ma = s.rules?.melee_allocation;
  const da = s.policy?.damage_allocation;
  const sh = s.policy?.shield_spending;
  const mt = s.rules?.mage_targeting;
  return (
    (mt === undefined || mt === 'one_type_together' || mt === 'per_mage') &&
    (ma === undefined || ma === 'dealer' || ma === 'receiver') &&
    (da === undefined || da === 'greedy_value' || da === 'lowest_hp') &&
    (sh === undefined || sh === 'optimal' || sh === 'no_waste')
  );
}

// ---- the units (docs "The units", H1, H4 DEFAULT values) -------------------------------------

// Type order [FIXED] (4.0): infantry, cavalry, archer, mage, cleric, siege engine.
const INF = 0;
const CAV = 1;
const ARC = 2;
const MAG = 3;
const CLE = 4;
const ENG = 5;
const HP = [4, 5, 2, 2, 2, 6]; // H1 DEFAULT
const VALUE10 = [35, 70, 35, 35, 35, 70]; // H4 DEFAULT values x 10 (4.0: losses in x10 units)
const MELEE = [6, 6, 3, 2, 2, 0]; // seed phase 5 table
const OUTSIDE = 0;
const POOL = 1;

interface Unit {
  type: number;
  hp: number;
  place: number; // OUTSIDE, POOL (the attacker in a siege); every other unit is OUTSIDE
  alive: boolean;
}
interface Side {
  units: Unit[];
  might: number;
  pool: number[]; // shield dice faces
}

// ---- dice: the generic engine generator, unbiased by rejection --------------------------------

function die(rng: RngState, n: number): number {
  const limit = 4294967296 - (4294967296 % n);
  for (;;) {
    const u = nextU32(rng);
    if (u < limit) return (u % n) + 1;
  }
}
function dice(rng: RngState, k: number, n: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += die(rng, n);
  return s;
}
/** k mage d3, in the order rolled (PER_MAGE reads each). */
function mageDice(rng: RngState, k: number): number[] {
  const md: number[] = [];
  for (let i = 0; i < k; i++) md.push(die(rng, 3));
  return md;
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

// ---- 4.0 the common procedures -----------------------------------------------------------------

interface Ctx {
  poolFirst: boolean;
  /** The ranking ALLOCATE uses now: 0 greedy_value, 1 lowest_hp, 2 the receiver's (H3 (b)). */
  policy: number;
  dealer: number; // the dealer's policy (H4): 0 or 1
  noWaste: boolean;
  meleeReceiver: boolean;
  /** H5 (b): each mage picks its own type (4.0 PER_MAGE). */
  perMage: boolean;
}

/** The rankings of 4.0 (H4 greedy_value and lowest_hp, H3 (b) receiver; H29). */
function ranking(ctx: Ctx, units: Unit[]): Unit[] {
  const placeRank = (u: Unit) => (ctx.poolFirst ? (u.place === POOL ? 0 : 1) : u.place);
  return units.slice().sort((a, b) => {
    const va = VALUE10[a.type];
    const vb = VALUE10[b.type];
    if (ctx.policy === 1) {
      if (a.hp !== b.hp) return a.hp - b.hp; // lowest HP first
      if (va !== vb) return vb - va;
    } else if (ctx.policy === 2) {
      const c = va * b.hp - vb * a.hp; // v / hp ascending
      if (c !== 0) return c;
      if (a.hp !== b.hp) return b.hp - a.hp;
    } else {
      const c = vb * a.hp - va * b.hp; // v / hp descending, by cross-multiplication
      if (c !== 0) return c;
      if (va !== vb) return vb - va;
    }
    if (placeRank(a) !== placeRank(b)) return placeRank(a) - placeRank(b);
    if (a.type !== b.type) return a.type - b.type;
    return a.hp - b.hp;
  });
}

/** ALLOCATE: kill down the ranking, skipping units D cannot kill; returns [leftover, value x10 killed]. Dry: nobody dies. */
function allocate(ctx: Ctx, D: number, legal: Unit[], dry: boolean, deadSet?: Set<Unit>): [number, number] {
  let value = 0;
  for (const u of ranking(ctx, legal)) {
    if (deadSet?.has(u)) continue;
    if (D >= u.hp) {
      D -= u.hp;
      value += VALUE10[u.type];
      if (dry) deadSet?.add(u);
      else u.alive = false;
    }
  }
  return [D, value];
}

function alive(side: Side): Unit[] {
  return side.units.filter((u) => u.alive);
}

/** MAGE_TARGET: the first type in type order whose units M kills the most value of. */
function mageTarget(ctx: Ctx, M: number, legal: Unit[]): number {
  let best = -1;
  let bestV = -1;
  for (let t = 0; t < 6; t++) {
    const ofT = legal.filter((u) => u.type === t);
    if (ofT.length === 0) continue;
    const v = allocate(ctx, M, ofT, true, new Set())[1];
    if (v > bestV) {
      bestV = v;
      best = t;
    }
  }
  return best;
}

/**
 * APPLY (dry: the value it would kill). Mage part first at type T (H5 (b): PER_MAGE, die by die,
 * md the mage dice summing to M), then the free part.
 */
function apply(ctx: Ctx, M: number, T: number, A: number, cancel: number, legal: Unit[], dry: boolean, md: number[]): number {
  const cm = Math.min(cancel, M);
  const ca = Math.min(cancel - cm, A);
  const m = M - cm;
  const a = A - ca;
  const dead = dry ? new Set<Unit>() : undefined;
  const now = () => legal.filter((u) => (dry ? !dead!.has(u) : u.alive));
  let value = 0;
  if (m > 0 && T >= 0 && ctx.perMage) {
    // PER_MAGE: cm off the first dice; each die its own type among the legal units alive now
    let cut = cm;
    for (const d of md) {
      const r = d - Math.min(cut, d);
      cut -= d - r;
      if (r === 0) continue;
      let t = -1;
      for (let u = 0; u < 6; u++) {
        if (HP[u] > r || !now().some((x) => x.type === u)) continue;
        if (t < 0 || VALUE10[u] > VALUE10[t]) t = u;
      }
      if (t < 0) t = T;
      value += allocate(ctx, r, now().filter((u) => u.type === t), dry, dead)[1];
    }
  } else if (m > 0 && T >= 0) value += allocate(ctx, m, legal.filter((u) => u.type === T), dry, dead)[1];
  if (dry) value += allocate(ctx, a, legal, true, dead)[1];
  else value += allocate(ctx, a, legal.filter((u) => u.alive), false)[1];
  return value;
}

/** SHIELD_SPEND, H9 DEFAULT optimal: returns the pips spent (the dice leave the pool). */
function shieldSpend(ctx: Ctx, side: Side, D: number, M: number, T: number, A: number, legal: Unit[], lambda: number, md: number[]): number {
  if (ctx.noWaste) return noWaste(side, D);
  const c = [0, 0, 0, 0];
  for (const f of side.pool) c[f]++;
  const lossMemo = new Map<number, number>();
  const loss = (p: number) => {
    let v = lossMemo.get(p);
    if (v === undefined) {
      v = apply(ctx, M, T, A, p, legal, true, md);
      lossMemo.set(p, v);
    }
    return v;
  };
  if (loss(0) === 0) return 0;
  let best = Infinity;
  let bn = 0;
  let bs = 0;
  let pick = [0, 0, 0];
  for (let k3 = 0; k3 <= c[3]; k3++)
    for (let k2 = 0; k2 <= c[2]; k2++)
      for (let k1 = 0; k1 <= c[1]; k1++) {
        const sum = k1 + 2 * k2 + 3 * k3;
        const n = k1 + k2 + k3;
        const cost = loss(Math.min(sum, D)) + lambda * sum;
        const tieWins = n < bn || (n === bn && sum < bs);
        if (cost < best - 1e-9 || (Math.abs(cost - best) <= 1e-9 && tieWins)) {
          best = cost;
          bn = n;
          bs = sum;
          pick = [k1, k2, k3];
        }
      }
  for (let f = 1; f <= 3; f++) {
    for (let k = 0; k < pick[f - 1]; k++) side.pool.splice(side.pool.indexOf(f), 1);
  }
  return bs;
}

/** H9 (b) no_waste: the largest die <= the damage left, again and again; returns the pips spent. */
function noWaste(side: Side, D: number): number {
  let spent = 0;
  for (;;) {
    let f = 3;
    while (f >= 1 && (f > D - spent || !side.pool.includes(f))) f--;
    if (f < 1) return spent;
    side.pool.splice(side.pool.indexOf(f), 1);
    spent += f;
  }
}

/** RECEIVE_VOLLEY: returns the damage through the shields. */
/** RECEIVE_VOLLEY of the mage dice md (M = their sum) and A free points. */
function receiveVolley(ctx: Ctx, md: number[], A: number, side: Side, legal: Unit[], lambda: number): number {
  const M = sum(md);
  const T = M > 0 ? mageTarget(ctx, M, legal) : -1;
  let cancel = 0;
  if (side.pool.length > 0 && M + A > 0) cancel = Math.min(shieldSpend(ctx, side, M + A, M, T, A, legal, lambda, md), M + A);
  const cm = Math.min(cancel, M);
  const ca = Math.min(cancel - cm, A);
  apply(ctx, M, T, A, cancel, legal, false, md);
  return M - cm + A - ca;
}

function out(side: Side): boolean {
  return !side.units.some((u) => u.alive);
}

function meleeExchange(ctx: Ctx, rng: RngState, att: Side, attFighters: Unit[], def: Side): void {
  const roll = (side: Side, fighters: Unit[]) => {
    let s = 0;
    for (const u of fighters) if (MELEE[u.type] > 0) s += die(rng, MELEE[u.type]);
    return s + dice(rng, side.might, 6);
  };
  const defFighters = alive(def);
  const Ma = roll(att, attFighters);
  const Md = roll(def, defFighters);
  const was = ctx.policy;
  if (ctx.meleeReceiver) ctx.policy = 2;
  allocate(ctx, Ma, defFighters, false);
  allocate(ctx, Md, attFighters, false);
  ctx.policy = was;
}

function totalHp(side: Side): number {
  return alive(side).reduce((a, u) => a + u.hp, 0);
}

// ---- one battle ------------------------------------------------------------------------------

/** One trial's outcome (docs "What each metric counts"). */
export interface RefTrial {
  outcome: 1 | 2 | 3; // attacker, defender, undecided
  rounds: number;
  cap: boolean;
  breachRound: number; // 0: none
  volleyA: number;
  withdrew: boolean;
}

function army(a: RefArmy, rng: RngState): Side {
  const units: Unit[] = [];
  const add = (t: number, n = 0) => {
    for (let i = 0; i < n; i++) units.push({ type: t, hp: HP[t], place: OUTSIDE, alive: true });
  };
  add(INF, a.infantry);
  add(CAV, a.cavalry);
  add(ARC, a.archers);
  add(MAG, a.mages);
  add(CLE, a.clerics);
  add(ENG, a.siege_engines);
  void rng;
  return { units, might: a.captain_might ?? 0, pool: [] };
}

function rollPool(rng: RngState, side: Side, keep = false): void {
  const fresh = alive(side)
    .filter((u) => u.type === CLE)
    .map(() => die(rng, 3));
  side.pool = keep ? side.pool.concat(fresh) : fresh;
}

function count(units: Unit[], t: number): number {
  return units.filter((u) => u.type === t).length;
}

function openFieldVolleys(ctx: Ctx, rng: RngState, att: Side, def: Side, record: boolean, trial: RefTrial, simultaneous: boolean): void {
  // lambda (4.0), from the state at the start of Phase A (H9 optimal only)
  let lambda = 0;
  const C = count(alive(att), CAV);
  const P = def.pool.reduce((a, f) => a + f, 0);
  if (C > 0 && P > 0 && !ctx.noWaste) {
    const d = alive(def);
    const V = d.reduce((a, u) => a + VALUE10[u.type], 0);
    const H = d.reduce((a, u) => a + HP[u.type], 0);
    lambda = H > 0 ? ((3.5 * C) / P) * (V / H) : 0;
  }
  const a0 = alive(att);
  const MA = mageDice(rng, count(a0, MAG));
  const AA = dice(rng, count(a0, ARC), 2);
  let MB: number[] = [];
  let AB = 0;
  if (simultaneous) {
    // H6 (b): the defender's volley is rolled from the state before Phase A
    const d0 = alive(def);
    MB = mageDice(rng, count(d0, MAG));
    AB = dice(rng, count(d0, ARC), 2);
  }
  const through = receiveVolley(ctx, MA, AA, def, alive(def), lambda);
  if (record) trial.volleyA = through;
  if (!simultaneous) {
    const d0 = alive(def);
    MB = mageDice(rng, count(d0, MAG));
    AB = dice(rng, count(d0, ARC), 2);
  }
  receiveVolley(ctx, MB, AB, att, alive(att), 0);
  const cav = count(alive(att), CAV);
  if (cav > 0) receiveVolley(ctx, [], dice(rng, cav, 6), def, alive(def), 0);
}

function endCheck(att: Side, def: Side): 0 | 1 | 2 | 3 {
  const a = out(att);
  const d = out(def);
  return a && d ? 3 : a ? 2 : d ? 1 : 0;
}

function capResult(s: RefScenario, att: Side, def: Side): 1 | 2 | 3 {
  let rule = s.rules?.round_cap_result ?? 'auto';
  if (rule === 'auto') rule = s.mode === 'siege' ? 'defender' : 'more_hp';
  if (rule === 'defender') return 2;
  if (rule === 'undecided') return 3;
  const ha = totalHp(att);
  const hd = totalHp(def);
  return ha > hd ? 1 : hd > ha ? 2 : 3;
}

/** 4.1 OPEN_FIELD_BATTLE from round `start` (a siege's H21 (b) battle starts after its breach round). */
function openField(s: RefScenario, ctx: Ctx, rng: RngState, att: Side, def: Side, trial: RefTrial, maxRounds: number, start = 1): void {
  rollPool(rng, att);
  rollPool(rng, def);
  const rounds = s.rules?.open_field_rounds ?? 'repeat_melee';
  for (let r = start; r <= maxRounds; r++) {
    if (r === start || rounds === 'repeat_phases') openFieldVolleys(ctx, rng, att, def, r === 1, trial, s.rules?.ranged_phases === 'simultaneous');
    if (endCheck(att, def) === 0) meleeExchange(ctx, rng, att, alive(att), def);
    const e = endCheck(att, def);
    if (e !== 0) {
      trial.outcome = e;
      trial.rounds = r;
      return;
    }
    if (rounds === 'single_pass') {
      const ha = totalHp(att);
      const hd = totalHp(def);
      trial.outcome = ha > hd ? 1 : hd > ha ? 2 : 3;
      trial.rounds = r;
      return;
    }
  }
  trial.rounds = maxRounds;
  trial.cap = true;
  trial.outcome = capResult(s, att, def);
}

/**
 * 4.2's ceil(withdraw_below × starting units) on the decimal as written: its shortest decimal
 * text (String) read as an integer over a power of ten (0.56 × 25 = 14, where the double
 * product 14.000000000000002 would round up to 15).
 */
function ceilOfShare(share: number, n: number): number {
  const [m, e = '0'] = String(share).split('e');
  const [whole, frac = ''] = m.split('.');
  const scale = frac.length - Number(e);
  const num = BigInt(whole + frac) * BigInt(n);
  if (scale <= 0) return Number(num * 10n ** BigInt(-scale));
  const den = 10n ** BigInt(scale);
  return Number((num + den - 1n) / den);
}

function siege(s: RefScenario, ctx: Ctx, rng: RngState, att: Side, def: Side, trial: RefTrial, maxRounds: number): void {
  const r0 = s.rules ?? {};
  const p0 = s.policy ?? {};
  let wall = s.wall?.hp ?? 30; // H20 DEFAULT stone
  const dc = s.wall?.dc ?? 12;
  const k = 2 + (s.wall?.upgrades ?? 0);
  const threshold = s.wall?.breach_threshold ?? 4;
  const atOnce = (r0.wall_fall ?? 'at_once') === 'at_once';
  const tower = r0.tower_bonus ?? 'standing_wall';
  const gt = r0.climb_comparison === 'gt';
  const cavClimb = r0.cavalry_climb ?? true;
  const meleeStart = r0.melee_start ?? 'next_round';
  const staysOpen = r0.repelled_breach === 'stays_open';
  const climbers = p0.climbers ?? 'infantry_and_cavalry';
  const fire = p0.attacker_fire ?? 'defenders';
  const removal = r0.dice_removal ?? 'highest_type_first';
  const shieldsVsWall = r0.shields_vs_wall === true;
  const anyTargets = r0.attacker_fire_targets === 'any';
  const poolTargetable = r0.breach_pool_targetable ?? true;
  const enginesTargetable = r0.engines_targetable ?? true;
  const withdrawBelow = p0.withdraw_below ?? 0;
  const withdrawUnits = withdrawBelow > 0 ? ceilOfShare(withdrawBelow, att.units.length) : 0;
  let melee = false;
  const end = (r: number): boolean => {
    const e = endCheck(att, def);
    if (e === 0) return false;
    trial.outcome = e;
    trial.rounds = r;
    return true;
  };
  for (let r = 1; r <= maxRounds; r++) {
    rollPool(rng, att, r0.siege_pool === 'accumulate'); // H10 DEFAULT: emptied and rolled anew
    rollPool(rng, def, r0.siege_pool === 'accumulate');
    // ATTACKER_RANGED
    let E = 0;
    if (wall > 0) {
      E = dice(rng, 2 * count(alive(att), ENG), 6);
      if (atOnce) {
        if (shieldsVsWall) E -= noWaste(def, E);
        wall = Math.max(0, wall - E);
        E = 0;
      }
    }
    const up = wall > 0;
    const a0 = alive(att);
    let m = count(a0, MAG);
    let a = count(a0, ARC);
    if (up) {
      let W = E;
      if (fire === 'wall' || (fire === 'finish_wall' && E + 2 * m + 1.5 * a >= wall)) {
        W += dice(rng, m, 3) + dice(rng, a, 2);
        m = 0;
        a = 0;
      }
      if (shieldsVsWall && W > 0) W -= noWaste(def, W);
      wall = Math.max(0, wall - W);
    }
    if (m + a > 0) {
      let M: number[] = []; // the mage dice kept, in the order rolled
      let A = 0;
      if (up && (removal === 'highest_type_first' || removal === 'lowest_type_first')) {
        // H11 DEFAULT: k dice removed, mage dice first; (c) archer dice first
        if (removal === 'highest_type_first') {
          const rm = Math.min(k, m);
          m -= rm;
          a -= Math.min(k - rm, a);
        } else {
          const ra = Math.min(k, a);
          a -= ra;
          m -= Math.min(k - ra, m);
        }
        M = mageDice(rng, m);
        A = dice(rng, a, 2);
      } else {
        const md: number[] = [];
        for (let i = 0; i < m; i++) md.push(die(rng, 3));
        const ad: number[] = [];
        for (let i = 0; i < a; i++) ad.push(die(rng, 2));
        if (up && removal === 'points') {
          // H11 (d): k points off, the archer part first, then off the mage dice in roll order
          let cut = k;
          let sa = ad.reduce((x, y) => x + y, 0);
          const ca = Math.min(cut, sa);
          sa -= ca;
          cut -= ca;
          M = [];
          for (const d of md) {
            const take = Math.min(cut, d);
            cut -= take;
            if (d > take) M.push(d - take);
          }
          A = sa;
        } else {
          if (up) {
            // H11 (b): the k highest results go; on equal faces mage dice first
            for (let cut = k; cut > 0; cut--) {
              let best = 0;
              let fromMage = true;
              let at = -1;
              md.forEach((f, i) => {
                if (f > best) {
                  best = f;
                  at = i;
                  fromMage = true;
                }
              });
              ad.forEach((f, i) => {
                if (f > best) {
                  best = f;
                  at = i;
                  fromMage = false;
                }
              });
              if (at < 0) break;
              if (fromMage) md.splice(at, 1);
              else ad.splice(at, 1);
            }
          }
          M = md;
          A = ad.reduce((x, y) => x + y, 0);
        }
      }
      const legal = alive(def).filter((u) => !up || anyTargets || u.type === MAG || u.type === ARC); // H13
      if (legal.length > 0) receiveVolley(ctx, M, A, def, legal, 0);
    }
    if (end(r)) return;
    // DEFENDER_RANGED
    const d0 = alive(def);
    const M = mageDice(rng, count(d0, MAG));
    let A = dice(rng, count(d0, ARC), 2);
    if (tower === 'always' || (tower === 'standing_wall' && wall > 0)) A += dice(rng, 2, 3);
    const legal = alive(att).filter((u) => (enginesTargetable || u.type !== ENG) && (poolTargetable || u.place !== POOL)); // H22, H25
    if (sum(M) + A > 0 && legal.length > 0) receiveVolley(ctx, M, A, att, legal, 0);
    if (end(r)) return;
    // CLIMBS
    if (wall > 0 && climbers !== 'none') {
      for (const u of alive(att)) {
        if (u.place !== OUTSIDE) continue;
        if (u.type !== INF && !(u.type === CAV && climbers === 'infantry_and_cavalry' && cavClimb)) continue;
        const d20 = die(rng, 20);
        if (gt ? d20 > dc : d20 >= dc) u.place = POOL;
        else if (die(rng, 3) + die(rng, 3) >= u.hp) u.alive = false;
      }
    }
    if (end(r)) return;
    // BREACH CHECK
    const poolSize = () => alive(att).filter((u) => u.place === POOL).length;
    const breachNow = wall === 0 || poolSize() >= threshold;
    const first = breachNow && trial.breachRound === 0;
    if (first) trial.breachRound = r;
    if (first && meleeStart === 'same_round') melee = true;
    if (melee) {
      const fighters = wall === 0 || meleeStart === 'all_attackers' ? alive(att) : alive(att).filter((u) => u.place === POOL);
      if (fighters.length > 0) meleeExchange(ctx, rng, att, fighters, def);
      if (end(r)) return;
    }
    if (breachNow && !melee) {
      if (meleeStart === 'full_battle') {
        // H21 (b): the rest of the siege is 4.1 from round r + 1, every unit in it; no withdrawal
        if (r === maxRounds) break;
        openField(s, ctx, rng, att, def, trial, maxRounds, r + 1);
        return;
      }
      melee = true;
    }
    if (melee && wall > 0 && meleeStart !== 'all_attackers' && poolSize() === 0 && !staysOpen) melee = false;
    if (withdrawUnits > 0 && alive(att).length < withdrawUnits) {
      trial.outcome = 2;
      trial.withdrew = true;
      trial.rounds = r;
      return;
    }
  }
  trial.rounds = maxRounds;
  trial.cap = true;
  trial.outcome = capResult(s, att, def);
}

/** Play one battle or siege of s on rng. */
export function referenceTrial(s: RefScenario, rng: RngState): RefTrial {
  const dealer = s.policy?.damage_allocation === 'lowest_hp' ? 1 : 0;
  const ctx: Ctx = {
    poolFirst: s.rules?.pool_fire_order === 'pool_first',
    policy: dealer,
    dealer,
    noWaste: s.policy?.shield_spending === 'no_waste',
    meleeReceiver: s.rules?.melee_allocation === 'receiver',
    perMage: s.rules?.mage_targeting === 'per_mage',
  };
  const att = army(s.attacker, rng);
  const def = army(s.defender, rng);
  const trial: RefTrial = { outcome: 3, rounds: 0, cap: false, breachRound: 0, volleyA: 0, withdrew: false };
  const e = endCheck(att, def);
  if (e !== 0) {
    trial.outcome = e;
    return trial;
  }
  const maxRounds = s.max_rounds ?? (s.mode === 'siege' ? 20 : 10);
  if (s.mode === 'siege') siege(s, ctx, rng, att, def, trial, maxRounds);
  else openField(s, ctx, rng, att, def, trial, maxRounds);
  return trial;
}

/** Sums over `trials` battles: [n, Σx, Σx²] per metric, as docs "What each metric counts". */
export interface RefMoments {
  trials: number;
  attWins: number;
  defWins: number;
  undecided: number;
  cap: number;
  rounds: number;
  rounds2: number;
  breached: number;
  breachRound: number;
  breachRound2: number;
  volley: number;
  volley2: number;
  withdrew: number;
}

export function runReference(s: RefScenario, seed: string, trials: number): RefMoments {
  const rng = deriveState(seed, 'fantasy-reference', 0);
  const m: RefMoments = { trials, attWins: 0, defWins: 0, undecided: 0, cap: 0, rounds: 0, rounds2: 0, breached: 0, breachRound: 0, breachRound2: 0, volley: 0, volley2: 0, withdrew: 0 };
  for (let i = 0; i < trials; i++) {
    const t = referenceTrial(s, rng);
    if (t.outcome === 1) m.attWins++;
    else if (t.outcome === 2) m.defWins++;
    else m.undecided++;
    if (t.cap) m.cap++;
    m.rounds += t.rounds;
    m.rounds2 += t.rounds * t.rounds;
    if (t.breachRound > 0) {
      m.breached++;
      m.breachRound += t.breachRound;
      m.breachRound2 += t.breachRound * t.breachRound;
    }
    if (t.withdrew) m.withdrew++;
    m.volley += t.volleyA;
    m.volley2 += t.volleyA * t.volleyA;
  }
  return m;
}
