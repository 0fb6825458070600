/** Summarize phase of the Crusader Rex system. */
import { mean, probability } from '../metrics.js';
import type { CaseSummary, CurvePoint } from '../types.js';
import { SIDE_NAMES, type CrusaderRexCompiled } from './compile.js';
import { A_ATT_WINS, A_BOTH_GONE, A_CONTINUES, A_DEF_HOLDS, A_FALLS, A_GUARD, A_LIFTED, A_LOST, A_ROUNDS, attrBase, maxAll, SURV } from './kernel.js';

const PLACES = ['field', 'castle', 'reserves'] as const;

/**
 * What each metric counts (RulesSystem.metricDocs), as every kernel path counts
 * it at the end of a trial (after the last game turn played: play stops once a side has no
 * blocks in the town or the castle fell). "In the town": in the field or the castle (stormers
 * and sallies are back in place by then, 2.8); a block that retreated or was eliminated is not. "Attacker" is the scenario's
 * (`attacker:`, or the besieger of an existing siege), whatever roles the battle swaps (6.56).
 * docs/rules/crusader-rex.md §9 carries these definitions word for word: change both together.
 */
export const METRIC_DOCS_CRUSADER_REX: Readonly<Record<string, string>> = {
  p_attacker_wins: "the scenario's attacker (the besieger in an existing siege) alone has blocks in the town at the end, in the field or the castle",
  p_defender_holds: "the scenario's defender (the besieged in an existing siege, with any relief) alone has blocks in the town at the end, in the field or the castle",
  p_siege_continues: "both sides still have blocks in the town at the end of the last game turn (a siege or battle still going)",
  p_both_gone: "neither side has blocks in the town at the end: every block eliminated or retreated",
  p_castle_falls: "the castle fell, in any game turn: its last blocks were eliminated by a storm with none of their side's reserves still on the road (6.54; with some on the road control switches instead, 4.4), or by siege attrition while the enemy had blocks in the town (6.57); a garrison lost sallying does not count",
  p_siege_lifted: "the castle held blocks at the start of some round (a castle filled at combat deployment, 2.2, counts), and at the end (sallies back inside, 2.8) its holder still has blocks in it and the other side has none in the field (the besiegers eliminated or gone: harried or retreated away, the compulsory retreat after R3, besieger_after_r3: retreat); a sally that wins the field mid-turn (sallies back inside, 2.8) or a relief force that wins it counts as the siege lifted",
  mean_rounds: "combat rounds fought, every game turn: a round counts when it is fought as a field round (the field contested after that round's arrivals), a storm round or a sally into an uncontested field; a round both sides pass is not counted (to attrition or on to the next round, 4.3), nor a skipped R1 (3.2), a round nobody can fight while reserves are still coming, or the rounds after the turn's combat ended; 0 to 3 × turns; averaged over all trials",
  mean_steps_lost_franks: "steps the Franks lost: their starting steps minus those left at the end (hits, charge self-hits, attrition, blocks eliminated with no retreat slot; a retreated block keeps its steps), averaged over all trials",
  mean_steps_lost_saracens: "steps the Saracens lost: their starting steps minus those left at the end (hits, attrition, blocks eliminated with no retreat slot; a retreated block keeps its steps), averaged over all trials",
  p_guard: "a combat round hit its action guard (a loop cap never expected to be reached: please report it)",
};
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
