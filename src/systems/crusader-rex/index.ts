/** Crusader Rex battles and sieges (seed 000, docs/rules/crusader-rex.md) as a siegesim rules system. */
import { count } from '../../text/count.js';
import type { RulesSystem } from '../types.js';
import { chartsCrusaderRex } from './charts.js';
import { autoValuesCrusaderRex, compileCrusaderRex, deadSettingsCrusaderRex, precheckCrusaderRex, unknownKeyHintCrusaderRex, refineCrusaderRex, sidesCrusaderRex, type CrusaderRexCompiled } from './compile.js';
import { exactCrusaderRex } from './exact.js';
import { A_ATT_WINS, A_BOTH_GONE, A_CONTINUES, A_DEF_HOLDS, A_FALLS, A_GUARD, A_LIFTED, A_LOST, A_ROUNDS, crusaderRexKernel } from './kernel.js';
import { crusaderRexShape } from './schema.js';
import { METRIC_DOCS_CRUSADER_REX, summarizeCrusaderRex } from './summarize.js';

export const crusaderRex: RulesSystem<CrusaderRexCompiled> = {
  id: 'crusader-rex',
  title: 'Crusader Rex battles and sieges (seed 000, rules v2.0 as the Rally the Troops engine plays them)',
  get shape() {
    return crusaderRexShape();
  },
  refine: refineCrusaderRex,
  precheck: precheckCrusaderRex,
  deadSettings: deadSettingsCrusaderRex,
  unknownKeyHint: unknownKeyHintCrusaderRex,
  // about a microsecond a battle: 16384 battles is well over the 10 ms a chunk needs
  chunkTrials: 16_384,
  headline: ['p_attacker_wins', 'p_defender_holds', 'p_castle_falls'],
  // who holds the town at the end (every kernel path counts exactly one of the four)
  outcomes: [['p_attacker_wins', 'p_defender_holds', 'p_siege_continues', 'p_both_gone']],
  metricOrder: [
    'p_attacker_wins',
    'p_defender_holds',
    'p_castle_falls',
    'p_siege_lifted',
    'p_siege_continues',
    'p_both_gone',
    'mean_rounds',
    'mean_steps_lost_franks',
    'mean_steps_lost_saracens',
    'p_guard',
  ],
  // every case makes every metric (summarize.ts)
  metricNames: () => crusaderRex.metricOrder,
  metricDocs: METRIC_DOCS_CRUSADER_REX,
  sides: sidesCrusaderRex,
  horizon: (s) => count(typeof s.turns === 'number' ? s.turns : 1, 'game turn'),
  curveDefs: [
    { file: 'attrition', keys: ['turn', 'round', 'side', 'place'], valueName: 'mean' },
    { file: 'survivors', keys: ['side', 'steps'], valueName: 'p' },
  ],
  autoValues: autoValuesCrusaderRex,
  compile: compileCrusaderRex,
  kernel: crusaderRexKernel,
  // every metric is per trial (a count or a sum over all trials, summarize.ts): all paired
  pairedSlots: () => [
    { metric: 'p_attacker_wins', slot: A_ATT_WINS },
    { metric: 'p_defender_holds', slot: A_DEF_HOLDS },
    { metric: 'p_castle_falls', slot: A_FALLS },
    { metric: 'p_siege_lifted', slot: A_LIFTED },
    { metric: 'p_siege_continues', slot: A_CONTINUES },
    { metric: 'p_both_gone', slot: A_BOTH_GONE },
    { metric: 'mean_rounds', slot: A_ROUNDS },
    { metric: 'mean_steps_lost_franks', slot: A_LOST },
    { metric: 'mean_steps_lost_saracens', slot: A_LOST + 2 },
    { metric: 'p_guard', slot: A_GUARD },
  ],
  summarize: summarizeCrusaderRex,
  exact: exactCrusaderRex,
  charts: chartsCrusaderRex,
};
