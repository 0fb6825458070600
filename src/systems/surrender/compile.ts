/**
 * Compile a validated surrender scenario to flat integers: every modifier of seed 002 is summed
 * here, once, so the kernel only rolls dice and compares.
 */
import { dieThreshold } from '../../engine/dice.js';
import { chanceThreshold } from '../../engine/rng.js';

export interface SurrenderScenario {
  structure: { surrender_level: number; port: boolean; blockade_chance: number };
  besieger: {
    combat_units: number;
    heavy_siege_artillery: number;
    artillery: number;
    bombers: number;
    engineers: number;
    siege_leaders: number;
  };
  besieged: { steps_inside: number; siege_leaders: number };
  cards: { besieger: { chance: number; modifier: number }; besieged: { chance: number; modifier: number } };
  turns: number;
  extra_modifier: number;
  rules: {
    die: number;
    comparison: 'lt' | 'le';
    natural_one_succeeds: boolean;
    natural_max_fails: boolean;
    heavy_counts_as_artillery: boolean;
    engineers_count_as_artillery: boolean;
    engineers_separate_modifier: boolean;
    leader_bonus: 'once_per_side' | 'per_leader';
    modifiers_apply_to: 'roll' | 'level';
    overcrowding_steps: number;
    min_besieging_units: number;
    tests_per_turn: number;
  };
}

/** Flat, structured-cloneable form the kernel runs on. */
export interface SurrenderCompiled {
  level: number;
  die: number;
  dieT: number;
  /** 1 for the `<=` test. */
  le: number;
  nat1: number;
  natMax: number;
  /** +1: modifiers add to the roll; -1: they add to the level (so subtract from the roll). */
  sign: number;
  /** Σm with the printed signs (negative helps the besieger). */
  baseMod: number;
  /** 0 when there are too few besiegers for a siege (seed rule 1): no test ever happens. */
  siege: number;
  port: number;
  blockadeChance: number;
  blockadeT: number;
  cardBChance: number;
  cardBT: number;
  cardBMod: number;
  cardDChance: number;
  cardDT: number;
  cardDMod: number;
  turns: number;
  testsPerTurn: number;
}

/**
 * The sum of the listed modifiers, signs as printed in seed 002 (section B).
 * @example the rules file's fortress example gives -4
 */
export function modifierSum(s: SurrenderScenario): number {
  const r = s.rules;
  const b = s.besieger;
  let m = 0;
  m -= b.heavy_siege_artillery; // "-1 for each siege-able heavy artillery unit present"
  const anyArtillery =
    b.artillery > 0 ||
    b.bombers > 0 ||
    (r.heavy_counts_as_artillery && b.heavy_siege_artillery > 0) || // (iii)
    (r.engineers_count_as_artillery && b.engineers > 0); // (ii)
  if (anyArtillery) m -= 1; // "-1 if one or more artillery units or Bombers are present"
  if (r.engineers_separate_modifier && b.engineers > 0) m -= 1; // (ii) alternative
  m -= Math.floor(s.besieged.steps_inside / r.overcrowding_steps); // "-1 for every 5 steps", (iv)
  const leaders = (n: number) => (r.leader_bonus === 'per_leader' ? n : Math.min(n, 1)); // (v)
  m -= 2 * leaders(b.siege_leaders); // "-2 for the siege bonus of the besieging leader"
  m += 2 * leaders(s.besieged.siege_leaders); // "+2 for the siege bonus of the besieged leader"
  m += s.extra_modifier;
  return m;
}

/**
 * Settings a case writes that change nothing in it: a blockade chance when the structure is not
 * a port (only a port's test waits for the blockade, seed 002 section C; compile ignores it).
 */
export function deadSettingsSurrender(written: Record<string, unknown>, scenario: Record<string, unknown>): { path: string[]; message: string }[] {
  const s = scenario as unknown as SurrenderScenario;
  const structure = written.structure;
  const writes = structure !== null && typeof structure === 'object' && Object.prototype.hasOwnProperty.call(structure, 'blockade_chance');
  if (!writes || s.structure.port) return [];
  return [
    {
      path: ['structure', 'blockade_chance'],
      message: 'changes nothing: structure.port is false, and only a port waits for its blockade (seed 002 section C); set structure.port: true, or leave blockade_chance out',
    },
  ];
}

export function compileSurrender(raw: Record<string, unknown>): SurrenderCompiled {
  const s = raw as unknown as SurrenderScenario;
  const r = s.rules;
  return {
    level: s.structure.surrender_level,
    die: r.die,
    dieT: dieThreshold(r.die),
    le: r.comparison === 'le' ? 1 : 0,
    nat1: r.natural_one_succeeds ? 1 : 0,
    natMax: r.natural_max_fails ? 1 : 0,
    sign: r.modifiers_apply_to === 'level' ? -1 : 1,
    baseMod: modifierSum(s),
    siege: s.besieger.combat_units >= r.min_besieging_units ? 1 : 0,
    port: s.structure.port ? 1 : 0,
    blockadeChance: s.structure.port ? s.structure.blockade_chance : 1,
    blockadeT: chanceThreshold(s.structure.port ? s.structure.blockade_chance : 1),
    cardBChance: s.cards.besieger.chance,
    cardBT: chanceThreshold(s.cards.besieger.chance),
    cardBMod: s.cards.besieger.modifier,
    cardDChance: s.cards.besieged.chance,
    cardDT: chanceThreshold(s.cards.besieged.chance),
    cardDMod: s.cards.besieged.modifier,
    turns: s.turns,
    testsPerTurn: r.tests_per_turn,
  };
}

/**
 * Does a roll succeed with modifier sum m? Shared by the kernel and the exact solver, so the
 * two differ only in how they get their dice.
 */
export function testSucceeds(c: SurrenderCompiled, roll: number, m: number): boolean {
  if (c.nat1 === 1 && roll === 1) return true;
  if (c.natMax === 1 && roll === c.die) return false;
  const v = roll + c.sign * m;
  return c.le === 1 ? v <= c.level : v < c.level;
}
