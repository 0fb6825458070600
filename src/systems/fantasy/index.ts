/** The fantasy open-field and siege system of seed 001 as a siegesim rules system. */
import { count } from '../../text/count.js';
import type { RulesSystem } from '../types.js';
import { chartsFantasy } from './charts.js';
import { compileFantasy, type FantasyCompiled } from './compile.js';
import { deadSettingsFantasy } from './dead-settings.js';
import { exactFantasy } from './exact.js';
import { A_ATT_WINS, A_BREACHED, A_CAP, A_DEF_WINS, A_ROUNDS, A_UNDECIDED, A_VOLLEY, A_WITHDREW, fantasyKernel } from './kernel.js';
import { fantasyShape } from './schema.js';
import { METRIC_DOCS_FANTASY, METRIC_ORDER_FANTASY, metricNamesFantasy, sidesFantasy, summarizeFantasy } from './summarize.js';

/** A wall's HP, DC, upgrades and breach threshold and the round cap as the compiled case has them (the file may leave them to the rules). */
function autoValuesOf(c: FantasyCompiled, s: Record<string, unknown>): Record<string, number> {
  return {
    'wall.hp': c.wallHp,
    'wall.dc': c.dc,
    'wall.upgrades': c.removeK - 2,
    ...((s.rules as Record<string, unknown>).breach_threshold_rule === 'wall' ? { 'wall.breach_threshold': c.breachThreshold } : {}),
    max_rounds: c.maxRounds,
  };
}

export const fantasy: RulesSystem<FantasyCompiled> = {
  id: 'fantasy',
  title: 'fantasy open-field and siege combat (seed 001)',
  get shape() {
    return fantasyShape();
  },
  // A siege trial is tens of microseconds at most: 4096 trials keep a chunk near or above
  // the 10 ms docs/architecture.md asks for, and big sweeps still spread over both cores.
  chunkTrials: 4096,
  headline: ['p_attacker_wins', 'p_defender_wins', 'p_breach'],
  // the battle's result (kernel.ts counts exactly one of the three)
  outcomes: [['p_attacker_wins', 'p_defender_wins', 'p_undecided']],
  metricOrder: METRIC_ORDER_FANTASY,
  metricNames: metricNamesFantasy,
  metricDocs: METRIC_DOCS_FANTASY,
  // a mean over the trials with a breach (summarize.ts: its n is the breach count)
  conditionalOn: { mean_breach_round: 'p_breach' },
  sides: sidesFantasy,
  horizon: (s) => `at most ${count(typeof s.max_rounds === 'number' ? s.max_rounds : s.mode === 'siege' ? 20 : 10, 'round')}`,
  curveDefs: [
    { file: 'breach_by_round', keys: ['round'], valueName: 'p_cumulative' },
    { file: 'attrition', keys: ['round', 'side', 'unit'], valueName: 'mean' },
    { file: 'wall_hp', keys: ['round'], valueName: 'mean' },
    { file: 'volley_damage', keys: ['damage'], valueName: 'p' },
  ],
  // H20 wall type defaults, H19 threshold (unless half_defenders replaces it), H7/H27 round cap,
  // as the compiled case has them
  autoValues: (s) => autoValuesOf(compileFantasy(s), s),
  compile: compileFantasy,
  deadSettings: deadSettingsFantasy,
  kernel: fantasyKernel,
  // every metric over all trials (all but mean_breach_round, over the trials with a breach), by mode as summarize.ts makes them
  pairedSlots: (c) => [
    { metric: 'p_attacker_wins', slot: A_ATT_WINS },
    { metric: 'p_defender_wins', slot: A_DEF_WINS },
    { metric: 'p_undecided', slot: A_UNDECIDED },
    { metric: 'mean_rounds', slot: A_ROUNDS },
    { metric: 'p_round_cap', slot: A_CAP },
    ...(c.siege === 1
      ? [
          { metric: 'p_breach', slot: A_BREACHED },
          { metric: 'p_withdrew', slot: A_WITHDREW },
        ]
      : [{ metric: 'mean_volley_a_damage', slot: A_VOLLEY }]),
  ],
  summarize: summarizeFantasy,
  exact: exactFantasy,
  charts: chartsFantasy,
};
