/** The surrender-level siege test of seed 002 as a siegesim rules system. */
import { count } from '../../text/count.js';
import type { RulesSystem } from '../types.js';
import { chartsSurrender } from './charts.js';
import { compileSurrender, deadSettingsSurrender, type SurrenderCompiled } from './compile.js';
import { exactSurrender } from './exact.js';
import { ACC_BY_TURN, ACC_PROBE, ACC_SUM_T, ACC_SUM_T2, ACC_SURRENDERED, ACC_TRIALS, surrenderKernel } from './kernel.js';
import { surrenderShape } from './schema.js';
import { METRIC_DOCS_SURRENDER, summarizeSurrender } from './summarize.js';

export const surrender: RulesSystem<SurrenderCompiled> = {
  id: 'surrender',
  title: 'surrender-level siege test (seed 002, SGS rules)',
  get shape() {
    return surrenderShape();
  },
  // ~25 M trials/s per thread on a 12-turn siege: 262144 trials is ~10 ms, the chunk size the
  // piscina round trip (50-80 µs) needs to be noise (docs/architecture.md "Chunks").
  chunkTrials: 262_144,
  headline: ['p_test', 'p_surrender'],
  metricOrder: ['p_test', 'p_surrender', 'mean_turns'],
  // every case makes every metric (summarize.ts)
  metricNames: () => surrender.metricOrder,
  metricDocs: METRIC_DOCS_SURRENDER,
  // a mean over the trials that surrendered (summarize.ts: its n is the surrender count)
  conditionalOn: { mean_turns: 'p_surrender' },
  horizon: (s) => count(typeof s.turns === 'number' ? s.turns : 12, 'game turn'),
  curveDefs: [{ file: 'surrender_by_turn', keys: ['turn'], valueName: 'p_cumulative' }],
  compile: compileSurrender,
  kernel: surrenderKernel,
  pairedSlots: () => [
    { metric: 'p_test', slot: ACC_PROBE },
    { metric: 'p_surrender', slot: ACC_SURRENDERED },
  ],
  summarize: summarizeSurrender,
  // the slots summarize reads are checked through its metrics; these are the layout's own sums (kernel.ts)
  checkAccumulator: (c, acc) => {
    const n = acc[ACC_TRIALS];
    let byTurn = 0;
    for (let t = 0; t < c.turns; t++) {
      const x = acc[ACC_BY_TURN + t];
      if (!(x >= 0 && x <= n)) return `slot ${ACC_BY_TURN + t} counts ${x} surrenders in turn ${t + 1} of ${n} trials`;
      byTurn += x;
    }
    if (byTurn !== acc[ACC_SURRENDERED]) return `surrenders by turn (slots ${ACC_BY_TURN}..${ACC_BY_TURN + c.turns - 1}) sum to ${byTurn}, not the ${acc[ACC_SURRENDERED]} surrendered (slot ${ACC_SURRENDERED})`;
    // the surrender turns' sums: each surrender's turn is 1..turns
    const k = acc[ACC_SURRENDERED];
    if (!(acc[ACC_SUM_T] >= k && acc[ACC_SUM_T] <= k * c.turns)) return `slot ${ACC_SUM_T} sums ${acc[ACC_SUM_T]} surrender turns, outside [${k}, ${k * c.turns}] for ${k} surrenders in ${c.turns} turns`;
    if (!(acc[ACC_SUM_T2] >= acc[ACC_SUM_T] && acc[ACC_SUM_T2] <= acc[ACC_SUM_T] * c.turns)) return `slot ${ACC_SUM_T2} sums ${acc[ACC_SUM_T2]} squared surrender turns, outside what ${acc[ACC_SUM_T]} turns allow`;
    return undefined;
  },
  deadSettings: deadSettingsSurrender,
  exact: exactSurrender,
  charts: chartsSurrender,
};
