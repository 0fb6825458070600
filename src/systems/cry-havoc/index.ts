/** Cry Havoc / Siege tables (seeds 003, 004) as a siegesim rules system. */
import { count } from '../../text/count.js';
import type { RulesSystem } from '../types.js';
import { chartsCryHavoc } from './charts.js';
import { compileCryHavoc, deadSettingsCryHavoc, refineCryHavoc, type CryHavocCompiled } from './compile.js';
import { exactCryHavoc } from './exact.js';
import { cryHavocKernel } from './kernel.js';
import { cryHavocShape } from './schema.js';
import { METRIC_DOCS_CRY_HAVOC, metricDocCryHavoc, metricNamesCryHavoc, pairedGroupsCryHavoc, pairedSlotsCryHavoc, sidesCryHavoc, summarizeCryHavoc } from './summarize.js';

export const cryHavoc: RulesSystem<CryHavocCompiled> = {
  id: 'cry-havoc',
  title: 'Cry Havoc / Siege tables: melee, missile, battering, fire, healing (seeds 003, 004)',
  get shape() {
    return cryHavocShape();
  },
  refine: refineCryHavoc,
  deadSettings: deadSettingsCryHavoc,
  // A trial is a few table look-ups (battering: up to a roll per day): 65536 is ~10 ms.
  chunkTrials: 65_536,
  headline: ['p_defender_killed', 'p_attacker_killed', 'p_killed', 'p_breached', 'p_ever_ignited', 'p_burning_at_end', 'p_healed'],
  // how a melee ends, and how a wound ends (kernel.ts runMelee and runHealing count exactly one each)
  outcomes: [
    ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack'],
    ['p_healed', 'p_out_for_scenario', 'p_dies'],
  ],
  metricOrder: [
    'p_defender_killed',
    'p_attacker_killed',
    'p_undecided',
    'p_no_attack',
    'mean_turns',
    'p_killed',
    'mean_turns_to_kill',
    'p_hurt',
    'p_breached',
    'mean_days',
    'mean_points_lost',
    'mean_engines_out',
    'p_ever_ignited',
    'p_burning_at_end',
    'mean_turns_burning',
    'p_healed',
    'p_out_for_scenario',
    'p_dies',
    'mean_days_to_heal',
  ],
  metricNames: metricNamesCryHavoc,
  metricDocs: METRIC_DOCS_CRY_HAVOC,
  // means over the trials in which something happened (summarize.ts: each one's n is that count);
  // the melee's turn of a death is over either side's death
  conditionalOn: {
    mean_turns: 'p_defender_killed + p_attacker_killed',
    mean_turns_to_kill: 'p_killed',
    mean_days: 'p_breached',
    mean_days_to_heal: 'p_healed',
  },
  metricDocFor: metricDocCryHavoc,
  sides: sidesCryHavoc,
  horizon: (s) => {
    const turns = typeof s.turns === 'number' ? s.turns : 6;
    if (s.kind === 'melee') return count(turns, 'combat turn');
    if (s.kind === 'missile' || s.kind === 'fire') return count(turns, 'turn');
    if (s.kind === 'battering') return count(typeof s.days === 'number' ? s.days : 20, 'siege day');
    return undefined; // healing: each wound until it heals
  },
  curveDefs: [
    { file: 'results_by_turn', keys: ['turn', 'table', 'result'], valueName: 'p' },
    { file: 'p_killed_by_turn', keys: ['turn'], valueName: 'p_cumulative' },
    { file: 'breach_by_day', keys: ['day'], valueName: 'p_cumulative' },
    { file: 'p_burning_by_turn', keys: ['turn'], valueName: 'p' },
    { file: 'heal_by_day', keys: ['day'], valueName: 'p_cumulative' },
  ],
  // wounded and dismounted strengths default from the healthy ones (rules.wounded_values), as compiled
  autoValues: (s) => {
    const c = compileCryHavoc(s);
    return {
      ...Object.fromEntries(c.attW.map((n, i) => [`attackers.${i}.wounded.attack`, n])),
      ...(s.defender ? { 'defender.wounded.defence': c.defW, 'defender.dismounted.defence': c.dismH, 'defender.dismounted.wounded_defence': c.dismW } : {}),
    };
  },
  compile: compileCryHavoc,
  kernel: cryHavocKernel,
  pairedSlots: pairedSlotsCryHavoc,
  pairedGroups: pairedGroupsCryHavoc,
  summarize: summarizeCryHavoc,
  exact: exactCryHavoc,
  charts: chartsCryHavoc,
};
