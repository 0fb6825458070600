/**
 * Compile a validated fantasy scenario to integer codes and flat tables (docs/rules/fantasy.md).
 * The kernel never sees a string.
 */
import { dieThreshold } from '../../engine/dice.js';

// Troop types: the index into every per-type table.
export const INF = 0;
export const CAV = 1;
export const ARC = 2;
export const MAG = 3;
export const CLE = 4;
export const ENG = 5;
export const CAP = 6;
export const NT = 7;
export const TYPE_NAMES = ['infantry', 'cavalry', 'archer', 'mage', 'cleric', 'siege_engine', 'captain'] as const;

/** Melee die per type, seed 001 phase 5 table (engines none; the captain adds Might d6 instead). */
export const MELEE_DIE = [6, 6, 3, 2, 2, 0, 0];

/** H20 DEFAULT wall types, and H19 DEFAULT breach thresholds. */
export const WALL_TYPES = {
  palisade: { hp: 15, dc: 10, upgrades: 0, threshold: 2 },
  stone: { hp: 30, dc: 12, upgrades: 0, threshold: 4 },
  fortress: { hp: 50, dc: 14, upgrades: 1, threshold: 6 }, // 6 + 1 per upgrade is added below
} as const;

type Army = { infantry: number; cavalry: number; archers: number; mages: number; clerics: number; siege_engines: number; captain_might: number };
type Rules = Record<string, string | boolean>;

export interface FantasyScenario {
  mode: 'open_field' | 'siege';
  attacker: Army;
  defender: Army;
  hp: Record<(typeof TYPE_NAMES)[number], number>;
  values: Record<(typeof TYPE_NAMES)[number], number>;
  wall: { type: keyof typeof WALL_TYPES; hp?: number; dc?: number; upgrades?: number; breach_threshold?: number };
  policy: {
    attacker_fire: string;
    mage_fire: string;
    archer_fire: string;
    defender_fire_share: number;
    climbers: string;
    shield_spending: string;
    damage_allocation: string;
    withdraw_below: number;
  };
  max_rounds?: number;
  rules: Rules;
}

export interface FantasyCompiled {
  siege: number;
  /** Starting units, [side * NT + type]; side 0 attacker, 1 defender. */
  units: number[];
  hp: number[];
  /** Largest HP of any type: classes run 1..maxHp. */
  maxHp: number;
  /** Threat values x 10 (integers, so knapsack and tie-breaks are exact), [side * NT + type]. */
  value: number[];
  meleeDie: number[];
  might: number[];
  captainUnit: number;
  wallHp: number;
  dc: number;
  /** Dice removed from attacker fire at the defenders while the wall stands: 2 + upgrades (H11). */
  removeK: number;
  breachThreshold: number;
  fire: number; // 0 defenders, 1 wall, 2 finish_wall
  fireSplit: number; // 0 one_choice, 1 per_unit, 2 by_type
  mageFire: number; // by_type: 0 defenders, 1 wall
  archerFire: number;
  shareDefenders: number;
  climbers: number; // 0 none, 1 infantry, 2 infantry and cavalry
  shield: number; // 0 optimal, 1 no_waste, 2 full_block, 3 threshold, 4 never_phase_a
  alloc: number; // 0 greedy_value, 1 lowest_hp, 2 knapsack, 3 random
  withdrawUnits: number; // attacker withdraws below this many units (0 = never)
  leftover: number; // 0 waste, 1 persistent, 2 next_phase
  meleeAlloc: number; // 0 dealer, 1 receiver, 2 random
  mageTargeting: number; // 0 one type together, 1 per mage, 2 spill
  simultaneousRanged: number;
  openRounds: number; // 0 repeat melee, 1 single pass, 2 repeat phases
  capResult: number; // 1 more_hp, 2 defender, 3 undecided
  shieldPerComponent: number;
  archerFirst: number;
  poolAccumulates: number;
  diceRemoval: number; // 0 highest type first, 1 highest results, 2 lowest type first, 3 points
  anyTargets: number; // H13 (b)
  shieldsVsWall: number;
  tower: number; // 0 standing wall, 1 always, 2 none
  climbGt: number;
  failedClimb: number; // 0 no lasting, 1 persistent, 2 no retry
  cavalryClimb: number;
  meleeStart: number; // 0 next round, 1 full battle, 2 same round, 3 all attackers
  poolTargetable: number;
  enginesTargetable: number;
  poolFirst: number; // H29: 1 breach-pool units before equal units outside
  repelledStaysOpen: number; // H30: 1 the melee goes on after the breach pool is wiped out
  wallFall: number; // H28: 0 at once (the same volley sees the wall down), 1 at the end of the attacker's phase
  maxRounds: number;
  /** Largest Phase A damage (histogram size - 1). */
  maxVolley: number;
  /** Rejection thresholds of the dice the kernel rolls. */
  t2: number;
  t3: number;
  t6: number;
  t20: number;
  /**
   * Roll every die as the rules say instead of drawing from the dice tables (state.ts
   * PrepareOptions.perDie): set by tests that hold the table mode to it, never by compile.
   */
  perDie?: boolean;
}

const code = (v: string, options: readonly string[]): number => {
  const i = options.indexOf(v);
  if (i < 0) throw new Error(`internal: unknown option ${v}`);
  return i;
};

/**
 * ceil(share × n) exactly (H27's withdrawal threshold, 4.2), the share taken as the decimal the
 * scenario wrote: the shortest decimal that names the double (`toExponential()`), an integer
 * over a power of ten, multiplied and divided in integers. The double product can land just
 * above a whole number (0.56 × 25 = 14.000000000000002), where its ceil would be one too many.
 * @example ceilShare(0.56, 25) // 14
 * @example ceilShare(0.3, 7) // 3 (2.1 rounded up)
 */
export function ceilShare(share: number, n: number): number {
  const [mantissa, exponent] = share.toExponential().split('e'); // share >= 0: "5.6e-1"
  const fraction = mantissa.split('.')[1] ?? '';
  const digits = BigInt(mantissa.replace('.', ''));
  const places = fraction.length - Number(exponent); // share = digits / 10^places
  const product = digits * BigInt(n);
  if (places <= 0) return Number(product * 10n ** BigInt(-places));
  const den = 10n ** BigInt(places);
  return Number((product + den - 1n) / den);
}

export function compileFantasy(raw: Record<string, unknown>): FantasyCompiled {
  const s = raw as unknown as FantasyScenario;
  const r = s.rules;
  const siege = s.mode === 'siege' ? 1 : 0;
  // H1: HP per type.
  const table = TYPE_NAMES.map((t) => s.hp[t]);
  const hp =
    r.hp_preset === 'melee_die'
      ? [6, 6, 3, 2, 2, 6, s.hp.captain] // H1 (b): the unit's own melee die (siege engines 6)
      : r.hp_preset === 'one'
        ? [1, 1, 1, 1, 1, 1, 1]
        : table;
  const captainUnit = r.captain === 'unit' ? 1 : 0;
  const armies = [s.attacker, s.defender];
  const units: number[] = [];
  for (const a of armies) {
    units.push(
      a.infantry,
      a.cavalry,
      a.archers,
      a.mages,
      a.clerics,
      !siege && r.siege_units_open_field === 'absent' ? 0 : a.siege_engines, // H24 (b)
      captainUnit && a.captain_might > 0 ? 1 : 0, // H23 (b)
    );
  }
  // The captain's value is per point of Might (H23 (b)); every other value is per unit.
  const value: number[] = [];
  for (const a of armies) for (const t of TYPE_NAMES) value.push(Math.round(s.values[t] * 10 * (t === 'captain' ? Math.max(1, a.captain_might) : 1)));
  const wt = WALL_TYPES[s.wall.type];
  const upgrades = s.wall.upgrades ?? wt.upgrades;
  const defenderUnits = units.slice(NT, 2 * NT).reduce((a, b) => a + b, 0);
  const breachThreshold =
    r.breach_threshold_rule === 'half_defenders'
      ? Math.max(1, Math.ceil(defenderUnits / 2)) // H19 (b)
      : (s.wall.breach_threshold ?? (s.wall.type === 'fortress' ? wt.threshold + upgrades : wt.threshold));
  const attackerUnits = units.slice(0, NT).reduce((a, b) => a + b, 0);
  const a = s.attacker;
  return {
    siege,
    units,
    hp,
    maxHp: Math.max(...hp),
    value,
    meleeDie: MELEE_DIE,
    might: [s.attacker.captain_might, s.defender.captain_might],
    captainUnit,
    wallHp: s.wall.hp ?? wt.hp,
    dc: s.wall.dc ?? wt.dc,
    removeK: 2 + upgrades,
    breachThreshold,
    fire: code(s.policy.attacker_fire === 'defenders_while_wall_up' ? 'defenders' : s.policy.attacker_fire, ['defenders', 'wall', 'finish_wall']),
    fireSplit: code(r.fire_split as string, ['one_choice', 'per_unit', 'by_type']),
    mageFire: code(s.policy.mage_fire, ['defenders', 'wall']),
    archerFire: code(s.policy.archer_fire, ['defenders', 'wall']),
    shareDefenders: s.policy.defender_fire_share,
    climbers: code(s.policy.climbers, ['none', 'infantry', 'infantry_and_cavalry']),
    shield: code(s.policy.shield_spending, ['optimal', 'no_waste', 'full_block', 'threshold', 'never_phase_a']),
    alloc: code(s.policy.damage_allocation, ['greedy_value', 'lowest_hp', 'knapsack', 'random']),
    withdrawUnits: s.policy.withdraw_below > 0 ? ceilShare(s.policy.withdraw_below, attackerUnits) : 0,
    leftover: code(r.leftover as string, ['waste', 'persistent', 'next_phase']),
    meleeAlloc: code(r.melee_allocation as string, ['dealer', 'receiver', 'random']),
    mageTargeting: code(r.mage_targeting as string, ['one_type_together', 'per_mage', 'spill']),
    simultaneousRanged: r.ranged_phases === 'simultaneous' ? 1 : 0,
    openRounds: code(r.open_field_rounds as string, ['repeat_melee', 'single_pass', 'repeat_phases']),
    capResult:
      r.round_cap_result === 'auto' ? (siege ? 2 : 1) : code(r.round_cap_result as string, ['auto', 'more_hp', 'defender', 'undecided']),
    shieldPerComponent: r.shield_scope === 'per_component' ? 1 : 0,
    archerFirst: r.shield_reduces === 'archer_first' ? 1 : 0,
    poolAccumulates: r.siege_pool === 'accumulate' ? 1 : 0,
    // a siege's rule (H11): an open field rolls its volleys the same way whatever it says
    diceRemoval: siege ? code(r.dice_removal as string, ['highest_type_first', 'highest_results', 'lowest_type_first', 'points']) : 0,
    anyTargets: r.attacker_fire_targets === 'any' ? 1 : 0,
    shieldsVsWall: r.shields_vs_wall ? 1 : 0,
    tower: code(r.tower_bonus as string, ['standing_wall', 'always', 'none']),
    climbGt: r.climb_comparison === 'gt' ? 1 : 0,
    failedClimb: code(r.failed_climb as string, ['no_lasting', 'persistent', 'no_retry']),
    cavalryClimb: r.cavalry_climb ? 1 : 0,
    meleeStart: code(r.melee_start as string, ['next_round', 'full_battle', 'same_round', 'all_attackers']),
    poolTargetable: r.breach_pool_targetable ? 1 : 0,
    enginesTargetable: r.engines_targetable ? 1 : 0,
    poolFirst: r.pool_fire_order === 'pool_first' ? 1 : 0,
    repelledStaysOpen: r.repelled_breach === 'stays_open' ? 1 : 0,
    wallFall: code(r.wall_fall as string, ['at_once', 'end_of_phase']),
    maxRounds: s.max_rounds ?? (siege ? 20 : 10),
    maxVolley: 3 * a.mages + 2 * a.archers,
    t2: dieThreshold(2),
    t3: dieThreshold(3),
    t6: dieThreshold(6),
    t20: dieThreshold(20),
  };
}
