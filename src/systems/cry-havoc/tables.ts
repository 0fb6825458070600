/**
 * Cry Havoc / Siege player-aid tables (seed 003, docs/rules/cry-havoc.md 1.4-1.9 and Appendix A),
 * as data. English engine names (O6); the short-bow revised-range row shifted back (O2); the
 * stray "Muerto" cell of the foot missile key read as C = killed (O4).
 * test/cry-havoc-tables.test.ts checks every cell against the seed's own rows.
 */

export const WEAPONS = ['shortbow', 'crossbow', 'longbow', 'ballista'] as const;
export type Weapon = (typeof WEAPONS)[number];

/** Range bands in hexes: [short, medium, long] as [from, to]; +0, +1, +2 to the d10 (1.4). */
export const RANGE_BANDS: Record<'base' | 'croisades' | 'vikings', Partial<Record<Weapon, [number, number][]>>> = {
  base: {
    shortbow: [[1, 25], [26, 50], [51, 75]],
    crossbow: [[1, 25], [26, 75], [76, 130]],
    longbow: [[1, 30], [31, 90], [91, 150]],
    ballista: [[1, 50], [51, 100], [101, 175]],
  },
  croisades: {
    shortbow: [[1, 15], [16, 40], [41, 70]],
    crossbow: [[1, 25], [26, 55], [56, 90]],
    longbow: [[1, 30], [31, 60], [61, 120]],
  },
  vikings: {
    // the long band of the short bow is missing in the seed (O2): rules.vikings_shortbow_long
    shortbow: [[1, 10], [11, 25]],
    crossbow: [[1, 15], [16, 30], [31, 75]],
    longbow: [[1, 12], [13, 30], [31, 90]],
  },
};

/** Missile line = d10 + modifiers + offset (1.5). */
export const LINE_OFFSET: Record<Weapon, number> = { ballista: 0, crossbow: 2, longbow: 3, shortbow: 4 };

export const MISSILE_COVER_MOUNTED = ['none', 'light', 'medium'] as const;
export const MISSILE_COVER_FOOT = ['none', 'light', 'medium', 'heavy'] as const;

/** 1.5 A: shooting at mounted targets, lines 1..8 x cover none/light/medium. */
export const MISSILE_MOUNTED: string[][] = [
  ['F', 'E', 'D'],
  ['E', 'D', 'C'],
  ['D', 'C', 'B'],
  ['C', 'B', 'B'],
  ['B', 'B', 'A'],
  ['B', 'A', '-'],
  ['A', '-', '-'],
  ['-', '-', '-'],
];

/** 1.5 B: shooting at foot targets, lines 1..10 x cover none/light/medium/heavy. */
export const MISSILE_FOOT: string[][] = [
  ['C', 'C', 'C', 'C'],
  ['C', 'C', 'C', 'B'],
  ['C', 'C', 'C', 'B'],
  ['C', 'C', 'B', 'A'],
  ['C', 'B', 'B', 'A'],
  ['B', 'B', 'A', '-'],
  ['B', 'A', 'A', '-'],
  ['A', 'A', '-', '-'],
  ['A', '-', '-', '-'],
  ['-', '-', '-', '-'],
];

export const MELEE_COLUMNS = ['1-1', '2-1', '3-1', '4-1', '5-1', '6-1', '7-1', '8-1', '9-1', '10-1', '11-1', '12-1+'] as const;

/** 1.6 A: melee against mounted characters, d10 rows 1..10 x odds columns 1-1..12-1+. */
export const MELEE_MOUNTED: string[][] = [
  ['C', 'C', 'D', 'D', 'E', 'E', 'F', 'F', 'G', 'G', 'H', 'H'],
  ['B', 'C', 'C', 'D', 'D', 'E', 'E', 'F', 'F', 'G', 'G', 'H'],
  ['B', 'B', 'C', 'C', 'D', 'D', 'E', 'E', 'F', 'F', 'G', 'G'],
  ['A', 'B', 'B', 'C', 'C', 'D', 'D', 'E', 'E', 'F', 'F', 'G'],
  ['A', 'A', 'A', 'B', 'C', 'C', 'D', 'D', 'E', 'E', 'F', 'F'],
  ['-', '-', '-', 'A', 'B', 'C', 'C', 'D', 'D', 'E', 'E', 'F'],
  ['-', '-', '-', '-', 'A', 'B', 'C', 'C', 'D', 'D', 'E', 'E'],
  ['-', '-', '-', '-', '-', 'A', 'B', 'C', 'C', 'D', 'D', 'E'],
  ['-', '-', '-', '-', '-', '-', 'A', 'B', 'C', 'C', 'D', 'D'],
  ['-', '-', '-', '-', '-', '-', '-', 'A', 'B', 'C', 'C', 'D'],
];

/** 1.6 B: melee against foot characters (rows 2 and 3 identical as printed, O5). */
export const MELEE_FOOT: string[][] = [
  ['C', 'D', 'E', 'E', 'F', 'F', 'F', 'F', 'F', 'F', 'F', 'F'],
  ['B', 'C', 'D', 'E', 'E', 'F', 'F', 'F', 'F', 'F', 'F', 'F'],
  ['B', 'C', 'D', 'E', 'E', 'F', 'F', 'F', 'F', 'F', 'F', 'F'],
  ['A', 'B', 'C', 'D', 'D', 'E', 'E', 'F', 'F', 'F', 'F', 'F'],
  ['A', 'B', 'C', 'D', 'D', 'D', 'E', 'E', 'F', 'F', 'F', 'F'],
  ['-', 'A', 'B', 'C', 'C', 'D', 'D', 'E', 'E', 'F', 'F', 'F'],
  ['-', '-', 'A', 'B', 'C', 'C', 'D', 'D', 'E', 'E', 'F', 'F'],
  ['-', '-', '-', 'A', 'B', 'C', 'C', 'D', 'D', 'E', 'E', 'F'],
  ['-', '-', '-', '-', 'A', 'B', 'C', 'C', 'D', 'D', 'E', 'E'],
  ['-', '-', '-', '-', '-', 'A', 'B', 'C', 'C', 'D', 'D', 'E'],
];

/** 1.7 battering: columns by total points, d10 rows. */
export const BATTERING_COLUMNS = [1, 3, 6, 9, 12] as const;
export const BATTERING: string[][] = [
  ['1C', '1C', '2C', '3C', '4C'],
  ['-', '-', '1C', '2C', '3C'],
  ['-', '-', '-', '1C', 'D / 2C'],
  ['-', '-', '-', '-', 'D / 1C'],
  ['-', '-', '-', 'D', 'D'],
  ['-', '-', '-', 'D', 'D'],
  ['-', '-', 'D', 'D', 'D'],
  ['-', '-', 'D', 'D', 'D'],
  ['-', 'D', 'D', 'D', 'D'],
  ['D', 'D', 'D', 'D', 'D'],
];
/** Battering points per engine (E1 p.7). */
export const ENGINE_POINTS = { mangonel: 1, trebuchet: 3, ram: 9 } as const;
/** D results to demolish a hex (Siege 4.21, seed 004 R9). */
export const D_NEEDED = { outer: 4, interior: 1 } as const;

/** 1.8 healing: Siege d10 -> days (0 = several months: out for the scenario). */
export const HEALING_SIEGE_DAYS = [1, 2, 3, 4, 5, 6, 8, 10, 0, 0];
/** 1.8 healing, Croisades d6 -> strategic turns (0 = roll again: 1-2 dies, 3-6 heals in 5 turns). */
export const HEALING_CROISADES_TURNS = [1, 1, 2, 2, 3, 0];
export const HEALING_CROISADES_REROLL_TURNS = 5;

/** 1.9 fire table: columns hand, oil barrel, arrow vs light wood, arrow vs heavy wood, extinguishing. */
export const FIRE_COLUMNS = ['hand', 'oil_barrel', 'arrow_light', 'arrow_heavy', 'extinguish'] as const;
export const FIRE: string[][] = [
  ['-', '-', '-', '-', 'D'],
  ['-', '-', '-', '-', 'D'],
  ['-', '-', '-', '-', 'D'],
  ['-', '-', '-', '-', 'DA'],
  ['-', '-', '-', '-', 'DA'],
  ['-', '-', '-', '-', '-'],
  ['F', '-', '-', '-', '-'],
  ['F', 'F', 'F', '-', '-'],
  ['F', 'F', 'F', '-', '-'],
  ['F', 'F', 'F', 'F', '-'],
];
