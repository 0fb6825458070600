/**
 * Compile a validated Crusader Rex scenario: blocks to flat arrays, roads to arrival rounds
 * (6.41, 6.42, 6.56 as the engine times them, docs/rules/crusader-rex.md 3.2), combat deployment
 * (6.1) done once, since it is a fixed policy.
 */
import { ROSTER, unknownBlockMessage, type Side } from './roster.js';

export const FRANKS = 0;
export const SARACENS = 1;
export const SIDE_NAMES = ['franks', 'saracens'] as const;

// Block locations in the kernel.
export const GONE = 0; // eliminated
export const FIELD = 1;
export const CASTLE = 2;
export const STORM = 3;
export const SALLY = 4;
export const PENDING = 5; // a reserve still on the road
export const LEFT = 6; // retreated out of the battle

type At = 'field' | 'castle' | 'town' | 'main_road' | 'other_road';
type Entry =
  | { block: string; steps?: number; at: At; arrives?: number }
  | { name: string; side: Side; steps?: number; max: number; rating: string; type: string; at: At; arrives?: number };

interface Scenario {
  town: { rating: number; fortified_port: boolean };
  player1: Side;
  situation: 'new_battle' | 'existing_siege';
  besieged?: Side;
  attacker?: Side;
  blocks: Entry[];
  turns: number;
  retreat_slots: { attacker: number; defender: number };
  policy: {
    deployment: string;
    storm: string;
    storm_ratio: number;
    stormers: string;
    storm_top_up: string;
    sally: string;
    sally_ratio: number;
    charge: string;
    harry: string;
    retreat: string;
    withdraw: string;
    tie_break: string;
    fire_order: string;
    besieger_after_r3: string;
  };
  rules: {
    relief_delay_when_besieged_without_attack: boolean;
    p1_other_road_relief_round: number;
    declined_sally_goes_to_attrition: boolean;
    control_change_any_round: boolean;
    winter_campaign: boolean;
    jihad: string;
  };
}

export interface CrusaderRexCompiled {
  nb: number;
  names: string[];
  side: number[];
  maxSteps: number[];
  steps0: number[];
  letter: number[]; // 0 A, 1 B, 2 C
  fp: number[];
  knight: number[]; // Frank B blocks may charge (6.32)
  harrier: number[]; // Nomads and Turcopoles may harry (6.33)
  loc0: number[];
  arrive: number[]; // round of the first game turn a PENDING block arrives
  rating: number;
  /** Attrition: a castle block loses a step on d6 <= this (6.57, 8.2). */
  attritionOn: number;
  attacker0: number; // the side the metrics call "attacker"
  castleOwner0: number; // -1 without a castle
  existing: number;
  turns: number;
  slots: number[]; // retreat slots per side per battle, -1 unlimited
  storm: number; // 0 never, 1 always, 2 when stronger
  stormRatio: number;
  /** 6.53: 0 the strongest field blocks storm (ties in listed order), 1 the first listed. */
  stormersListed: number;
  /** 6.54: 0 a storm under way is topped up to the castle limit untested, 1 only when the storm policy's test passes. */
  stormTopUpRetest: number;
  sally: number;
  sallyRatio: number;
  charge: number; // 0 never, 1 always, 2 when the strongest enemy block is weaker
  harry: number;
  retreat: number;
  withdraw: number;
  tieBreak: number; // 0 first listed, 1 protect best, 2 random
  strongestFirst: number;
  besiegerRetreats: number;
  declinedSallyAttrition: number;
  controlChangeAnyRound: number;
  jihad: number;
  maxTotal: number[]; // largest total steps per side (histogram size)
}

/** Roster names that do not exist, found in the file as written (any data: nothing is assumed of its shape). */
export function precheckCrusaderRex(raw: Record<string, unknown>): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const blocks = Object.hasOwn(raw, 'blocks') ? raw.blocks : undefined;
  if (!Array.isArray(blocks)) return out;
  blocks.forEach((b: unknown, i) => {
    if (b === null || typeof b !== 'object' || Array.isArray(b) || !Object.hasOwn(b, 'block')) return;
    const name = (b as { block: unknown }).block;
    if (typeof name === 'string' && !Object.hasOwn(ROSTER, name)) out.push({ path: ['blocks', i, 'block'], message: unknownBlockMessage(name) });
  });
  return out;
}

/** The keys only a block given in full takes (docs/rules/crusader-rex.md §10). */
const FULL_BLOCK_KEYS = new Set(['name', 'side', 'max', 'rating', 'type']);

/**
 * RulesSystem.unknownKeyHint: a roster block (`block:`) given a key only a block given in full
 * takes. Which of the two a `blocks` entry is, is told by the key it was refused at: the entry
 * failed as a roster block only when the validator reports the roster shape's unknown keys.
 */
export function unknownKeyHintCrusaderRex(path: readonly (string | number)[], key: string): string | undefined {
  if (path.length !== 2 || path[0] !== 'blocks' || typeof path[1] !== 'number' || !FULL_BLOCK_KEYS.has(key)) return undefined;
  return 'a roster block (`block:`) takes its side, maximum steps, rating and type from the roster (docs/rules/crusader-rex.md §5.1; `siegesim roster crusader-rex`); `name`, `side`, `max`, `rating` and `type` are for a block given in full, which has `name:` instead of `block:` (§10)';
}

/** Why a scenario cannot be compiled (multi-key checks, reported by validation). */
export function refineCrusaderRex(raw: Record<string, unknown>): { path: (string | number)[]; message: string }[] {
  const s = raw as unknown as Scenario;
  const out: { path: (string | number)[]; message: string }[] = [];
  s.blocks.forEach((b, i) => {
    if ('block' in b) {
      const r = ROSTER[b.block];
      if (!r) out.push({ path: ['blocks', i, 'block'], message: unknownBlockMessage(b.block) });
      else if (b.steps !== undefined && b.steps > r.steps) out.push({ path: ['blocks', i, 'steps'], message: `${b.block} has at most ${r.steps} steps` });
    } else if (b.steps !== undefined && b.steps > b.max) out.push({ path: ['blocks', i, 'steps'], message: `steps exceed max (${b.max})` });
    if ((b.at === 'castle' || b.at === 'town') && s.town.rating === 0) out.push({ path: ['blocks', i, 'at'], message: 'a town rated 0 has no castle' });
  });
  // Only the side that holds the castle starts in it or is deployed into it (6.1): the defender
  // of a new battle, the besieged of an existing siege.
  const holder = s.situation === 'existing_siege' ? s.besieged : s.attacker && (s.attacker === 'franks' ? 'saracens' : 'franks');
  if (holder !== undefined) {
    s.blocks.forEach((b, i) => {
      if (b.at !== 'castle' && b.at !== 'town') return;
      const side = 'block' in b ? ROSTER[b.block]?.side : b.side;
      if (side === undefined || side === holder) return;
      const who = s.situation === 'existing_siege' ? 'the besieger' : 'the attacker';
      out.push({ path: ['blocks', i, 'at'], message: `\`${b.at}\` is for the castle's side (${holder}); ${who}'s blocks are in the field or on a road` });
    });
  }
  if (s.situation === 'new_battle' && !s.attacker) out.push({ path: ['attacker'], message: 'a new battle needs `attacker` (the first side to enter the field)' });
  // The key the situation does not read must not contradict the one it does (§10): in an
  // existing siege the attacker is the besieger; in a new battle the castle's side is the defender.
  if (s.situation === 'existing_siege' && s.besieged && s.attacker === s.besieged)
    out.push({ path: ['attacker'], message: contradictionMessage('attacker', s.attacker, s.besieged) });
  if (s.situation === 'new_battle' && s.attacker && s.besieged === s.attacker)
    out.push({ path: ['besieged'], message: contradictionMessage('besieged', s.besieged, s.attacker) });
  if (s.situation === 'existing_siege') {
    if (!s.besieged) out.push({ path: ['besieged'], message: 'an existing siege needs `besieged` (whose blocks hold the castle)' });
    if (s.town.rating === 0) out.push({ path: ['town', 'rating'], message: 'an existing siege needs a castle (rating >= 1)' });
  }
  const names = s.blocks.map((b) => ('block' in b ? b.block : b.name));
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) out.push({ path: ['blocks', i], message: `block "${n}" is listed twice` });
  });
  return out;
}

const other = (x: Side): Side => (x === 'franks' ? 'saracens' : 'franks');

/** `attacker:` naming the besieged in an existing siege, or `besieged:` naming the attacker in a new battle. */
export function contradictionMessage(key: 'attacker' | 'besieged', value: Side, against: Side): string {
  return key === 'attacker'
    ? `\`attacker: ${value}\` contradicts \`besieged: ${against}\`: in an existing siege the attacker is the besieger (${other(against)}), and \`attacker\` is not read; leave it out`
    : `\`besieged: ${value}\` contradicts \`attacker: ${against}\`: in a new battle the castle belongs to the defender (${other(against)}), and \`besieged\` is read only in an existing siege; leave it out, or set situation: existing_siege`;
}

/**
 * Settings a valid case writes that change nothing in it (RulesSystem.deadSettings, docs/scenarios.md
 * "Settings that change nothing"): `attacker` in an existing siege (the attacker is the besieger)
 * and `besieged` in a new battle (the castle's side is the defender), each when it agrees with the
 * situation's own key (a contradiction is refused by refineCrusaderRex).
 */
/**
 * The settings a town rated 0 never reads: it has no castle (6.5), so nothing is deployed into
 * one, stormed, sallied from or withdrawn into, and no siege attrition is rolled (§2.2, §4).
 * Each, set to every other value in a rating-0 battle with reserves, charges, harries, retreats
 * and three game turns, gives the same CSVs (test/crusader-rex-input.test.ts holds the compiled
 * kernel's results equal). `rules.control_change_any_round` is not here: a field battle's
 * control change reads it.
 */
export const CASTLE_ONLY_SETTINGS: readonly (readonly [string, string])[] = [
  ['policy', 'storm'],
  ['policy', 'stormers'],
  ['policy', 'storm_top_up'],
  ['policy', 'storm_ratio'],
  ['policy', 'sally'],
  ['policy', 'sally_ratio'],
  ['policy', 'deployment'],
  ['policy', 'withdraw'],
  ['policy', 'besieger_after_r3'],
  ['town', 'fortified_port'],
  ['rules', 'winter_campaign'],
  ['rules', 'declined_sally_goes_to_attrition'],
];

export function deadSettingsCrusaderRex(written: Record<string, unknown>, scenario: Record<string, unknown>): { path: string[]; message: string }[] {
  const s = scenario as unknown as Scenario;
  const out: { path: string[]; message: string }[] = [];
  if (s.town.rating === 0) {
    for (const [group, key] of CASTLE_ONLY_SETTINGS) {
      const g = written[group];
      if (g !== null && typeof g === 'object' && Object.hasOwn(g, key))
        out.push({ path: [group, key], message: `changes nothing: a town rated 0 has no castle, so nothing is deployed into it, stormed, sallied from or withdrawn into, and no siege attrition is rolled (docs/rules/crusader-rex.md §2.2); leave it out, or give town.rating 1-4` });
    }
  }
  if (s.situation === 'existing_siege' && Object.hasOwn(written, 'attacker') && s.attacker !== undefined)
    out.push({ path: ['attacker'], message: 'changes nothing: in an existing siege the attacker is the besieger, the side that is not `besieged` (docs/rules/crusader-rex.md §10); leave it out' });
  if (s.situation === 'new_battle' && Object.hasOwn(written, 'besieged') && s.besieged !== undefined)
    out.push({ path: ['besieged'], message: 'changes nothing: `besieged` is read only in an existing siege; a new battle\'s castle belongs to the defender, the side that is not `attacker` (docs/rules/crusader-rex.md §10); leave it out, or set situation: existing_siege' });
  return out;
}

/** A block's full strength, its steps when the file leaves them out: the roster's steps (7.1), or a custom block's `max`. */
function fullStrength(b: Scenario['blocks'][number]): number {
  return 'block' in b ? ROSTER[b.block].steps : b.max;
}

/** `blocks.N.steps` of every block whose steps are left out ("auto"): its full strength. */
export function autoValuesCrusaderRex(raw: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  (raw as unknown as Scenario).blocks.forEach((b, i) => {
    if (b.steps === undefined && (!('block' in b) || Object.hasOwn(ROSTER, b.block))) out[`blocks.${i}.steps`] = fullStrength(b);
  });
  return out;
}

export function compileCrusaderRex(raw: Record<string, unknown>): CrusaderRexCompiled {
  const s = raw as unknown as Scenario;
  const sideOf = (x: Side) => (x === 'franks' ? FRANKS : SARACENS);
  const p1 = sideOf(s.player1);
  const existing = s.situation === 'existing_siege';
  const besieged = existing ? sideOf(s.besieged!) : -1;
  const attacker0 = existing ? 1 - besieged : sideOf(s.attacker!);
  const defender0 = 1 - attacker0;
  const rows = s.blocks.map((b) => {
    if ('block' in b) {
      const r = ROSTER[b.block];
      return { name: b.block, side: sideOf(r.side), type: r.type, max: r.steps, steps: b.steps ?? fullStrength(b), rating: r.rating, at: b.at, arrives: b.arrives };
    }
    return { name: b.name, side: sideOf(b.side), type: b.type, max: b.max, steps: b.steps ?? fullStrength(b), rating: b.rating, at: b.at, arrives: b.arrives };
  });
  const letter = rows.map((r) => r.rating.charCodeAt(0) - 65);
  const fp = rows.map((r) => Number(r.rating.slice(1)));

  // --- arrival rounds (3.2): road -> round, as the engine's move_block times them ---
  const roadBlocks = (sd: number) => rows.some((r) => r.side === sd && (r.at === 'main_road' || r.at === 'other_road'));
  const arrive = rows.map((r) => {
    if (r.arrives !== undefined) return r.arrives;
    if (r.at !== 'main_road' && r.at !== 'other_road') return 0;
    const main = r.at === 'main_road';
    if (!existing) {
      if (r.side === attacker0) return main ? 1 : 2; // 6.41: main attack R1, other roads R2
      return main ? 2 : 3; // 6.42: the defender's main reinforcement R2, others R3
    }
    if (r.side === besieged) {
      // 6.56 relief: P1 main R1 / other R2; P2 main R2 / other R3 (relief_delay).
      const besiegerMoved = roadBlocks(1 - besieged);
      const delay = besieged !== p1 && (s.rules.relief_delay_when_besieged_without_attack || besiegerMoved) ? 1 : 0;
      if (main) return 1 + delay;
      return besieged === p1 ? s.rules.p1_other_road_relief_round : 2 + delay;
    }
    // The besieger's own blocks: into its uncontested besieging field at once, unless a P1
    // relief already contests it (then they are the defender's reinforcements, 6.42).
    const reliefFirst = roadBlocks(besieged) && besieged === p1;
    if (!reliefFirst) return 1;
    return main ? 2 : 3;
  });

  // --- combat deployment (6.1): the defender's "town" blocks, up to the castle limit ---
  const loc0 = rows.map((r, i) => (arrive[i] >= 2 ? PENDING : r.at === 'castle' ? CASTLE : FIELD));
  const townIdx = rows.map((r, i) => (r.at === 'town' ? i : -1)).filter((i) => i >= 0);
  let room = s.town.rating - rows.filter((r) => r.at === 'castle' && (existing ? r.side === besieged : r.side === defender0)).length;
  const strength = (i: number) => rows[i].steps * 100 - letter[i] * 10 + fp[i]; // steps, then initiative, then firepower
  let order = townIdx.slice();
  const d = s.policy.deployment;
  if (d === 'castle_first') order.sort((a, b) => strength(b) - strength(a) || a - b);
  else if (d === 'field_first') order.sort((a, b) => strength(a) - strength(b) || a - b);
  if (d === 'all_field') order = [];
  if (d === 'field_first') {
    // the strongest stay outside: keep at least the strongest in the field, the rest go in
    order = order.slice(0, Math.max(0, order.length - 1));
  }
  for (const i of order) {
    if (room <= 0) break;
    if (loc0[i] !== FIELD) continue;
    loc0[i] = CASTLE;
    room--;
  }
  const castleOwner0 = s.town.rating === 0 ? -1 : existing ? besieged : defender0;
  const winter = s.rules.winter_campaign;
  const maxTotal = [0, 0];
  rows.forEach((r) => (maxTotal[r.side] += r.max));
  const code = (v: string, opts: string[]) => opts.indexOf(v);
  return {
    nb: rows.length,
    names: rows.map((r) => r.name),
    side: rows.map((r) => r.side),
    maxSteps: rows.map((r) => r.max),
    steps0: rows.map((r) => r.steps),
    letter,
    fp,
    knight: rows.map((r, i) => (r.side === FRANKS && letter[i] === 1 ? 1 : 0)),
    harrier: rows.map((r) => (r.type === 'nomads' || r.type === 'turcopoles' ? 1 : 0)),
    loc0,
    arrive,
    rating: s.town.rating,
    attritionOn: s.town.fortified_port ? (winter ? 2 : 1) : winter ? 4 : 3,
    attacker0,
    castleOwner0,
    existing: existing ? 1 : 0,
    turns: s.turns,
    slots: attacker0 === FRANKS ? [s.retreat_slots.attacker, s.retreat_slots.defender] : [s.retreat_slots.defender, s.retreat_slots.attacker],
    storm: code(s.policy.storm, ['never', 'always', 'when_stronger']),
    stormRatio: s.policy.storm_ratio,
    stormersListed: s.policy.stormers === 'listed' ? 1 : 0,
    stormTopUpRetest: s.policy.storm_top_up === 'retest' ? 1 : 0,
    sally: code(s.policy.sally, ['never', 'always', 'when_stronger']),
    sallyRatio: s.policy.sally_ratio,
    charge: code(s.policy.charge, ['never', 'always', 'when_strongest_enemy_block_is_weaker']),
    harry: s.policy.harry === 'always' ? 1 : 0,
    retreat: s.policy.retreat === 'when_outnumbered' ? 1 : 0,
    withdraw: s.policy.withdraw === 'when_weaker' ? 1 : 0,
    tieBreak: code(s.policy.tie_break, ['first_listed', 'protect_best', 'random']),
    strongestFirst: s.policy.fire_order === 'strongest_first' ? 1 : 0,
    besiegerRetreats: s.policy.besieger_after_r3 === 'retreat' ? 1 : 0,
    declinedSallyAttrition: s.rules.declined_sally_goes_to_attrition ? 1 : 0,
    controlChangeAnyRound: s.rules.control_change_any_round ? 1 : 0,
    jihad: s.rules.jihad === 'attacker' ? 1 : 0,
    maxTotal,
  };
}

/**
 * Who the metrics' attacker and defender are in a validated case (RulesSystem.sides): the sides
 * `compileCrusaderRex` gives them (`attacker0`: the scenario's `attacker:`, or the besieger of
 * an existing siege), each with its blocks and where the file puts them. A relief force attacks
 * in its battle (6.56), but the metrics keep the scenario's roles: said when the case has one.
 * @example "attacker = the besieger, saracens: Saladin, Al Adil; defender = the besieged, franks: Conrad (castle), Richard (main road). …"
 */
export function sidesCrusaderRex(raw: Record<string, unknown>): string {
  const s = raw as unknown as Scenario;
  const c = compileCrusaderRex(raw);
  const existing = c.existing === 1;
  const PLACE: Record<At, string> = { field: '', castle: ' (castle)', town: ' (town)', main_road: ' (main road)', other_road: ' (other road)' };
  const blocksOf = (side: number) =>
    s.blocks
      // an explicit arrival round overrides the road's timing: said, not the road alone ("Yazkuj (main road)" arrived in R2)
      .map((b, i) => (c.side[i] === side ? `${c.names[i]}${b.arrives !== undefined ? ` (${PLACE[b.at] === '' ? '' : `${PLACE[b.at].slice(2, -1)}, `}arrives R${b.arrives})` : PLACE[b.at]}` : ''))
      .filter((x) => x !== '')
      .join(', ') || 'no blocks';
  const att = c.attacker0;
  const def = 1 - att;
  const head = existing
    ? `attacker = the besieger, ${SIDE_NAMES[att]}: ${blocksOf(att)}; defender = the besieged, ${SIDE_NAMES[def]}: ${blocksOf(def)}.`
    : `attacker = ${SIDE_NAMES[att]} (attacker:, the first to enter the field): ${blocksOf(att)}; defender = ${SIDE_NAMES[def]}: ${blocksOf(def)}.`;
  const onRoad = s.blocks.some((b, i) => c.side[i] === def && (b.at === 'main_road' || b.at === 'other_road'));
  if (!onRoad || c.rating === 0) return head;
  return existing
    ? `${head} The besieged side's blocks on the roads are a relief force: it attacks in its battle (6.56) but counts with the defender here, so p_attacker_wins is the besieger's.`
    : `${head} The defender's blocks on the roads may arrive as a relief force and attack in the battle (6.56); they still count with the defender here.`;
}
