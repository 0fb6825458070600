/**
 * A plain, per-die reference of the surrender system, written from docs/rules/surrender.md
 * ("What siegesim simulates", "Every scenario option") and seed 002 (the SGS "Sieges" page)
 * alone: no import from src/. One trial at a time, every die and every chance drawn one at a
 * time from a generator of its own (seedrandom's ARC4, a different stream and a different
 * word-to-face mapping from siegesim's: only the distributions are meant to agree).
 * test/surrender-reference.test.ts holds siegesim's kernel to it.
 *
 * Covers every key of "Every scenario option", every value: structure.surrender_level, port,
 * blockade_chance; besieger.combat_units, heavy_siege_artillery, artillery, bombers, engineers,
 * siege_leaders; besieged.steps_inside, siege_leaders; cards.besieger/besieged.chance, modifier;
 * turns; extra_modifier; rules.die, comparison, natural_one_succeeds, natural_max_fails,
 * heavy_counts_as_artillery, engineers_count_as_artillery, engineers_separate_modifier,
 * leader_bonus, modifiers_apply_to, overcrowding_steps, min_besieging_units, tests_per_turn.
 *
 * Metrics ("What is reported"): p_test and p_surrender (counts over n trials), mean_turns (Σt and
 * Σt² over the trials that surrendered) and surrender_by_turn (the share of all n trials
 * surrendered by the end of each turn 1..turns).
 */
import seedrandom from 'seedrandom';

// ---- the scenario, as YAML gives it (docs/rules/surrender.md "Every scenario option") ---------

export interface SurrenderRules {
  die?: number;
  comparison?: 'lt' | 'le';
  natural_one_succeeds?: boolean;
  natural_max_fails?: boolean;
  heavy_counts_as_artillery?: boolean;
  engineers_count_as_artillery?: boolean;
  engineers_separate_modifier?: boolean;
  leader_bonus?: 'once_per_side' | 'per_leader';
  modifiers_apply_to?: 'roll' | 'level';
  overcrowding_steps?: number;
  min_besieging_units?: number;
  tests_per_turn?: number;
}
export interface SurrenderCard {
  chance?: number;
  modifier?: number;
}
export interface SurrenderScenario {
  structure?: { surrender_level?: number; port?: boolean; blockade_chance?: number };
  besieger?: {
    combat_units?: number;
    heavy_siege_artillery?: number;
    artillery?: number;
    bombers?: number;
    engineers?: number;
    siege_leaders?: number;
  };
  besieged?: { steps_inside?: number; siege_leaders?: number };
  cards?: { besieger?: SurrenderCard; besieged?: SurrenderCard };
  turns?: number;
  extra_modifier?: number;
  rules?: SurrenderRules;
}

/** Every key with its value, the scenario's or the default of the document's tables. */
export interface Resolved {
  level: number;
  port: boolean;
  blockadeChance: number;
  combatUnits: number;
  heavy: number;
  artillery: number;
  bombers: number;
  engineers: number;
  besiegerLeaders: number;
  stepsInside: number;
  besiegedLeaders: number;
  besiegerCard: { chance: number; modifier: number };
  besiegedCard: { chance: number; modifier: number };
  turns: number;
  extraModifier: number;
  rules: Required<SurrenderRules>;
}

/** The defaults, column "default" of "Every scenario option" (both tables). */
export function resolve(s: SurrenderScenario): Resolved {
  const r = s.rules ?? {};
  return {
    level: s.structure?.surrender_level ?? 3,
    port: s.structure?.port ?? false,
    blockadeChance: s.structure?.blockade_chance ?? 1,
    combatUnits: s.besieger?.combat_units ?? 2,
    heavy: s.besieger?.heavy_siege_artillery ?? 0,
    artillery: s.besieger?.artillery ?? 0,
    bombers: s.besieger?.bombers ?? 0,
    engineers: s.besieger?.engineers ?? 0,
    besiegerLeaders: s.besieger?.siege_leaders ?? 0,
    stepsInside: s.besieged?.steps_inside ?? 0,
    besiegedLeaders: s.besieged?.siege_leaders ?? 0,
    besiegerCard: { chance: s.cards?.besieger?.chance ?? 0, modifier: s.cards?.besieger?.modifier ?? -1 },
    besiegedCard: { chance: s.cards?.besieged?.chance ?? 0, modifier: s.cards?.besieged?.modifier ?? 1 },
    turns: s.turns ?? 12,
    extraModifier: s.extra_modifier ?? 0,
    rules: {
      die: r.die ?? 6,
      comparison: r.comparison ?? 'lt',
      natural_one_succeeds: r.natural_one_succeeds ?? false,
      natural_max_fails: r.natural_max_fails ?? false,
      heavy_counts_as_artillery: r.heavy_counts_as_artillery ?? true,
      engineers_count_as_artillery: r.engineers_count_as_artillery ?? true,
      engineers_separate_modifier: r.engineers_separate_modifier ?? false,
      leader_bonus: r.leader_bonus ?? 'once_per_side',
      modifiers_apply_to: r.modifiers_apply_to ?? 'roll',
      overcrowding_steps: r.overcrowding_steps ?? 5,
      min_besieging_units: r.min_besieging_units ?? 2,
      tests_per_turn: r.tests_per_turn ?? 1,
    },
  };
}

// ---- seed 002 section B: the modifiers ----------------------------------------------------------

/** (v): the ±2 once per side (the best leader) or once per leader. */
function leaders(r: Resolved, n: number): number {
  return r.rules.leader_bonus === 'once_per_side' ? Math.min(n, 1) : n;
}

/**
 * Σm, the constant modifiers (the pseudo-code's first block), with the printed signs of seed 002
 * section B; the rules file's (ii)-(v) decide what the source leaves open.
 */
export function constantModifier(r: Resolved): number {
  let m = 0;
  // "-1 for each siege-able heavy artillery unit present"
  m -= r.heavy;
  // "-1 if one or more artillery units or Bombers are present"; (iii) a heavy "S" unit is an
  // artillery unit (DEFAULT); (ii) engineers are part of this line (DEFAULT), not cumulative
  const anyArtillery =
    r.artillery > 0 ||
    r.bombers > 0 ||
    (r.rules.heavy_counts_as_artillery && r.heavy > 0) ||
    (r.rules.engineers_count_as_artillery && r.engineers > 0);
  if (anyArtillery) m -= 1;
  // (ii) the alternative: engineers' own -1, on top of the line above (its table's last row: -2 alone)
  if (r.rules.engineers_separate_modifier && r.engineers > 0) m -= 1;
  // "-1 for every 5 steps of combat units sheltered inside" (iv: steps, floor)
  m -= Math.floor(r.stepsInside / r.rules.overcrowding_steps);
  // "-2 for the siege bonus of the besieging leader", "+2 for ... the besieged leader" (v)
  m -= 2 * leaders(r, r.besiegerLeaders);
  m += 2 * leaders(r, r.besiegedLeaders);
  // a further constant die-roll modifier, part of Σm
  m += r.extraModifier;
  return m;
}

/**
 * succeeds(roll, m) of the pseudo-code: seed rule 3's "modified die-roll result which is below
 * the surrender level", with the toggles of "Proposed simulator defaults" and (i).
 */
export function succeeds(r: Resolved, roll: number, m: number): boolean {
  // the natural rules read the roll itself, before any modifier, under either reading of (i)
  if (r.rules.natural_one_succeeds && roll === 1) return true;
  if (r.rules.natural_max_fails && roll === r.rules.die) return false;
  // (i) roll: roll + m against L; level: roll against L + m, that is roll - m against L
  const v = r.rules.modifiers_apply_to === 'roll' ? roll + m : roll - m;
  return r.rules.comparison === 'lt' ? v < r.level : v <= r.level;
}

// ---- the dice ------------------------------------------------------------------------------------

/** One trial stream: a fair die by rejection on 32-bit words, a chance from a 53-bit double. */
class Dice {
  private readonly prng: seedrandom.PRNG;
  constructor(key: string) {
    this.prng = seedrandom(`surrender-reference/${key}`);
  }
  /** A fair face 1..n: the words above the largest multiple of n are thrown back. */
  die(n: number): number {
    const span = 2 ** 32;
    const limit = span - (span % n);
    for (;;) {
      const u = this.prng.int32() >>> 0;
      if (u < limit) return (u % n) + 1;
    }
  }
  /** True with probability p (p >= 1 always, p <= 0 never). */
  chance(p: number): boolean {
    return this.prng.double() < p;
  }
}

// ---- the trial ("What siegesim simulates", "each trial") ----------------------------------------

export interface SurrenderMoments {
  trials: number;
  /** p_test's successes. */
  testSucceeded: number;
  /** p_surrender's successes (surrendered by the last turn). */
  surrendered: number;
  /** Σt and Σt² of the turn of surrender, over the trials that surrendered (mean_turns). */
  turnSum: number;
  turnSumSq: number;
  /** surrender_by_turn: byTurn[t - 1] trials surrendered by the end of turn t, t = 1..turns. */
  byTurn: number[];
}

/** The turn of surrender of one trial (0: never), and whether its p_test roll succeeded. */
function playTrial(r: Resolved, sigma: number, dice: Dice): { test: boolean; turn: number } {
  // p_test: a die of its own, the trial's first draw, no card, no blockade, rolled also
  // when there is no siege
  const test = succeeds(r, dice.die(r.rules.die), sigma);
  // seed rule 1: "at least 2 combat units" (rules.min_besieging_units), checked first
  if (r.combatUnits < r.rules.min_besieging_units) return { test, turn: 0 };
  for (let t = 1; t <= r.turns; t++) {
    // seed rule 6 (section C): a port is tested only while blockaded, drawn every turn;
    // port: false ignores blockade_chance
    if (r.port && !dice.chance(r.blockadeChance)) continue;
    // "Proposed simulator defaults": each side's card drawn once per turn, before the tests,
    // its modifier a die-roll modifier like the others
    let m = sigma;
    if (r.besiegerCard.chance > 0 && dice.chance(r.besiegerCard.chance)) m += r.besiegerCard.modifier;
    if (r.besiegedCard.chance > 0 && dice.chance(r.besiegedCard.chance)) m += r.besiegedCard.modifier;
    // rules.tests_per_turn tests with the turn's m; seed rule 4: success ends the siege,
    // failure: "nothing else happens, siege continues"
    for (let i = 0; i < r.rules.tests_per_turn; i++) {
      if (succeeds(r, dice.die(r.rules.die), m)) return { test, turn: t };
    }
  }
  return { test, turn: 0 };
}

/** Run `trials` trials of one case and return the counts and moments of every metric. */
export function runReference(s: SurrenderScenario, key: string, trials: number): SurrenderMoments {
  const r = resolve(s);
  const sigma = constantModifier(r);
  const dice = new Dice(key);
  const perTurn = new Array<number>(r.turns + 1).fill(0);
  const out: SurrenderMoments = { trials, testSucceeded: 0, surrendered: 0, turnSum: 0, turnSumSq: 0, byTurn: [] };
  for (let i = 0; i < trials; i++) {
    const { test, turn } = playTrial(r, sigma, dice);
    if (test) out.testSucceeded++;
    if (turn > 0) {
      out.surrendered++;
      out.turnSum += turn;
      out.turnSumSq += turn * turn;
      perTurn[turn]++;
    }
  }
  let by = 0;
  for (let t = 1; t <= r.turns; t++) {
    by += perTurn[t];
    out.byTurn.push(by);
  }
  return out;
}

// ---- what the rules make certain -----------------------------------------------------------------

/**
 * The outcomes the rules make certain, read off the faces and the chances without dice: p_test
 * 0 or 1 when every face fails or every face succeeds; p_surrender 0 when no turn can test or
 * no card combination that can happen has a succeeding face, and 1 (every surrender in turn 1)
 * when every combination that can happen succeeds on every face and every turn is tested.
 * A chance strictly between 0 and 1 counts both ways, so these hold also for a kernel that draws
 * a chance p as a nearby multiple of 2^-31 (the rules file's "What siegesim simulates").
 */
export function certainties(s: SurrenderScenario): { pTest?: 0 | 1; pSurrender?: 0 | 1 } {
  const r = resolve(s);
  const sigma = constantModifier(r);
  const faces = (m: number): { any: boolean; all: boolean } => {
    let any = false;
    let all = true;
    for (let f = 1; f <= r.rules.die; f++) {
      if (succeeds(r, f, m)) any = true;
      else all = false;
    }
    return { any, all };
  };
  const t = faces(sigma);
  const out: { pTest?: 0 | 1; pSurrender?: 0 | 1 } = {};
  if (!t.any) out.pTest = 0;
  if (t.all) out.pTest = 1;
  const outcomes = (p: number): boolean[] => (p <= 0 ? [false] : p >= 1 ? [true] : [false, true]);
  if (r.combatUnits < r.rules.min_besieging_units || (r.port && r.blockadeChance <= 0)) {
    out.pSurrender = 0;
    return out;
  }
  let any = false;
  let all = true;
  for (const b of outcomes(r.besiegerCard.chance))
    for (const d of outcomes(r.besiegedCard.chance)) {
      const f = faces(sigma + (b ? r.besiegerCard.modifier : 0) + (d ? r.besiegedCard.modifier : 0));
      if (f.any) any = true;
      if (!f.all) all = false;
    }
  if (!any) out.pSurrender = 0;
  else if (all && (!r.port || r.blockadeChance >= 1)) out.pSurrender = 1;
  return out;
}
