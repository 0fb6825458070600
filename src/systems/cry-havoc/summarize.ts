/** Summarize phase of the Cry Havoc system, one section per kind. */
import { mean, probability } from '../metrics.js';
import type { CaseSummary, CurvePoint, PairedGroup, PairedSlot } from '../types.js';
import {
  K_BATTERING,
  K_FIRE,
  K_HEALING,
  K_MELEE,
  K_MISSILE,
  MELEE_FOOT_MEANING,
  MELEE_FOOT_RESULTS,
  MELEE_MOUNTED_MEANING,
  MELEE_MOUNTED_RESULTS,
  MISSILE_FOOT_RESULTS,
  MISSILE_MOUNTED_RESULTS,
  type CryHavocCompiled,
} from './compile.js';
import { B_BY_DAY, F_BY_TURN, H_BY_DAY, healCurveDays, M_BY_TURN, M_FIRST_NONE, M_SLOTS, maxHealDay, S_BY_TURN, S_FIRST, S_SHOT_NONE } from './kernel.js';
import { cryHavocShape } from './schema.js';

/** The first melee roll's metric for a result letter ("-": none), on the table the defender starts on. */
const firstName = (l: string) => `p_first_${l === '-' ? 'none' : l}`;
/** The first shot's metric for a result letter ("-": a miss), on the table the target starts on. */
const shotName = (l: string) => `p_shot_${l === '-' ? 'miss' : l}`;

/** What each missile result means, in the order of the letters (docs/rules/cry-havoc.md 1.5, the keys under the tables). */
const MISSILE_FOOT_MEANING = ['miss', 'target retreats 2 hexes', 'target wounded', 'target killed'];
const MISSILE_MOUNTED_MEANING = [
  'miss',
  'target retreats 4 hexes',
  'horse killed, rider stunned and dismounted',
  'horse unhurt, rider wounded and dismounted',
  'horse killed, rider wounded and dismounted',
  'horse unhurt, rider killed',
  'horse and rider killed',
];

/** What each metric of a fixed name counts (RulesSystem.metricDocs), as kernel.ts counts it, kind by kind. */
export const METRIC_DOCS_CRY_HAVOC: Readonly<Record<string, string>> = {
  p_defender_killed:
    'melee: the defender died within `turns` combat turns (1.6: killed outright, wounded or stunned again while wounded or stunned, or forced to retreat while stunned)',
  p_attacker_killed:
    'melee: an attacker died before the defender did: wounded twice (an A result wounds the healthy attacker with the lowest printed attack, ties to the first listed, or all under rules.attacker_wound all; a B result with rules.retreat_blocked wounds all)',
  p_undecided: 'melee: nobody died in `turns` combat turns (the cap)',
  p_no_attack: 'melee: at some turn the attack was not allowed (odds below 1-1 under rules.odds_below_one no_attack, or a column shifted below 1-1 under shift_below_one no_attack, 1.1, 1.3), nobody dead',
  mean_turns: 'melee: the turn a character died, over the trials in which one did',
  p_killed: 'missile: the target was killed within `turns` turns, each shooter firing once a turn (1.4, 1.5)',
  mean_turns_to_kill: 'missile: the turn the target was killed, over the trials in which it was',
  p_hurt: 'missile: the target was wounded or stunned at some point (or started wounded); a kill with no wound or stun before it does not count',
  p_breached: 'battering: the wall hex fell within `days` siege days (4 D results for an outer hex, 1 for an interior one; 1.7, Siege 4.21)',
  mean_days: 'battering: the siege day the hex fell, over the trials in which it did',
  mean_points_lost: 'battering: engine points lost to C results by the end (the breach or the last day), averaged over all trials; rams never lose points',
  mean_engines_out: 'battering: mangonels and trebuchets left with no points at the end (the breach or the last day), averaged over all trials',
  p_ever_ignited: 'fire: the target caught fire in some turn (ignition attempts while not burning, 1.9)',
  p_burning_at_end: 'fire: the target was burning at the end of the last turn',
  mean_turns_burning: 'fire: turns that ended with the target burning, averaged over all trials (a never-lit trial counts 0)',
  p_healed: 'healing: the wound heals, on whatever day (1.8: the Siege d10 table other than "several months"; the Croisades d6 other than a 6 and then 1-2); healing.horizon_days does not cut it',
  p_out_for_scenario: 'healing: the Siege d10 table\'s "several months": out for the scenario',
  p_dies: 'healing: the Croisades d6 table\'s 6, then 1-2 on the second roll: the character dies',
  mean_days_to_heal: 'healing: days until healed, over the trials that heal (Croisades: strategic turns × rules.strategic_turn_days; the re-roll\'s 5 turns: 5 × strategic_turn_days days from the wound)',
};

/**
 * A letter's meaning on the foot table, when it has the letter (its index kf, -1 when not), and on
 * the mounted table (index km), which has every letter the foot table has and more.
 */
function letterMeaning(km: number, kf: number, foot: readonly string[], mounted: readonly string[], who: [string, string]): string {
  return [...(kf >= 0 ? [`${who[0]}: ${foot[kf]}`] : []), `${who[1]}: ${mounted[km]}`].join('; ');
}

/**
 * The definition of a metric named by a result letter (RulesSystem.metricDocFor): `p_first_<letter>`
 * (melee) and `p_shot_<letter>` (missile), on the table the defender or target starts on.
 */
export function metricDocCryHavoc(name: string): string | undefined {
  const first = /^p_first_(none|[A-H])$/.exec(name);
  if (first) {
    const l = first[1] === 'none' ? '-' : first[1];
    const kf = MELEE_FOOT_RESULTS.indexOf(l);
    const km = MELEE_MOUNTED_RESULTS.indexOf(l);
    const what = letterMeaning(km, kf, MELEE_FOOT_MEANING, MELEE_MOUNTED_MEANING, ['foot table', 'mounted table']);
    return `melee: the turn-1 combat roll gave ${first[1] === 'none' ? '"-"' : l} on the table the defender starts on, over all trials (every p_first_* is 0 when turn 1 allows no attack) (1.6; ${what})`;
  }
  const shot = /^p_shot_(miss|[A-F])$/.exec(name);
  if (shot) {
    const l = shot[1] === 'miss' ? '-' : shot[1];
    const kf = MISSILE_FOOT_RESULTS.indexOf(l);
    const km = MISSILE_MOUNTED_RESULTS.indexOf(l);
    const what = letterMeaning(km, kf, MISSILE_FOOT_MEANING, MISSILE_MOUNTED_MEANING, ['foot table', 'mounted table']);
    return `missile: the first shooter's first shot (turn 1, always made) gave ${shot[1] === 'miss' ? '"-"' : l} on the table the target starts on, over all trials (1.5; ${what})`;
  }
  return undefined;
}

/**
 * Who a melee's attacker and defender are (RulesSystem.sides): the file's `attackers:` and
 * `defender:`; other kinds name no sides.
 */
export function sidesCryHavoc(s: Record<string, unknown>): string | undefined {
  if (s.kind !== 'melee') return undefined;
  const att = (s.attackers as { attack: number; mounted: boolean }[] | undefined) ?? [];
  const def = s.defender as { defence: number; mounted: boolean } | undefined;
  const one = (a: { attack: number; mounted: boolean }) => `attack ${a.attack}${a.mounted ? ', mounted' : ''}`;
  const who = att.length === 1 ? 'the attacking character' : `the ${att.length} attacking characters`;
  return `attacker = ${who} (${att.map(one).join('; ')}); defender = the defending character (defence ${def?.defence ?? '?'}${def?.mounted ? ', mounted' : ''})`;
}

/** The metrics of each kind that do not depend on a table (summarizeCryHavoc makes them). */
const KIND_METRICS: Record<string, readonly string[]> = {
  melee: ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack', 'mean_turns'],
  missile: ['p_killed', 'mean_turns_to_kill', 'p_hurt'],
  battering: ['p_breached', 'mean_days', 'mean_points_lost', 'mean_engines_out'],
  fire: ['p_ever_ignited', 'p_burning_at_end', 'mean_turns_burning'],
  healing: ['p_healed', 'p_out_for_scenario', 'p_dies', 'mean_days_to_heal'],
};

/**
 * The metrics a case of this scenario produces (RulesSystem.metricNames): its kind's, and for a
 * melee or missile question one per result letter of the table the defender or target starts
 * on (foot or mounted). On a file with problems, a kind or mounted flag that cannot be read
 * counts every kind or both tables.
 */
export function metricNamesCryHavoc(s: Record<string, unknown>): string[] {
  const shape = cryHavocShape();
  const kind = shape.kind.safeParse(s.kind);
  /** Whether the defender (melee) or target (missile) starts mounted: one answer, or both when it cannot be read (a melee without a defender yet). */
  const mounted = (key: 'defender' | 'target'): boolean[] => {
    const r = shape[key].safeParse(s[key]);
    const m = r.success ? r.data?.mounted : (s[key] as { mounted?: unknown } | null | undefined)?.mounted;
    return typeof m === 'boolean' ? [m] : [true, false];
  };
  const out: string[] = [];
  for (const k of kind.success ? [kind.data] : Object.keys(KIND_METRICS)) {
    out.push(...KIND_METRICS[k]);
    if (k === 'melee') out.push(...new Set(mounted('defender').flatMap((m) => (m ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS).map(firstName))));
    if (k === 'missile') out.push(...new Set(mounted('target').flatMap((m) => (m ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS).map(shotName))));
  }
  return out;
}

/**
 * The accumulator slot of every metric over all trials (RulesSystem.pairedSlots), as
 * summarizeCryHavoc reads it: every probability, and every mean over all trials. The means over
 * the trials in which something happened (conditionalOn) are left out: their n differs by side.
 */
export function pairedSlotsCryHavoc(c: CryHavocCompiled): PairedSlot[] {
  if (c.kind === K_MELEE) {
    const letters = c.defMounted0 === 1 ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS;
    return [
      { metric: 'p_defender_killed', slot: 1 },
      { metric: 'p_attacker_killed', slot: 2 },
      { metric: 'p_undecided', slot: 3 },
      { metric: 'p_no_attack', slot: 4 },
      ...letters.map((l, k) => ({ metric: firstName(l), slot: M_BY_TURN + (c.defMounted0 === 1 ? 7 + k : k) })),
    ];
  }
  if (c.kind === K_MISSILE) {
    const letters = c.targetMounted0 === 1 ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS;
    return [{ metric: 'p_killed', slot: 1 }, { metric: 'p_hurt', slot: 4 }, ...letters.map((l, k) => ({ metric: shotName(l), slot: S_FIRST + k }))];
  }
  if (c.kind === K_BATTERING)
    return [
      { metric: 'p_breached', slot: 1 },
      { metric: 'mean_points_lost', slot: 4 },
      { metric: 'mean_engines_out', slot: 6 },
    ];
  if (c.kind === K_FIRE)
    return [
      { metric: 'p_ever_ignited', slot: 1 },
      { metric: 'p_burning_at_end', slot: 2 },
      { metric: 'mean_turns_burning', slot: 3 },
    ];
  return [
    { metric: 'p_healed', slot: 1 },
    { metric: 'p_out_for_scenario', slot: 2 },
    { metric: 'p_dies', slot: 3 },
  ];
}

/**
 * The one-hot groups of paired metrics (RulesSystem.pairedGroups), in the order the kernel writes
 * their codes (kernel.ts): how a melee ends and its turn-1 letter, the missile's first-shot
 * letter, how a wound ends. Each trial counts in exactly one outcome and at most one letter, so
 * one code a trial pairs them all. Battering and fire have none: their paired metrics overlap.
 */
export function pairedGroupsCryHavoc(c: CryHavocCompiled): PairedGroup[] {
  if (c.kind === K_MELEE) {
    const letters = c.defMounted0 === 1 ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS;
    const first = new Array<string>(M_FIRST_NONE + 1).fill(''); // turn-1 slots of the other table cannot happen
    letters.forEach((l, k) => (first[c.defMounted0 === 1 ? 7 + k : k] = firstName(l)));
    return [{ metrics: ['p_undecided', 'p_defender_killed', 'p_attacker_killed', 'p_no_attack'] }, { metrics: first }];
  }
  if (c.kind === K_MISSILE) {
    const letters = c.targetMounted0 === 1 ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS;
    const shot = new Array<string>(S_SHOT_NONE + 1).fill('');
    letters.forEach((l, k) => (shot[k] = shotName(l)));
    return [{ metrics: shot }];
  }
  if (c.kind === K_HEALING) return [{ metrics: ['', 'p_healed', 'p_out_for_scenario', 'p_dies'] }];
  return [];
}

function cumulative(acc: Float64Array, base: number, count: number, n: number, key: string, offset = 1): CurvePoint[] {
  const out: CurvePoint[] = [];
  let cum = 0;
  for (let i = 0; i < count; i++) {
    cum += acc[base + i];
    out.push({ x: { [key]: i + offset }, m: probability(cum, n) });
  }
  return out;
}

export function summarizeCryHavoc(c: CryHavocCompiled, acc: Float64Array): CaseSummary {
  const n = acc[0];
  const metrics: CaseSummary['metrics'] = {};
  const curves: CaseSummary['curves'] = {};
  if (c.kind === K_MELEE) {
    metrics.p_defender_killed = probability(acc[1], n);
    metrics.p_attacker_killed = probability(acc[2], n);
    metrics.p_undecided = probability(acc[3], n);
    metrics.p_no_attack = probability(acc[4], n);
    metrics.mean_turns = mean(acc[1] + acc[2], acc[5], acc[6], [1, c.turns]);
    // the first roll, on the table the defender starts on
    const letters = c.defMounted0 === 1 ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS;
    letters.forEach((l, k) => {
      metrics[firstName(l)] = probability(acc[M_BY_TURN + (c.defMounted0 === 1 ? 7 + k : k)], n);
    });
    const rows: CurvePoint[] = [];
    for (let t = 1; t <= c.turns; t++) {
      MELEE_FOOT_RESULTS.forEach((l, k) => rows.push({ x: { turn: t, table: 'foot', result: l }, m: probability(acc[M_BY_TURN + (t - 1) * M_SLOTS + k], n) }));
      MELEE_MOUNTED_RESULTS.forEach((l, k) =>
        rows.push({ x: { turn: t, table: 'mounted', result: l }, m: probability(acc[M_BY_TURN + (t - 1) * M_SLOTS + 7 + k], n) }),
      );
    }
    curves.results_by_turn = rows;
  } else if (c.kind === K_MISSILE) {
    metrics.p_killed = probability(acc[1], n);
    metrics.mean_turns_to_kill = mean(acc[1], acc[2], acc[3], [1, c.turns]);
    metrics.p_hurt = probability(acc[4], n);
    const letters = c.targetMounted0 === 1 ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS;
    letters.forEach((l, k) => {
      metrics[shotName(l)] = probability(acc[S_FIRST + k], n);
    });
    curves.p_killed_by_turn = cumulative(acc, S_BY_TURN, c.turns, n, 'turn');
  } else if (c.kind === K_BATTERING) {
    metrics.p_breached = probability(acc[1], n);
    metrics.mean_days = mean(acc[1], acc[2], acc[3], [1, c.days]);
    // the points lost never exceed the starting non-ram points, nor the engines out the non-ram engines (1.7)
    metrics.mean_points_lost = mean(n, acc[4], acc[5], [0, c.enginePoints.reduce((a, b) => a + b, 0)]);
    metrics.mean_engines_out = mean(n, acc[6], acc[7], [0, c.enginePoints.length]);
    curves.breach_by_day = cumulative(acc, B_BY_DAY, c.days, n, 'day');
  } else if (c.kind === K_FIRE) {
    metrics.p_ever_ignited = probability(acc[1], n);
    metrics.p_burning_at_end = probability(acc[2], n);
    metrics.mean_turns_burning = mean(n, acc[3], acc[4], [0, c.turns]);
    const rows: CurvePoint[] = [];
    for (let t = 1; t <= c.turns; t++) rows.push({ x: { turn: t }, m: probability(acc[F_BY_TURN + t - 1], n) });
    curves.p_burning_by_turn = rows;
  } else {
    metrics.p_healed = probability(acc[1], n);
    metrics.p_out_for_scenario = probability(acc[2], n);
    metrics.p_dies = probability(acc[3], n);
    metrics.mean_days_to_heal = mean(acc[1], acc[4], acc[5], [1, maxHealDay(c)]);
    curves.heal_by_day = cumulative(acc, H_BY_DAY, healCurveDays(c), n, 'day');
  }
  return { metrics, curves };
}
