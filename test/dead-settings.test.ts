/**
 * No dead settings. Every leaf setting of every system's scenario schema, and every
 * value of every enum and boolean, is enumerated from the schema itself (`jsonSchemaOf`, built
 * from the zod definitions the validator uses), so an option added tomorrow is checked without
 * editing this file. Each is changed from its default (or, with no default, from the value the
 * scenario gives) in scenarios where it can matter, and the compiled case must change, and the
 * exact answer too where the case has one: a setting dropped at compile time, or compiled and
 * then never read (the kernel and the exact chain read the same compiled case, so `check` cannot
 * see it), fails here.
 *
 * Two checks:
 *  1. Somewhere: every setting × value changes the case in at least one context (the hand-made
 *     CONTEXTS below and every bundled scenario of its system, its first sweep point, variants
 *     dropped), or is in NEVER with the reason it cannot change a number.
 *  2. In every situation: in a STRICT context (hand-made, one per situation a reader would
 *     distinguish: a foot and a mounted defender, each kind of question, a siege and a field
 *     battle, ...) every setting × value that validates there changes the case, or an entry of
 *     DEAD_WHEN says why it cannot matter in that situation. This is what finds a value honoured
 *     in one situation and ignored in another (a printed wounded defence read for a mounted
 *     defender and ignored for one on foot).
 * Entries of NEVER and DEAD_WHEN that no longer excuse anything fail too, so the list stays true.
 *
 * Numbers: a few candidate values around the default and, by fast-check, a few drawn from the
 * setting's whole range (fixed seed); one that changes the case is enough. Strings: the
 * candidates in STRINGS.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { validateText } from '../src/api.js';
import { jsonSchemaOf } from '../src/scenario/schema.js';
import { SYSTEMS } from '../src/systems/registry.js';
import type { RulesSystem } from '../src/systems/types.js';
import { modifierSum } from '../src/systems/surrender/compile.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const COMMON = new Set(['name', 'system', 'description', 'seed', 'trials', 'variants', 'sweep', 'expect', 'headline']);

type Node = {
  type?: string | string[];
  properties?: Record<string, Node>;
  items?: Node;
  prefixItems?: Node[];
  anyOf?: Node[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
};
type Tree = Record<string, unknown>;

/** One leaf setting: its dotted path (`blocks[].steps`) and the values to try. */
interface Leaf {
  path: string;
  def: unknown;
  /** Enum and boolean values: each must matter on its own. */
  choices: unknown[] | null;
  /** Numbers and tuples: one of these mattering is enough. */
  candidates: (current: unknown) => unknown[];
}

// === the settings, from the schema ===========================================================

const isObjectNode = (n: Node) => Boolean(n.properties || (n.anyOf && n.anyOf.some(isObjectNode)));

function leavesOf(node: Node, at: string, out: Leaf[], strings: Record<string, unknown[]>): void {
  if (node.anyOf && !node.properties && !node.items) {
    if (node.anyOf.some(isObjectNode)) {
      for (const a of node.anyOf) leavesOf(a, at, out, strings);
      return;
    }
  }
  if (node.type === 'object' && node.properties) {
    for (const [k, v] of Object.entries(node.properties)) leavesOf(v, at ? `${at}.${k}` : k, out, strings);
    return;
  }
  if (node.type === 'array' && node.items && isObjectNode(node.items)) {
    leavesOf(node.items, `${at}[]`, out, strings);
    return;
  }
  if (out.some((l) => l.path === at)) return; // the same key in two shapes of one union (blocks[].steps)
  out.push(leafOf(node, at, strings));
}

function leafOf(node: Node, at: string, strings: Record<string, unknown[]>): Leaf {
  const alts = node.anyOf ?? [node];
  const enums = alts.flatMap((a) => a.enum ?? (a.const !== undefined ? [a.const] : []));
  if (enums.length > 0 && enums.length === alts.reduce((n, a) => n + (a.enum?.length ?? (a.const !== undefined ? 1 : 0)), 0) && alts.every((a) => a.enum || a.const !== undefined))
    return { path: at, def: node.default, choices: enums, candidates: () => [] };
  if (node.type === 'boolean') return { path: at, def: node.default, choices: [true, false], candidates: () => [] };
  if (node.type === 'integer' || node.type === 'number') {
    const lo = node.minimum ?? -1000;
    const hi = node.maximum ?? 1000;
    const int = node.type === 'integer';
    const drawn = fc.sample(int ? fc.integer({ min: lo, max: hi }) : fc.double({ min: lo, max: hi, noNaN: true }), { numRuns: 6, seed: 37 });
    return {
      path: at,
      def: node.default,
      choices: null,
      candidates: (cur) => {
        const c = typeof cur === 'number' ? cur : lo;
        const near = int ? [c + 1, c - 1, c + 2, c - 2, lo, hi] : [c + 0.25, c - 0.25, c * 2, c / 2, lo, hi];
        return [...near, ...drawn.map((x) => (int ? x : Math.round(x * 100) / 100))].filter((x) => x >= lo && x <= hi && x !== c);
      },
    };
  }
  if (node.type === 'array' && node.prefixItems) {
    return {
      path: at,
      def: node.default,
      choices: null,
      candidates: (cur) => {
        const c = (Array.isArray(cur) ? cur : node.default) as number[];
        return [c.map((x, i) => (i === c.length - 1 ? x + 10 : x)), c.map((x, i) => (i === 0 ? x + 1 : x))];
      },
    };
  }
  return { path: at, def: node.default, choices: null, candidates: () => strings[at] ?? [] };
}

/** Candidate values of string settings, by system and path (a string leaf without any is reported). */
const STRINGS: Record<string, Record<string, unknown[]>> = {
  'crusader-rex': {
    'blocks[].block': ['Saladin', 'Al Adil', 'Walter', 'King Guy', 'Kurds 1'],
    'blocks[].name': ['Another name'],
    'blocks[].rating': ['A1', 'B3', 'C2', 'A4'],
  },
};

// === exceptions: the one list ================================================================

/** Settings that can never change a number, with the reason. Key: `system: path` or `system: path=value`. */
const NEVER: Record<string, string> = {
  'fantasy: policy.attacker_fire=defenders': 'the same reading as the DEFAULT defenders_while_wall_up (the schema says "defenders_while_wall_up (= defenders)"): two names for one policy',
  'crusader-rex: blocks[].type=crusader': 'a block\'s type decides only harrying (turcopoles, nomads: 6.33); a Frank B block charges whatever its type (6.32, compile.ts knight), so the other types name the block\'s kind',
  'crusader-rex: blocks[].type=military_order': 'as blocks[].type=crusader: only turcopoles and nomads play differently',
  'crusader-rex: blocks[].type=outremer': 'as blocks[].type=crusader: only turcopoles and nomads play differently',
  'crusader-rex: blocks[].type=pilgrims': 'as blocks[].type=crusader: only turcopoles and nomads play differently',
  'crusader-rex: blocks[].type=emir': 'as blocks[].type=crusader: only turcopoles and nomads play differently',
  'crusader-rex: blocks[].name': 'a custom block\'s label: it names the block in reports, never changes a number',
  'cry-havoc: attackers[].terrain=0': 'YAML\'s bare 0, the same as "0" (the schema accepts both)',
  'cry-havoc: defender.terrain=0': 'YAML\'s bare 0, the same as "0" (the schema accepts both)',
  'cry-havoc: attackers[].wounded.defence': 'melee is one-way (Part 3): attackers are never attacked, so their wounded defence is never read (kept for a counter\'s full printed values)',
  'cry-havoc: defender.wounded.attack': 'melee is one-way (Part 3): the defender never attacks, so his wounded attack is never read (kept for a counter\'s full printed values)',
  'cry-havoc: attackers[].mounted': 'an attacker\'s horse changes nothing in the melee tables (1.6 reads the defender\'s state only); kept to describe the counter',
};

/** Situations in which a setting cannot matter: the setting (a path, a prefix ending in `.` or a `path=value`), the situation, the reason. */
interface DeadWhen {
  system: string;
  keys: string[];
  when: (s: Tree) => boolean;
  reason: string;
}
const kind = (...k: string[]) => (s: Tree) => k.includes(s.kind as string);
const get = (s: Tree, p: string): unknown => p.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Tree)[k] : undefined), s);
const MELEE_KEYS = ['attackers', 'defender', 'rules.odds_below_one', 'rules.shift_below_one', 'rules.multi_attacker_shift', 'rules.attacker_terrain', 'rules.attacker_wound', 'rules.wounded_values', 'rules.stunned_defence'];
const MISSILE_KEYS = ['shooters', 'target', 'rules.ranges', 'rules.vikings_shortbow_long', 'rules.revised_ballista', 'rules.mounted_heavy_cover', 'rules.croisades_mounted_errata'];
const BATTERING_KEYS = ['engines', 'wall', 'days', 'rules.rolls_per_day', 'policy.engine_losses'];
const FIRE_KEYS = ['fire', 'rules.oil_barrel_row7', 'rules.extinguish_same_turn'];
const HEALING_KEYS = ['healing', 'rules.strategic_turn_days'];
/** The lowest odds a melee can reach: every attacker wounded, against the defender's best defence (1.1). */
function minOdds(s: Tree): number {
  const half = get(s, 'rules.wounded_values') !== 'unchanged';
  const atts = s.attackers as { attack: number; wounded?: { attack?: number } }[];
  const sum = atts.reduce((n, a) => n + (a.wounded?.attack ?? (half ? Math.floor(a.attack / 2) : a.attack)), 0);
  const d = s.defender as { defence: number; dismounted?: { defence?: number } };
  const best = Math.max(d.defence, d.dismounted?.defence ?? 0);
  return best > 0 ? Math.floor(sum / best) : 12;
}
/** The column shift of 1.3 at its lowest: the worst attacker terrain against the defender's (the multi-attacker column left out). */
function terrainShift(s: Tree): number {
  const v = (t: unknown) => (t === '+' ? 1 : t === '-' ? -1 : 0);
  const atts = (s.attackers as Tree[]).map((a) => v(a.terrain));
  return Math.min(...atts) - v(get(s, 'defender.terrain'));
}
/** How many sources turn on surrender's "any artillery or bombers" line (seed rule 3, (ii), (iii)). */
function artilleryLineSources(s: Tree): number {
  const n = (p: string) => (get(s, p) as number) > 0;
  return [n('besieger.artillery'), n('besieger.bombers'), n('besieger.heavy_siege_artillery') && get(s, 'rules.heavy_counts_as_artillery') === true, n('besieger.engineers') && get(s, 'rules.engineers_count_as_artillery') === true].filter(Boolean).length;
}
/** Settings the exact answer does not cover (its metrics leave them out): a change of the compiled case is enough. */
const EXACT_BLIND: Record<string, string> = {
  'cry-havoc: policy.engine_losses': 'which engines take C losses moves mean_engines_out only; the exact chain follows the points left (the same either way) and has no mean_engines_out (1.7)',
};
const DEAD_WHEN: DeadWhen[] = [
  // --- Cry Havoc: each kind reads its own keys (Part 3, Part 4) ---
  { system: 'cry-havoc', keys: MELEE_KEYS, when: (s) => s.kind !== 'melee', reason: 'a melee setting; this question is not a melee' },
  { system: 'cry-havoc', keys: MISSILE_KEYS, when: (s) => s.kind !== 'missile', reason: 'a missile setting; this question is not missile fire' },
  { system: 'cry-havoc', keys: BATTERING_KEYS, when: (s) => s.kind !== 'battering', reason: 'a battering setting; this question is not battering' },
  { system: 'cry-havoc', keys: FIRE_KEYS, when: (s) => s.kind !== 'fire', reason: 'a fire setting; this question is not fire' },
  { system: 'cry-havoc', keys: HEALING_KEYS, when: (s) => s.kind !== 'healing', reason: 'a healing setting; this question is not healing' },
  { system: 'cry-havoc', keys: ['turns', 'rules.retreat_blocked', 'rules.stun_recovery'], when: kind('battering', 'healing'), reason: 'turns, retreats and stuns belong to melee, missile (and fire: turns) questions' },
  { system: 'cry-havoc', keys: ['rules.retreat_blocked', 'rules.stun_recovery'], when: kind('fire'), reason: 'a fire has no retreats or stuns' },
  // within a melee
  { system: 'cry-havoc', keys: ['defender.dismounted.'], when: (s) => kind('melee')(s) && get(s, 'defender.mounted') !== true, reason: 'the dismounted counters are read once a mounted defender is unhorsed; this one is on foot (Part 4)' },
  { system: 'cry-havoc', keys: ['rules.multi_attacker_shift'], when: (s) => kind('melee')(s) && (get(s, 'defender.mounted') !== true || (s.attackers as unknown[]).length < 2), reason: 'the +1 column for several attackers is printed on the foot table; the option extends it to a mounted defender attacked by two or more (1.3)' },
  { system: 'cry-havoc', keys: ['rules.attacker_terrain'], when: (s) => kind('melee')(s) && new Set((s.attackers as Tree[]).map((a) => String(a.terrain ?? '0'))).size < 2, reason: 'the attackers all stand on one terrain (1.3: worst or best of several)' },
  { system: 'cry-havoc', keys: ['rules.stunned_defence'], when: (s) => kind('melee')(s) && get(s, 'rules.stun_recovery') !== 'after_next_attack', reason: 'by DEFAULT a stun wears off before the next attack (rules.stun_recovery: before_next_attack), so no attack meets a stunned defender and his stunned defence is never read (1.1)' },
  // within missile fire
  { system: 'cry-havoc', keys: ['rules.vikings_shortbow_long'], when: (s) => kind('missile')(s) && get(s, 'rules.ranges') !== 'vikings', reason: 'the Vikings short-bow long band is read only under rules.ranges: vikings (O2)' },
  { system: 'cry-havoc', keys: ['rules.mounted_heavy_cover', 'rules.croisades_mounted_errata'], when: (s) => kind('missile')(s) && get(s, 'target.mounted') !== true, reason: 'mounted-table readings (1.5); the target is on foot' },
  { system: 'cry-havoc', keys: ['rules.mounted_heavy_cover'], when: (s) => kind('missile')(s) && get(s, 'target.cover') !== 'heavy', reason: 'read only for a mounted target in heavy cover (1.5)' },
  { system: 'cry-havoc', keys: ['attackers[].terrain=+'], when: (s) => kind('melee')(s) && (s.attackers as unknown[]).length > 1 && get(s, 'rules.attacker_terrain') === 'worst', reason: 'several attackers under rules.attacker_terrain: worst (1.3): raising one of them to "+" changes nothing while another stands no higher' },
  { system: 'cry-havoc', keys: ['rules.odds_below_one'], when: (s) => kind('melee')(s) && minOdds(s) >= 1, reason: 'the odds cannot fall below 1-1 here: every attacker wounded still has Σ attack ≥ the defender\'s best defence (1.1)' },
  { system: 'cry-havoc', keys: ['rules.shift_below_one'], when: (s) => kind('melee')(s) && minOdds(s) + terrainShift(s) + ((s.attackers as unknown[]).length > 1 && get(s, 'defender.mounted') !== true ? 1 : 0) >= 1, reason: 'the column cannot be shifted below 1-1 here: the lowest odds plus the terrain shift (and the column for several attackers against a foot defender) stay at 1-1 or above (1.3)' },
  { system: 'cry-havoc', keys: ['rules.stun_recovery'], when: (s) => kind('missile')(s) && get(s, 'target.mounted') !== true, reason: 'the foot missile table has no stun result (1.5 B): a foot target is never stunned' },
  { system: 'cry-havoc', keys: ['rules.vikings_shortbow_long'], when: (s) => kind('missile')(s) && get(s, 'rules.ranges') === 'vikings', reason: 'past the Vikings medium band every shot is long: the band decides only which short-bow ranges are accepted (O2), not how an accepted shot is read' },
  { system: 'cry-havoc', keys: ['rules.revised_ballista'], when: (s) => kind('missile')(s) && !(s.shooters as Tree[]).some((x) => x.weapon === 'ballista'), reason: 'no ballista among the shooters' },
  // healing
  // --- surrender ---
  { system: 'surrender', keys: ['besieger.artillery', 'besieger.bombers', 'besieger.engineers', 'rules.heavy_counts_as_artillery', 'rules.engineers_count_as_artillery'], when: (s) => artilleryLineSources(s) >= 2, reason: 'the "−1 if one or more artillery units or bombers" line is on by two or more sources here, so one source more or less, or what counts, leaves it on (seed rule 3: not cumulative)' },
  { system: 'surrender', keys: ['rules.natural_one_succeeds'], when: (s) => get(s, 'rules.modifiers_apply_to') === 'roll' && 1 + modifierSum(s as never) + Math.max(0, get(s, 'cards.besieger.modifier') as number) + Math.max(0, get(s, 'cards.besieged.modifier') as number) < (get(s, 'structure.surrender_level') as number), reason: 'a roll of 1 succeeds here anyway, whatever cards are played' },
  { system: 'surrender', keys: ['rules.leader_bonus'], when: (s) => (get(s, 'besieger.siege_leaders') as number) <= 1 && (get(s, 'besieged.siege_leaders') as number) <= 1, reason: 'at most one siege leader a side: once per side and per leader are the same (v)' },
];

// === contexts ================================================================================

interface Context {
  name: string;
  tree: Tree;
  strict: boolean;
}

/** Hand-made scenarios, one per situation (strict), and extra places for a setting to matter. */
const CONTEXTS: Record<string, Context[]> = {
  'cry-havoc': [
    // strict: one per situation
    { name: 'melee, foot defender with a printed wounded defence, two attackers on mixed terrain, stuns that last', strict: true, tree: { kind: 'melee', attackers: [{ attack: 6, terrain: '-', wounded: { attack: 4 } }, { attack: 4, state: 'wounded' }], defender: { defence: 3, wounded: { defence: 1 } }, turns: 6, rules: { stun_recovery: 'after_next_attack' } } },
    { name: 'melee, mounted defender with dismounted counters, two attackers', strict: true, tree: { kind: 'melee', attackers: [{ attack: 10 }, { attack: 10 }], defender: { defence: 4, mounted: true, wounded: { defence: 2 }, dismounted: { defence: 3, wounded_defence: 1 } }, turns: 8 } },
    { name: 'missile at a foot target, Croisades ranges, a ballista on the base bands', strict: true, tree: { kind: 'missile', shooters: [{ weapon: 'longbow', range: 70 }, { weapon: 'ballista', range: 60 }], target: { cover: 'light', dismounted_knight: true }, turns: 3, rules: { ranges: 'croisades', revised_ballista: 'base_bands' } } },
    { name: 'missile at a mounted target in the open, Vikings ranges', strict: true, tree: { kind: 'missile', shooters: [{ weapon: 'crossbow', range: 20 }, { weapon: 'shortbow', range: 45 }], target: { mounted: true }, turns: 4, rules: { ranges: 'vikings' } } },
    { name: 'battering with every engine', strict: true, tree: { kind: 'battering', engines: { mangonel: 2, trebuchet: 1, ram: 1 }, days: 8 } },
    { name: 'fire set by hand', strict: true, tree: { kind: 'fire', fire: { method: 'hand', attempts: 2, extinguish_attempts: 1 }, turns: 5 } },
    { name: 'healing, Croisades table', strict: true, tree: { kind: 'healing', healing: { table: 'croisades', horizon_days: 12 } } },
    // more places for a setting to matter
    { name: 'melee, a wounded foot defender with a printed wounded defence', strict: false, tree: { kind: 'melee', attackers: [{ attack: 7 }], defender: { defence: 8, state: 'wounded', wounded: { defence: 2 } }, turns: 6 } },
    { name: 'melee at odds below 1-1', strict: false, tree: { kind: 'melee', attackers: [{ attack: 2 }], defender: { defence: 3 }, turns: 4 } },
    { name: 'melee shifted below 1-1', strict: false, tree: { kind: 'melee', attackers: [{ attack: 3, terrain: '-' }], defender: { defence: 3, terrain: '+' }, turns: 2 } },
    { name: 'missile at a mounted knight in heavy cover', strict: false, tree: { kind: 'missile', shooters: [{ weapon: 'ballista', range: 10 }], target: { mounted: true, cover: 'heavy' }, turns: 2 } },
    { name: 'missile, a Vikings short bow at 55 hexes (beyond the DEFAULT long band)', strict: false, tree: { kind: 'missile', shooters: [{ weapon: 'shortbow', range: 55 }], target: {}, turns: 2, rules: { ranges: 'vikings' } } },
    { name: 'missile, a ballista under the Croisades table (refused by DEFAULT)', strict: false, tree: { kind: 'missile', shooters: [{ weapon: 'ballista', range: 60 }], target: {}, turns: 2, rules: { ranges: 'croisades' } } },
  ],
  surrender: [
    { name: 'a fortress-port under blockade, cards both ways', strict: true, tree: { structure: { surrender_level: 4, port: true, blockade_chance: 0.7 }, besieger: { combat_units: 3, heavy_siege_artillery: 1, artillery: 1, bombers: 1, engineers: 1, siege_leaders: 1 }, besieged: { steps_inside: 6, siege_leaders: 1 }, cards: { besieger: { chance: 0.4 }, besieged: { chance: 0.3 } }, turns: 6 } },
  ],
  fantasy: [
    { name: 'an open-field battle with siege engines on both sides, cut at one round', strict: false, tree: { mode: 'open_field', attacker: { infantry: 4, siege_engines: 1 }, defender: { infantry: 4, siege_engines: 1 }, max_rounds: 1 } },
    { name: 'a siege of a wall of the DEFAULT type (its HP and DC from the type), battered by engines', strict: false, tree: { mode: 'siege', attacker: { infantry: 4, siege_engines: 2 }, defender: { infantry: 3, archers: 2 }, max_rounds: 6 } },
  ],
  'crusader-rex': [
    { name: 'a field battle: a charging knight, a harrier, a custom block, limited retreat roads', strict: false, tree: { town: { rating: 0 }, player1: 'saracens', attacker: 'saracens', blocks: [{ block: 'Kurds 1', steps: 2 }, { block: 'Saladin', steps: 2 }, { block: 'Antioch Turcopoles', steps: 2 }, { block: 'Jerusalem Templars', steps: 2 }, { name: 'Militia', side: 'franks', steps: 2, max: 3, rating: 'C2' }], retreat_slots: { attacker: 1, defender: 2 }, policy: { charge: 'always', harry: 'always' } } },
    { name: 'an existing siege where both pass in R1 and the besieger\'s reserve comes in R2', strict: false, tree: { town: { rating: 2 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', blocks: [{ block: 'Walter', steps: 2, at: 'castle' }, { block: 'Saladin', steps: 1 }, { block: 'Al Adil', at: 'main_road', arrives: 2 }], policy: { storm: 'when_stronger' } } },
    { name: 'an existing siege, castle limit 2, a weak block listed first', strict: false, tree: { town: { rating: 2 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', turns: 2, blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Tuman', steps: 1 }, { block: 'Saladin' }, { block: 'Al Mashtub' }], policy: { storm: 'always' } } },
    // no block starts in the castle or in the town: `castle`/`town` belong to the castle's side only, so this is where either side may be the besieged
    { name: 'an existing siege whose castle is empty, a relief on the road', strict: false, tree: { town: { rating: 2 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', blocks: [{ block: 'Walter', steps: 2 }, { block: 'Saladin', steps: 1 }, { block: 'King Guy', at: 'main_road' }] } },
    { name: 'a storm topped up in R2', strict: false, tree: { town: { rating: 3 }, player1: 'saracens', situation: 'existing_siege', besieged: 'franks', turns: 2, blocks: [{ block: 'Raymond (Tiberias)', at: 'castle' }, { block: 'Walter', at: 'castle' }, { block: 'Saladin' }, { block: 'Al Adil' }, { block: 'Al Mashtub', steps: 1, at: 'main_road', arrives: 2 }], policy: { storm: 'when_stronger', storm_ratio: 0.66 } } },
  ],
};

/** The bundled scenarios of a system as contexts: the first sweep point, variants and checks dropped. */
function bundled(id: string): Context[] {
  const dir = path.join(ROOT, 'scenarios', id);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => {
      const t = parse(readFileSync(path.join(dir, f), 'utf8')) as Tree;
      const sweep = (t.sweep ?? {}) as Record<string, unknown[]>;
      for (const k of COMMON) delete t[k];
      let tree = t;
      for (const [k, vals] of Object.entries(sweep)) tree = setAt(tree, k, -1, vals[0]) ?? tree;
      return { name: `scenarios/${id}/${f}`, tree, strict: false };
    });
}

// === setting a value, and what a case is =====================================================

/** A copy of `tree` with `p` set (`a[].b`: element `index` of array `a`; -1 for a plain path); undefined if the path has no place here. */
function setAt(tree: Tree, p: string, index: number, value: unknown): Tree | undefined {
  const out = structuredClone(tree);
  const parts = p.split('.');
  let o: Tree = out;
  for (let i = 0; i < parts.length - 1; i++) {
    let k = parts[i];
    if (k.endsWith('[]')) {
      k = k.slice(0, -2);
      const arr = o[k];
      if (!Array.isArray(arr) || index < 0 || index >= arr.length) return undefined;
      o = arr[index] as Tree;
      continue;
    }
    if (o[k] === undefined) o[k] = {};
    if (typeof o[k] !== 'object' || o[k] === null) return undefined;
    o = o[k] as Tree;
  }
  const last = parts[parts.length - 1];
  if (value === undefined) delete o[last];
  else o[last] = value;
  return out;
}

function valueAt(tree: Tree, p: string, index: number): unknown {
  let o: unknown = tree;
  for (const part of p.split('.')) {
    if (o === null || typeof o !== 'object') return undefined;
    if (part.endsWith('[]')) {
      const arr = (o as Tree)[part.slice(0, -2)];
      o = Array.isArray(arr) ? arr[index] : undefined;
    } else o = (o as Tree)[part];
  }
  return o;
}

const caseCache = new Map<string, { compiled: string; scenario: Tree; case: unknown } | null>();
/** The compiled case (JSON), or null when the scenario does not validate. */
function caseOf(system: RulesSystem, tree: Tree) {
  const text = `name: d\nsystem: ${system.id}\nseed: 1\ntrials: 10\n${stringify(tree)}`;
  if (caseCache.has(text)) return caseCache.get(text)!;
  const v = validateText('d.yaml', text);
  let out = null;
  if (v.ok) {
    const scenario = v.value.points[0].variants[0].scenario as Tree;
    const c = system.compile(scenario);
    out = { compiled: JSON.stringify(c), scenario, case: c };
  }
  caseCache.set(text, out);
  return out;
}

/**
 * The exact answer (JSON) of a compiled case, or null where its system has none: computed only
 * when two cases differ (most probes change nothing, or differ already in a case without an
 * exact form), once per compiled case (many trees compile to the same case).
 */
const exactCache = new Map<string, string | null>();
function exactOf(system: RulesSystem, c: { compiled: string; case: unknown }): string | null {
  const key = `${system.id}\n${c.compiled}`;
  let out = exactCache.get(key);
  if (out === undefined) {
    const exact = system.exact ? system.exact(c.case as never) : null;
    out = exact ? JSON.stringify(exact) : null;
    exactCache.set(key, out);
  }
  return out;
}

/** Does setting `p` (element `index`) from `from` to `to` change the case in this context? 'invalid' when `to` does not validate here. */
function changes(system: RulesSystem, tree: Tree, p: string, index: number, from: unknown, to: unknown): boolean | 'invalid' {
  const blind = EXACT_BLIND[`${system.id}: ${p}`] !== undefined;
  const a = setAt(tree, p, index, from);
  const b = setAt(tree, p, index, to);
  if (!a || !b) return 'invalid';
  const ca = caseOf(system, a);
  const cb = caseOf(system, b);
  if (!cb) return 'invalid';
  if (!ca) return true; // refused by the default, accepted with the option (rules.revised_ballista)
  if (ca.compiled === cb.compiled) return false;
  if (blind) return true;
  const ea = exactOf(system, ca);
  const eb = exactOf(system, cb);
  if (ea === null && eb === null) return true;
  return ea !== eb;
}

interface Probe {
  key: string; // `path` or `path=value`
  leaf: Leaf;
  value?: unknown;
}

/** Every (setting, value) of a system to check: each enum/boolean value off its default, each other setting once. */
function probesOf(leaves: Leaf[]): Probe[] {
  return leaves.flatMap((leaf) =>
    leaf.choices ? leaf.choices.filter((v) => v !== leaf.def).map((v) => ({ key: `${leaf.path}=${String(v)}`, leaf, value: v })) : [{ key: leaf.path, leaf }],
  );
}

/** In this context: 'live', 'dead' (it validates and changes nothing), or 'n/a' (no place for it, or no value of it validates here). */
function probeIn(system: RulesSystem, ctx: Context, probe: Probe): 'live' | 'dead' | 'n/a' {
  const { leaf } = probe;
  const arrayAt = leaf.path.indexOf('[]');
  const n = arrayAt < 0 ? 1 : (() => {
    const arr = valueAt(ctx.tree, leaf.path.slice(0, arrayAt), -1);
    return Array.isArray(arr) ? arr.length : 0;
  })();
  let sawValid = false;
  for (let i = 0; i < n; i++) {
    const index = arrayAt < 0 ? -1 : i;
    const own = valueAt(ctx.tree, leaf.path, index);
    const from = leaf.def !== undefined ? leaf.def : own;
    if (leaf.choices) {
      // each value off the default; with no default, off the context's own value (and a change A -> B shows B matters too)
      const base = from ?? leaf.choices[0];
      if (probe.value === base) {
        for (const other of leaf.choices) {
          if (other === base) continue;
          const r = changes(system, ctx.tree, leaf.path, index, base, other);
          if (r === true) return 'live';
          if (r === false) sawValid = true;
        }
        continue;
      }
      const r = changes(system, ctx.tree, leaf.path, index, base, probe.value);
      if (r === true) return 'live';
      if (r === false) sawValid = true;
      continue;
    }
    if (from === undefined && own === undefined && leaf.def === undefined) {
      // an optional number with no default (a printed counter value, wall.hp): absent, then given
      for (const to of leaf.candidates(undefined)) {
        const r = changes(system, ctx.tree, leaf.path, index, undefined, to);
        if (r === true) return 'live';
        if (r === false) sawValid = true;
      }
      continue;
    }
    for (const to of leaf.candidates(from)) {
      const r = changes(system, ctx.tree, leaf.path, index, from, to);
      if (r === true) return 'live';
      if (r === false) sawValid = true;
    }
  }
  return sawValid ? 'dead' : 'n/a';
}

const matches = (keys: string[], probe: Probe) =>
  keys.some((k) => k === probe.key || k === probe.leaf.path || (k.endsWith('.') && probe.leaf.path.startsWith(k)) || probe.leaf.path === k || probe.leaf.path.startsWith(`${k}.`) || probe.leaf.path.startsWith(`${k}[]`));

// === the checks ==============================================================================

const schema = jsonSchemaOf(SYSTEMS) as { anyOf: Node[] };
const usedNever = new Set<string>();
const usedDeadWhen = new Set<DeadWhen>();
let checked = 0;

describe('no dead settings: every setting and every value changes the case somewhere it can matter', () => {
  it.each(SYSTEMS.map((s) => s.id))('%s', async (id) => {
    const system = SYSTEMS.find((s) => s.id === id)!;
    const node = schema.anyOf.find((s) => (s.properties!.system as { const?: string }).const === id)!;
    const leaves: Leaf[] = [];
    for (const [k, v] of Object.entries(node.properties!)) if (!COMMON.has(k)) leavesOf(v, k, leaves, STRINGS[id] ?? {});
    expect(leaves.length).toBeGreaterThan(10);
    const contexts = [...(CONTEXTS[id] ?? []), ...bundled(id)];
    const probes = probesOf(leaves);
    checked += probes.length;
    const problems: string[] = [];
    for (const probe of probes) {
      await new Promise<void>((resolve) => setImmediate(resolve)); // let the worker answer vitest (its RPC times out after 60 s)
      const never = NEVER[`${id}: ${probe.key}`] !== undefined ? `${id}: ${probe.key}` : NEVER[`${id}: ${probe.leaf.path}`] !== undefined ? `${id}: ${probe.leaf.path}` : null;
      // every strict context (each situation is checked), the others until one shows the setting live
      const results: { ctx: Context; r: 'live' | 'dead' | 'n/a' }[] = [];
      for (const ctx of contexts) {
        if (!ctx.strict && results.some((x) => x.r === 'live')) continue;
        results.push({ ctx, r: probeIn(system, ctx, probe) });
      }
      const live = results.filter((x) => x.r === 'live');
      if (never) {
        usedNever.add(never);
        if (live.length > 0) problems.push(`${probe.key}: listed in NEVER ("${NEVER[never]}") but it changes the case in "${live[0].ctx.name}"`);
        continue;
      }
      if (live.length === 0) problems.push(`${probe.key}: changes no case in any context (add a context where it can matter, or list it in NEVER with the reason)`);
      for (const { ctx, r } of results) {
        if (!ctx.strict || r !== 'dead') continue;
        const excuse = DEAD_WHEN.find((d) => d.system === id && matches(d.keys, probe) && d.when(caseOf(system, ctx.tree)?.scenario ?? ctx.tree));
        if (excuse) usedDeadWhen.add(excuse);
        else problems.push(`${probe.key}: changes nothing in "${ctx.name}" (a situation where a reader would expect it to matter: fix it, or add a DEAD_WHEN entry with the reason)`);
      }
    }
    expect(problems, `${id}:\n${problems.join('\n')}`).toEqual([]);
  }, 600_000);

  it('every exception still excuses something (the list stays true)', () => {
    for (const k of Object.keys(NEVER)) if (SYSTEMS.some((s) => k.startsWith(`${s.id}:`))) expect(usedNever.has(k), `NEVER entry "${k}" excuses nothing: remove it`).toBe(true);
    const stale = DEAD_WHEN.filter((d) => d.reason !== '' && !usedDeadWhen.has(d)).map((d) => `${d.system}: ${d.keys.join(', ')} (${d.reason})`);
    expect(stale, 'DEAD_WHEN entries that excuse nothing').toEqual([]);
    expect(checked).toBeGreaterThan(100);
    console.log(`dead settings: ${checked} settings x values checked`);
  });
});
