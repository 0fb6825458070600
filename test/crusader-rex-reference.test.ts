/**
 * Differential test (docs/rules/crusader-rex.md §9, §10): siegesim's Crusader Rex kernel, run
 * in-process through the public API (`validateText`, `runScenario`), against the plain per-die
 * reference written from the document alone (test/reference/crusader-rex.ts), on scenarios
 * fast-check generates: random blocks for each side (roster or given in full, any steps, place
 * and arrival round), field battles and sieges, and every option of §10 with every value, all
 * drawn together in one scenario (not one at a time).
 *
 * Each scenario compares every metric (7 probabilities by a pooled two-proportion z, 3 means by
 * Welch's z from n, Σx, Σx²), every survivors.csv point (a probability) and every attrition.csv
 * point (a mean). The limit is Šidák-corrected for every comparison the run can make (RUNS x
 * MAX_COMPARISONS, a bound on one scenario's), so a run raises a false alarm with probability
 * FAMILY_ALPHA = 0.001 when kernel and reference play the same rules. Seeds are fixed: a pass
 * stays a pass. A failing scenario is shrunk by fast-check to a smaller one that still fails.
 *
 * Besides the generated scenarios, TARGETED holds the combinations the brief asked to hold (a
 * Saracen-held castle with Frank stormers and sallies, charge, withdraw and jihad; winter campaign
 * and fortified port with storms and sallies; P1's R3 other-road relief and no relief delay with
 * retreats, harry, withdraw and jihad; listed stormers with retest; a rating-4 castle; the
 * attacker's retreat slots 0; blocks given in full; sieges of 4-5 turns), each its own it(), and
 * two cases that settle readings the document leaves open (test/reference/crusader-rex.ts's header).
 *
 * Default: 12 generated + 13 targeted scenarios x 1200 trials, about 6 s of CPU (14 s wall on
 * this 2-core machine shared with three other agents). The larger sweep:
 *   CR_REF_RUNS=500 CR_REF_TRIALS=4000 npx vitest run test/crusader-rex-reference.test.ts
 * was run on 2026-11-30: 500 generated + 13 targeted scenarios x 4000 trials, 51,622 comparisons,
 * limit |z| < 5.724, all passed, worst |z| 3.69 (survivors.csv saracens 4 steps, run-408),
 * 364 s wall (106 s CPU) on the shared machine.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { runScenario, validateText, type Metric } from '../src/api.js';
import { sidakLimit, zMean, zProp } from './reference/compare.js';
import { MEANS, PROBS, runReference, type At, type RefBlock, type RefResult, type RefScenario, type Side } from './reference/crusader-rex.js';

const RUNS = Number(process.env.CR_REF_RUNS ?? 12);
const TRIALS = Number(process.env.CR_REF_TRIALS ?? 1200);
const MAX_TURNS = 5;
const MAX_BLOCKS_A_SIDE = 7;
/** 10 metrics, survivors (0..28 steps a side), attrition (turns x 4 rounds x 2 sides x 3 places). */
const MAX_COMPARISONS = 10 + 2 * (MAX_BLOCKS_A_SIDE * 4 + 1) + MAX_TURNS * 4 * 2 * 3;
/** The chance that a correct kernel fails this run somewhere. */
const FAMILY_ALPHA = 0.001;
/** Šidák: each comparison at 1 - (1 - FAMILY_ALPHA)^(1 / comparisons), two-sided. */
const zLimit = (scenarios: number) => sidakLimit(scenarios * MAX_COMPARISONS, FAMILY_ALPHA);


// ---- the generator -----------------------------------------------------------------------------

/** Part of the roster of §5.1: [name, side, max steps, rating, type]. */
const ROSTER: [string, Side, number, string, string][] = [
  ['Richard', 'franks', 4, 'B4', 'crusader'],
  ['Robert', 'franks', 3, 'B3', 'crusader'],
  ['Crossbows', 'franks', 3, 'A2', 'crusader'],
  ['Hugues', 'franks', 4, 'B2', 'crusader'],
  ['Jerusalem Templars', 'franks', 3, 'B3', 'military_order'],
  ['Krak Hospitallers', 'franks', 2, 'B3', 'military_order'],
  ['Conrad', 'franks', 4, 'B3', 'outremer'],
  ['Balian', 'franks', 3, 'B2', 'outremer'],
  ['Walter', 'franks', 3, 'B2', 'outremer'],
  ['Reynald (Kerak)', 'franks', 2, 'B3', 'outremer'],
  ['Antioch Turcopoles', 'franks', 3, 'A2', 'turcopoles'],
  ['Beirut Turcopoles', 'franks', 3, 'A2', 'turcopoles'],
  ['Genoa Pilgrims', 'franks', 4, 'C2', 'pilgrims'],
  ['Sicily Pilgrims', 'franks', 3, 'C2', 'pilgrims'],
  ['Saladin', 'saracens', 4, 'A3', 'emir'],
  ['Al Adil', 'saracens', 4, 'A2', 'emir'],
  ['Al Afdal', 'saracens', 3, 'B3', 'emir'],
  ['Zangi', 'saracens', 3, 'B2', 'emir'],
  ['Sanjar', 'saracens', 3, 'B2', 'emir'],
  ['Yazkuj', 'saracens', 2, 'B2', 'emir'],
  ['Kurds 1', 'saracens', 4, 'C1', 'nomads'],
  ['Kurds 3', 'saracens', 3, 'C2', 'nomads'],
  ['Turks 1', 'saracens', 3, 'A2', 'nomads'],
  ['Turks 3', 'saracens', 4, 'A1', 'nomads'],
  ['Arabs 1', 'saracens', 3, 'B2', 'nomads'],
  ['Arabs 3', 'saracens', 4, 'B1', 'nomads'],
];
const TYPES = ['crusader', 'military_order', 'outremer', 'turcopoles', 'pilgrims', 'emir', 'nomads', 'infantry'];

/** A block as drawn: a roster index or a block given in full, with its steps as a share of its maximum. */
const blockArb = (ats: At[]) =>
  fc.record({
    roster: fc.option(fc.nat({ max: ROSTER.length - 1 }), { nil: undefined, freq: 2 }),
    max: fc.integer({ min: 1, max: 4 }),
    letter: fc.constantFrom('A', 'B', 'C'),
    fp: fc.integer({ min: 1, max: 6 }),
    type: fc.constantFrom(...TYPES),
    stepsOff: fc.constantFrom(0, 0, 0, 1, 2, 3),
    at: fc.constantFrom<At>(...ats),
    arrives: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined, freq: 4 }),
  });

/** The policies and rules: every value of every key, each key left out (its DEFAULT) at times. */
const policyArb = (siege: boolean) =>
  fc.record(
    {
      deployment: fc.constantFrom('field_first', 'castle_first', 'all_castle', 'all_field'),
      storm: siege ? fc.constantFrom('never', 'always', 'always', 'when_stronger', 'when_stronger') : fc.constantFrom('never', 'always', 'when_stronger'),
      storm_ratio: fc.constantFrom(0, 0.25, 0.5, 1, 1.5, 2),
      stormers: fc.constantFrom('strongest', 'listed'),
      storm_top_up: fc.constantFrom('always', 'retest'),
      sally: fc.constantFrom('never', 'always', 'when_stronger'),
      sally_ratio: fc.constantFrom(0, 0.5, 1, 1.5, 2),
      charge: fc.constantFrom('never', 'always', 'when_strongest_enemy_block_is_weaker'),
      harry: fc.constantFrom('never', 'never', 'always'),
      retreat: siege ? fc.constantFrom('never', 'never', 'never', 'when_outnumbered') : fc.constantFrom('never', 'when_outnumbered'),
      withdraw: fc.constantFrom('never', 'when_weaker'),
      tie_break: fc.constantFrom('first_listed', 'protect_best', 'random'),
      fire_order: fc.constantFrom('listed', 'strongest_first'),
      besieger_after_r3: siege ? fc.constantFrom('stay', 'stay', 'stay', 'retreat') : fc.constantFrom('stay', 'retreat'),
    },
    { requiredKeys: [] },
  );

const optionsArb = (siege: boolean) =>
  fc.record({
    rating: siege ? fc.integer({ min: 1, max: 4 }) : fc.integer({ min: 0, max: 4 }),
    fortified_port: fc.option(fc.boolean(), { nil: undefined }),
    player1: fc.constantFrom<Side>('franks', 'saracens'),
    siege: siege ? fc.constantFrom(true, true, false) : fc.boolean(),
    attacker: fc.constantFrom<Side>('franks', 'saracens'),
    turns: siege ? fc.integer({ min: 1, max: MAX_TURNS }) : fc.option(fc.integer({ min: 1, max: MAX_TURNS }), { nil: undefined }),
    retreat_slots: fc.option(
      fc.record({ attacker: fc.integer({ min: -1, max: 3 }), defender: fc.integer({ min: -1, max: 3 }) }, { requiredKeys: [] }),
      { nil: undefined },
    ),
    policy: policyArb(siege),
    rules: fc.record(
      {
        relief_delay_when_besieged_without_attack: fc.boolean(),
        p1_other_road_relief_round: fc.constantFrom(2, 3),
        declined_sally_goes_to_attrition: fc.boolean(),
        control_change_any_round: fc.boolean(),
        winter_campaign: fc.boolean(),
        jihad: fc.constantFrom('none', 'attacker'),
      },
      { requiredKeys: [] },
    ),
  });

type Drawn = ReturnType<typeof blockArb> extends fc.Arbitrary<infer T> ? T : never;
type Options = ReturnType<typeof optionsArb> extends fc.Arbitrary<infer T> ? T : never;

/** Builds a scenario inside the document's limits (§10) from what fast-check drew. */
function build(o: Options, a: Drawn[], d: Drawn[]): RefScenario {
  const siege = o.siege && o.rating >= 1; // an existing siege needs a castle
  const A = o.attacker;
  const D: Side = A === 'franks' ? 'saracens' : 'franks';
  const used = new Set<number>();
  const blocks: RefBlock[] = [];
  const make = (x: Drawn, side: Side, k: number) => {
    let b: RefBlock;
    const r = x.roster !== undefined ? ROSTER.findIndex((e, i) => i >= x.roster! && e[1] === side && !used.has(i)) : -1;
    if (r >= 0) {
      used.add(r);
      const [name, , max, rating, type] = ROSTER[r];
      b = { name, side, max, rating, type };
    } else b = { name: `${side === 'franks' ? 'Frank' : 'Saracen'} ${k + 1}`, side, max: x.max, rating: `${x.letter}${x.fp}`, type: x.type };
    b.steps = Math.max(1, b.max - x.stepsOff);
    // castle and town are for the castle's side only, and only where there is a castle (§10)
    b.at = (x.at === 'castle' || x.at === 'town') && (side !== D || o.rating === 0) ? 'field' : x.at;
    if (x.arrives !== undefined) b.arrives = x.arrives;
    blocks.push(b);
  };
  a.forEach((x, k) => make(x, A, k));
  d.forEach((x, k) => make(x, D, k));
  const s: RefScenario = {
    rating: o.rating,
    player1: o.player1,
    situation: siege ? 'existing_siege' : 'new_battle',
    blocks,
    policy: o.policy as RefScenario['policy'],
    rules: o.rules as RefScenario['rules'],
  };
  if (siege) s.besieged = D;
  else s.attacker = A;
  if (o.fortified_port !== undefined) s.fortified_port = o.fortified_port;
  if (o.turns !== undefined) s.turns = o.turns;
  if (o.retreat_slots !== undefined) s.retreat_slots = o.retreat_slots;
  return s;
}

/**
 * Two kinds of scenario, both drawing every option: any battle (the castle side's blocks anywhere),
 * and a siege (a castle, the castle side's blocks mostly inside, storms likelier, retreats rarer,
 * more game turns), so that storms, sallies, relief and attrition are common, not rare.
 */
const kindArb = (siege: boolean) =>
  fc
    .tuple(
      optionsArb(siege),
      fc.array(blockArb(siege ? ['field', 'field', 'field', 'main_road', 'other_road'] : ['field', 'field', 'main_road', 'other_road']), { minLength: siege ? 1 : 0, maxLength: MAX_BLOCKS_A_SIDE }),
      fc.array(blockArb(siege ? ['castle', 'castle', 'town', 'town', 'field', 'main_road', 'other_road'] : ['field', 'field', 'castle', 'town', 'town', 'main_road', 'other_road']), { minLength: siege ? 1 : 0, maxLength: MAX_BLOCKS_A_SIDE }),
    )
    .filter(([, a, d]) => a.length + d.length > 0) // one-sided battles are accepted (§10); empty ones are not
    .map(([o, a, d]) => build(o, a, d));
const scenarioArb: fc.Arbitrary<RefScenario> = fc.oneof({ arbitrary: kindArb(false), weight: 1 }, { arbitrary: kindArb(true), weight: 2 });

/** The scenario as a YAML file (docs/scenarios.md, "The Crusader Rex system"). */
export function toYaml(s: RefScenario, trials: number): string {
  const doc: Record<string, unknown> = {
    name: 'cr-reference',
    system: 'crusader-rex',
    seed: 1,
    trials,
    town: s.fortified_port === undefined ? { rating: s.rating } : { rating: s.rating, fortified_port: s.fortified_port },
    player1: s.player1,
    situation: s.situation,
  };
  if (s.attacker) doc.attacker = s.attacker;
  if (s.besieged) doc.besieged = s.besieged;
  doc.blocks = s.blocks.map((b) => {
    const inRoster = ROSTER.some((e) => e[0] === b.name);
    const y: Record<string, unknown> = inRoster ? { block: b.name } : { name: b.name, side: b.side, max: b.max, rating: b.rating, type: b.type };
    if (b.steps !== undefined) y.steps = b.steps;
    if (b.at !== undefined) y.at = b.at;
    if (b.arrives !== undefined) y.arrives = b.arrives;
    return y;
  });
  if (s.turns !== undefined) doc.turns = s.turns;
  if (s.retreat_slots !== undefined) doc.retreat_slots = s.retreat_slots;
  if (s.policy && Object.keys(s.policy).length) doc.policy = s.policy;
  if (s.rules && Object.keys(s.rules).length) doc.rules = s.rules;
  return stringify(doc);
}

// ---- the cases the brief names, each held in every default run -----------------------------------

const R = (name: string, at?: At, extra: Partial<RefBlock> = {}): RefBlock => {
  const e = ROSTER.find((x) => x[0] === name)!;
  return { name, side: e[1], max: e[2], rating: e[3], type: e[4], ...(at ? { at } : {}), ...extra };
};

/** Combinations no other test holds the kernel to, each drawn with several options at once. */
export const TARGETED: [string, RefScenario][] = [
  [
    'a Saracen-held castle: Frank stormers and a relief, charge, withdraw, jihad, the castle sallying',
    {
      rating: 2, player1: 'franks', situation: 'existing_siege', besieged: 'saracens', turns: 3,
      blocks: [R('Zangi', 'castle'), R('Yazkuj', 'castle'), R('Kurds 3', 'town'), R('Richard'), R('Conrad'), R('Antioch Turcopoles'), R('Arabs 1', 'main_road'), R('Turks 1', 'other_road')],
      policy: { storm: 'always', sally: 'when_stronger', sally_ratio: 0.5, charge: 'always', withdraw: 'when_weaker', harry: 'always', tie_break: 'protect_best' },
      rules: { jihad: 'attacker', relief_delay_when_besieged_without_attack: false },
    },
  ],
  [
    'a new battle at a Saracen castle: Franks attack, knights charge when the enemy is weaker, the castle sallies from R2',
    {
      rating: 3, player1: 'saracens', situation: 'new_battle', attacker: 'franks', turns: 4,
      blocks: [R('Robert'), R('Hugues'), R('Jerusalem Templars', 'other_road'), R('Saladin', 'town'), R('Sanjar', 'town'), R('Kurds 1', 'town'), R('Al Adil', 'main_road')],
      policy: { deployment: 'castle_first', storm: 'when_stronger', storm_ratio: 0.5, sally: 'always', charge: 'when_strongest_enemy_block_is_weaker', withdraw: 'when_weaker', fire_order: 'strongest_first' },
      rules: { jihad: 'attacker', control_change_any_round: false },
    },
  ],
  [
    'winter campaign at a fortified port with storms and sallies over 4 turns',
    {
      rating: 2, fortified_port: true, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', turns: 4,
      blocks: [R('Balian', 'castle'), R('Walter', 'castle'), R('Saladin'), R('Zangi'), R('Turks 3')],
      policy: { storm: 'when_stronger', storm_ratio: 0.75, sally: 'when_stronger', withdraw: 'when_weaker' },
      rules: { winter_campaign: true },
    },
  ],
  [
    'fortified port without winter, storms always and sallies always, 5 turns',
    {
      rating: 3, fortified_port: true, player1: 'franks', situation: 'existing_siege', besieged: 'saracens', turns: 5,
      blocks: [R('Al Afdal', 'castle'), R('Sanjar', 'castle'), R('Crossbows'), R('Krak Hospitallers'), R('Genoa Pilgrims')],
      policy: { storm: 'always', sally: 'always', stormers: 'listed', storm_top_up: 'retest', tie_break: 'random' },
      rules: { winter_campaign: false, declined_sally_goes_to_attrition: false },
    },
  ],
  [
    "P1's other-road relief in R3 and no relief delay, with retreats, jihad, harry and withdraw",
    {
      rating: 2, player1: 'franks', situation: 'existing_siege', besieged: 'franks', turns: 2,
      blocks: [R('Balian', 'castle'), R('Reynald (Kerak)', 'castle'), R('Conrad', 'main_road'), R('Beirut Turcopoles', 'other_road'), R('Zangi'), R('Turks 1'), R('Kurds 3', 'main_road'), R('Arabs 3', 'other_road')],
      retreat_slots: { attacker: 1, defender: 2 },
      policy: { storm: 'always', sally: 'when_stronger', harry: 'always', retreat: 'when_outnumbered', withdraw: 'when_weaker', charge: 'always' },
      rules: { p1_other_road_relief_round: 3, relief_delay_when_besieged_without_attack: false, jihad: 'attacker' },
    },
  ],
  [
    "P2's relief with no delay (the besieger sent nothing), retreats and harry, jihad",
    {
      rating: 1, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', turns: 2,
      blocks: [R('Walter', 'castle'), R('Antioch Turcopoles', 'main_road'), R('Robert', 'other_road'), R('Al Afdal'), R('Turks 3'), R('Kurds 1')],
      retreat_slots: { attacker: 2, defender: 1 },
      policy: { storm: 'when_stronger', harry: 'always', retreat: 'when_outnumbered', withdraw: 'when_weaker', sally: 'when_stronger' },
      rules: { p1_other_road_relief_round: 3, relief_delay_when_besieged_without_attack: false, jihad: 'attacker' },
    },
  ],
  [
    'stormers listed with storm_top_up retest, besiegers arriving by road to top the storm up',
    {
      rating: 3, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', turns: 3,
      blocks: [R('Hugues', 'castle'), R('Sicily Pilgrims', 'castle'), R('Yazkuj'), R('Saladin'), R('Kurds 1'), R('Al Adil', 'main_road', { arrives: 2 }), R('Turks 3', 'other_road', { arrives: 3 })],
      policy: { storm: 'when_stronger', storm_ratio: 0.5, stormers: 'listed', storm_top_up: 'retest', withdraw: 'when_weaker' },
    },
  ],
  [
    'a rating-4 castle with storms and sallies, strongest first, the garrison partly given in full',
    {
      rating: 4, player1: 'franks', situation: 'existing_siege', besieged: 'franks', turns: 4,
      blocks: [
        R('Conrad', 'castle'), { name: 'Militia', side: 'franks', max: 3, rating: 'C2', type: 'infantry', steps: 2, at: 'castle' }, R('Walter', 'town'), R('Balian', 'town'),
        R('Saladin'), R('Al Adil'), R('Zangi'), R('Sanjar'), R('Arabs 3'),
      ],
      policy: { deployment: 'all_castle', storm: 'when_stronger', storm_ratio: 0.5, sally: 'when_stronger', sally_ratio: 0.75, fire_order: 'strongest_first', tie_break: 'protect_best' },
    },
  ],
  [
    "the attacker's retreat slots 0: every compulsory retreat and the besieger's retreat after R3 eliminates",
    {
      rating: 2, player1: 'saracens', situation: 'new_battle', attacker: 'saracens', turns: 3,
      blocks: [R('Saladin'), R('Turks 1'), R('Kurds 3', 'other_road'), R('Walter', 'town'), R('Crossbows', 'town'), R('Balian', 'main_road')],
      retreat_slots: { attacker: 0, defender: -1 },
      policy: { storm: 'when_stronger', harry: 'always', retreat: 'when_outnumbered', besieger_after_r3: 'retreat', sally: 'when_stronger' },
    },
  ],
  [
    'blocks given in full: a B6 knight charging with no self-hits, a B5 knight, a harrier type, 1-step blocks',
    {
      rating: 1, player1: 'franks', situation: 'new_battle', attacker: 'franks', turns: 2,
      blocks: [
        { name: 'Lionheart', side: 'franks', max: 4, rating: 'B6', type: 'crusader' },
        { name: 'Knight', side: 'franks', max: 2, rating: 'B5', type: 'outremer', steps: 1 },
        { name: 'Scouts', side: 'franks', max: 3, rating: 'A1', type: 'turcopoles' },
        { name: 'Horde', side: 'saracens', max: 4, rating: 'C3', type: 'nomads', at: 'town' },
        { name: 'Guard', side: 'saracens', max: 4, rating: 'A4', type: 'emir', at: 'town' },
        { name: 'Levy', side: 'saracens', max: 1, rating: 'C1', type: 'infantry', at: 'main_road' },
      ],
      policy: { charge: 'always', harry: 'always', storm: 'always', withdraw: 'when_weaker' },
    },
  ],
  [
    'a siege of 5 turns, storms with top-up and sallies, the besieger retreating after R3 only when slots allow',
    {
      rating: 2, player1: 'saracens', situation: 'existing_siege', besieged: 'saracens', turns: 5,
      blocks: [R('Al Afdal', 'castle'), R('Arabs 1', 'castle'), R('Richard'), R('Hugues'), R('Crossbows')],
      retreat_slots: { attacker: 1 },
      policy: { storm: 'when_stronger', storm_ratio: 1.5, sally: 'when_stronger', sally_ratio: 1.5, besieger_after_r3: 'retreat', charge: 'always' },
    },
  ],
  [
    "§4.5 sally when_stronger in R2 counts the blocks still sallying as the besieged's own field steps (1.4), one block having withdrawn",
    {
      rating: 2, player1: 'saracens', situation: 'existing_siege', besieged: 'franks',
      blocks: [R('Crossbows', 'castle'), R('Genoa Pilgrims', 'castle'), R('Al Afdal'), R('Zangi')],
      policy: { storm: 'never', sally: 'when_stronger', sally_ratio: 0.6, withdraw: 'when_weaker' },
    },
  ],
  [
    "§9 the conditional charge looks at the enemy's strongest field block, a sallying one included",
    {
      rating: 2, player1: 'franks', situation: 'existing_siege', besieged: 'saracens',
      blocks: [R('Saladin', 'castle'), R('Yazkuj', 'field'), R('Robert'), R('Conrad', undefined, { steps: 3 })],
      policy: { storm: 'never', sally: 'always', charge: 'when_strongest_enemy_block_is_weaker' },
    },
  ],
];

// ---- the comparisons -----------------------------------------------------------------------------

function zOf(m: Metric, r: { k: number; sum: number; sumSq: number }, n: number): number {
  if (m.kind === 'probability') return zProp(m.k!, m.n, r.k, n);
  return zMean(m.n, m.sum!, m.sumSq!, n, r.sum, r.sumSq);
}

/** Every comparison of one scenario: name -> z. */
function compare(metrics: Record<string, Metric>, curves: Record<string, { x: Record<string, number | string>; m: Metric }[]>, ref: RefResult): Map<string, number> {
  const z = new Map<string, number>();
  const n = ref.trials;
  for (const name of [...PROBS, ...MEANS]) {
    const m = metrics[name];
    if (!m) throw new Error(`siegesim reports no ${name}`);
    z.set(name, zOf(m, ref.metrics[name], n));
  }
  const seen = new Set<string>();
  for (const p of curves.survivors ?? []) {
    const key = `${p.x.side}/${p.x.steps}`;
    const r = ref.survivors[key];
    if (!r) throw new Error(`survivors.csv has ${key}, which the reference's range lacks`);
    seen.add(key);
    z.set(`survivors ${key}`, zOf(p.m, r, n));
  }
  for (const key of Object.keys(ref.survivors)) if (!seen.has(key)) throw new Error(`survivors.csv lacks ${key}`);
  seen.clear();
  for (const p of curves.attrition ?? []) {
    const key = `${p.x.turn}/${p.x.round}/${p.x.side}/${p.x.place}`;
    const r = ref.attrition[key];
    if (!r) throw new Error(`attrition.csv has ${key}, which the reference lacks`);
    seen.add(key);
    z.set(`attrition ${key}`, zOf(p.m, r, n));
  }
  for (const key of Object.keys(ref.attrition)) if (!seen.has(key)) throw new Error(`attrition.csv lacks ${key}`);
  if (z.size > MAX_COMPARISONS) throw new Error(`${z.size} comparisons, above the bound ${MAX_COMPARISONS}`);
  return z;
}

/** Every scenario the run compares: the generated ones and the targeted ones. */
const Z_LIMIT = zLimit(RUNS + TARGETED.length);

let worst = 0;
let worstAt = '';
let comparisons = 0;

/** Let the test worker answer vitest's RPC (it times out after 60 s of a blocked worker). */
const yieldWorker = () => new Promise<void>((resolve) => setImmediate(resolve));

async function agrees(s: RefScenario, key: string, trials = TRIALS, limit = Z_LIMIT): Promise<boolean> {
  const yaml = toYaml(s, trials);
  const v = validateText('cr-reference.yaml', yaml);
  if (!v.ok) throw new Error(`the generator made a scenario siegesim refuses: ${v.issues.map((i: { path: unknown; message: string }) => `${i.path}: ${i.message}`).join('; ')}\n${yaml}`);
  await yieldWorker();
  const t0 = Date.now();
  const res = await runScenario(v.value, { trials, seed: `cr-reference/${key}` });
  await yieldWorker();
  const t1 = Date.now();
  const ref = runReference(s, key, trials);
  const t2 = Date.now();
  const c = res.cases[0];
  if (process.env.CR_REF_VERBOSE) {
    const m = (x: string) => (ref.metrics[x].k || ref.metrics[x].sum) / trials;
    console.log(`${key}: rating ${s.rating} ${s.situation} ${s.blocks.length} blocks turns ${s.turns ?? 1}; rounds ${m('mean_rounds').toFixed(2)} att ${m('p_attacker_wins').toFixed(2)} def ${m('p_defender_holds').toFixed(2)} falls ${m('p_castle_falls').toFixed(2)} lifted ${m('p_siege_lifted').toFixed(2)} cont ${m('p_siege_continues').toFixed(2)}; siegesim ${t1 - t0} ms, reference ${t2 - t1} ms`);
  }
  const z = compare(c.metrics, c.curves, ref);
  let ok = true;
  for (const [name, zv] of z) {
    comparisons++;
    if (Math.abs(zv) > worst) {
      worst = Math.abs(zv);
      worstAt = `${name} (${key})`;
    }
    if (!(Math.abs(zv) < limit)) {
      const m = name in c.metrics ? c.metrics[name] : undefined;
      console.error(`crusader-rex reference: ${name} z = ${zv.toFixed(2)} (limit ${limit.toFixed(2)})${m ? ` siegesim ${JSON.stringify({ n: m.n, k: m.k, sum: m.sum })} reference ${JSON.stringify(ref.metrics[name])}` : ''}\n${yaml}`);
      ok = false;
    }
  }
  return ok;
}

describe('crusader-rex: the kernel plays the rules file as the plain reference reads it', () => {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  afterAll(() => {
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `crusader-rex reference: ${RUNS} generated + ${TARGETED.length} targeted scenarios x ${TRIALS} trials, ${comparisons} comparisons ` +
        `(bound ${(RUNS + TARGETED.length) * MAX_COMPARISONS}), |z| < ${Z_LIMIT.toFixed(3)}, worst |z| ${worst.toFixed(2)} at ${worstAt}, ` +
        `${secs.toFixed(1)} s (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU)`,
    );
  });

  it(`${RUNS} generated scenarios x ${TRIALS} trials, every metric and curve point within a Šidák limit (family-wise false alarm 0.001)`, { timeout: Math.max(300_000, RUNS * TRIALS * 2) }, async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, (s) => agrees(s, `run-${n++}`)),
      { seed: 1187, numRuns: RUNS, endOnFailure: false },
    );
  });

  for (const [what, s] of TARGETED) {
    it(what, async () => {
      expect(await agrees(s, `targeted/${what}`)).toBe(true);
    });
  }
});


