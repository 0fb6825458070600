/** The fantasy open-field and siege system of seed 001 as a siegesim rules system. */
import type { RulesSystem } from '../types.js';
import { chartsFantasy } from './charts.js';
import { compileFantasy, type FantasyCompiled } from './compile.js';
import { exactFantasy } from './exact.js';
import { A_ATT_WINS, A_BREACHED, A_DEF_WINS, A_UNDECIDED, fantasyKernel } from './kernel.js';
import { FANTASY_SHAPE } from './schema.js';
import { summarizeFantasy } from './summarize.js';

export const fantasy: RulesSystem<FantasyCompiled> = {
  id: 'fantasy',
  title: 'fantasy open-field and siege combat (seed 001)',
  shape: FANTASY_SHAPE,
  // A siege trial is tens of microseconds at most: 4096 trials keep a chunk near or above
  // the 10 ms docs/architecture.md asks for, and big sweeps still spread over both cores.
  chunkTrials: 4096,
  headline: ['p_attacker_wins', 'p_defender_wins', 'p_breach'],
  // the battle's result (kernel.ts counts exactly one of the three)
  outcomes: [['p_attacker_wins', 'p_defender_wins', 'p_undecided']],
  metricOrder: [
    'p_attacker_wins',
    'p_defender_wins',
    'p_undecided',
    'mean_rounds',
    'p_round_cap',
    'p_breach',
    'mean_breach_round',
    'p_withdrew',
    'mean_volley_a_damage',
  ],
  curveDefs: [
    { file: 'breach_by_round', keys: ['round'], valueName: 'p_cumulative' },
    { file: 'attrition', keys: ['round', 'side', 'unit'], valueName: 'mean' },
    { file: 'wall_hp', keys: ['round'], valueName: 'mean' },
    { file: 'volley_damage', keys: ['damage'], valueName: 'p' },
  ],
  compile: compileFantasy,
  kernel: fantasyKernel,
  pairedSlots: (c) => [
    { metric: 'p_attacker_wins', slot: A_ATT_WINS },
    { metric: 'p_defender_wins', slot: A_DEF_WINS },
    { metric: 'p_undecided', slot: A_UNDECIDED },
    ...(c.siege === 1 ? [{ metric: 'p_breach', slot: A_BREACHED }] : []),
  ],
  summarize: summarizeFantasy,
  exact: exactFantasy,
  charts: chartsFantasy,
};
