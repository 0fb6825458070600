/** The surrender-level siege test of seed 002 as a siegesim rules system. */
import type { RulesSystem } from '../types.js';
import { chartsSurrender } from './charts.js';
import { compileSurrender, type SurrenderCompiled } from './compile.js';
import { exactSurrender } from './exact.js';
import { ACC_PROBE, ACC_SURRENDERED, surrenderKernel } from './kernel.js';
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
  curveDefs: [{ file: 'surrender_by_turn', keys: ['turn'], valueName: 'p_cumulative' }],
  compile: compileSurrender,
  kernel: surrenderKernel,
  pairedSlots: () => [
    { metric: 'p_test', slot: ACC_PROBE },
    { metric: 'p_surrender', slot: ACC_SURRENDERED },
  ],
  summarize: summarizeSurrender,
  exact: exactSurrender,
  charts: chartsSurrender,
};
