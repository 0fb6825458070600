/**
 * Fantasy settings a case writes that change nothing in it (RulesSystem.deadSettings): warnings,
 * never refusals. Each entry names a setting the kernel never reads in the case's situation
 * (docs/rules/fantasy.md 4.1, 4.2, the option tables; docs/scenarios.md lists them).
 */
import type { FantasyScenario } from './compile.js';

/** Siege-only `rules:` keys (4.2: the wall, the climbs, the breach and its melee). */
const SIEGE_RULES = [
  'siege_pool',
  'dice_removal',
  'fire_split',
  'attacker_fire_targets',
  'shields_vs_wall',
  'tower_bonus',
  'climb_comparison',
  'failed_climb',
  'cavalry_climb',
  'breach_threshold_rule',
  'melee_start',
  'breach_pool_targetable',
  'engines_targetable',
  'pool_fire_order',
  'repelled_breach',
  'wall_fall',
] as const;
/** Siege-only `policy:` keys. */
const SIEGE_POLICY = ['attacker_fire', 'mage_fire', 'archer_fire', 'defender_fire_share', 'climbers', 'withdraw_below'] as const;
const WALL_KEYS = ['type', 'hp', 'dc', 'upgrades', 'breach_threshold'] as const;
const HP_TABLE = ['infantry', 'cavalry', 'archer', 'mage', 'cleric', 'siege_engine'] as const;

/** Whether the case as written has a value at `path` (its own key, not a default). */
function writes(written: Record<string, unknown>, path: readonly string[]): boolean {
  let o: unknown = written;
  for (const k of path) {
    if (o === null || typeof o !== 'object' || !Object.prototype.hasOwnProperty.call(o, k)) return false;
    o = (o as Record<string, unknown>)[k];
  }
  return true;
}

/**
 * Every setting the case writes that its situation never reads, once each (the first reason
 * found): in an open-field battle the wall and every siege-only rule and policy (and the round
 * cap's result under single_pass, which never reaches the cap); in a siege the
 * open-field-only rules (H24, and H6/H7 unless an H21 (b) battle follows a breach); in either
 * mode a policy or table its rule switches off (`mage_fire` without `fire_split: by_type`, the
 * `hp:` table under a preset, the captain's HP and value without a captain unit, a breach
 * threshold under `half_defenders`).
 */
export function deadSettingsFantasy(written: Record<string, unknown>, scenario: Record<string, unknown>): { path: string[]; message: string }[] {
  const s = scenario as unknown as FantasyScenario;
  const r = s.rules;
  const out: { path: string[]; message: string }[] = [];
  const seen = new Set<string>();
  const dead = (path: string[], why: string) => {
    const key = path.join('.');
    if (seen.has(key) || !writes(written, path)) return;
    seen.add(key);
    out.push({ path, message: `changes nothing: ${why}` });
  };
  if (s.mode === 'open_field') {
    const why = 'this case is an open-field battle (mode: open_field, 4.1) and the setting is read only in a siege (4.2); set mode: siege, or leave it out';
    for (const k of WALL_KEYS) dead(['wall', k], why);
    for (const k of SIEGE_POLICY) dead(['policy', k], why);
    for (const k of SIEGE_RULES) dead(['rules', k], why);
    if (r.open_field_rounds === 'single_pass') dead(['rules', 'round_cap_result'], 'rules.open_field_rounds is single_pass (H7 (b)): the battle ends after its first round by total HP, never at the round cap (4.1)');
  } else {
    dead(['rules', 'siege_units_open_field'], 'H24 is read only in mode: open_field (a siege, and its H21 (b) battle, keep the siege engines)');
    if (r.melee_start !== 'full_battle') {
      const why = 'in a siege the open-field phases are played only by an H21 (b) battle after a breach (rules.melee_start: full_battle), and this case has none';
      dead(['rules', 'open_field_rounds'], why);
      dead(['rules', 'ranged_phases'], why);
    }
    if (r.breach_threshold_rule === 'half_defenders') dead(['wall', 'breach_threshold'], 'rules.breach_threshold_rule is half_defenders (H19 (b)): the threshold is half the defender\'s starting units, not wall.breach_threshold');
  }
  if (r.fire_split !== 'by_type') {
    const why = `policy.mage_fire and policy.archer_fire are read only with rules.fire_split: by_type (H12 (c)); this case has ${String(r.fire_split)}`;
    dead(['policy', 'mage_fire'], why);
    dead(['policy', 'archer_fire'], why);
  }
  if (r.fire_split !== 'per_unit') dead(['policy', 'defender_fire_share'], `read only with rules.fire_split: per_unit (H12 (b)); this case has ${String(r.fire_split)}`);
  if (r.hp_preset !== 'table') for (const k of HP_TABLE) dead(['hp', k], `rules.hp_preset is ${String(r.hp_preset)} (H1): the preset gives every unit's HP, not the hp: table`);
  const captains = s.attacker.captain_might > 0 || s.defender.captain_might > 0;
  if (r.captain !== 'unit') {
    const why = 'rules.captain is bonus (H23 DEFAULT): the captain is no unit, so he has no HP and no value; set rules.captain: unit, or leave it out';
    dead(['hp', 'captain'], why);
    dead(['values', 'captain'], why);
  } else if (!captains) {
    const why = 'neither side has a captain (captain_might 0), so there is no captain unit (H23 (b))';
    dead(['hp', 'captain'], why);
    dead(['values', 'captain'], why);
  } else if (r.hp_preset === 'one') dead(['hp', 'captain'], 'rules.hp_preset is one (H1 (c)): the captain unit has 1 HP, like every unit');
  return out;
}
