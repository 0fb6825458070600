/** Summarize phase of the Crusader Rex system. */
import { mean, probability } from '../metrics.js';
import type { CaseSummary, CurvePoint } from '../types.js';
import { SIDE_NAMES, type CrusaderRexCompiled } from './compile.js';
import { A_ATT_WINS, A_BOTH_GONE, A_CONTINUES, A_DEF_HOLDS, A_FALLS, A_GUARD, A_LIFTED, A_LOST, A_ROUNDS, attrBase, maxAll, SURV } from './kernel.js';

const PLACES = ['field', 'castle', 'reserves'] as const;
const SLOTS = ['1', '2', '3', 'end'] as const;

export function summarizeCrusaderRex(c: CrusaderRexCompiled, acc: Float64Array): CaseSummary {
  const n = acc[0];
  // what each trial can take: every side's starting steps (none are gained), three rounds a game turn
  const start = [0, 0];
  c.steps0.forEach((s, b) => (start[c.side[b]] += s));
  const metrics: CaseSummary['metrics'] = {
    p_attacker_wins: probability(acc[A_ATT_WINS], n),
    p_defender_holds: probability(acc[A_DEF_HOLDS], n),
    p_castle_falls: probability(acc[A_FALLS], n),
    p_siege_lifted: probability(acc[A_LIFTED], n),
    p_siege_continues: probability(acc[A_CONTINUES], n),
    p_both_gone: probability(acc[A_BOTH_GONE], n),
    mean_rounds: mean(n, acc[A_ROUNDS], acc[A_ROUNDS + 1], [0, 3 * c.turns]),
    mean_steps_lost_franks: mean(n, acc[A_LOST], acc[A_LOST + 1], [0, start[0]]),
    mean_steps_lost_saracens: mean(n, acc[A_LOST + 2], acc[A_LOST + 3], [0, start[1]]),
    p_guard: probability(acc[A_GUARD], n),
  };
  const survivors: CurvePoint[] = [];
  const hn = maxAll(c) + 1;
  for (let side = 0; side < 2; side++) {
    for (let s = 0; s <= c.maxTotal[side]; s++) survivors.push({ x: { side: SIDE_NAMES[side], steps: s }, m: probability(acc[SURV + side * hn + s], n) });
  }
  const attrition: CurvePoint[] = [];
  for (let t = 1; t <= c.turns; t++)
    for (let slot = 0; slot < 4; slot++)
      for (let side = 0; side < 2; side++)
        for (let p = 0; p < 3; p++) {
          const k = attrBase(c) + ((t - 1) * 4 + slot) * 12 + (side * 3 + p) * 2;
          attrition.push({ x: { turn: t, round: SLOTS[slot], side: SIDE_NAMES[side], place: PLACES[p] }, m: mean(n, acc[k], acc[k + 1], [0, start[side]]) });
        }
  return { metrics, curves: { survivors, attrition } };
}
