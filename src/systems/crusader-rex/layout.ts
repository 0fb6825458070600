/**
 * The Crusader Rex accumulator (one per compiled case; both kernel paths fill it alike):
 *   [0] trials  [1] attacker wins  [2] defender holds  [3] castle falls  [4] siege lifted
 *   [5] siege continues (both sides still in the town)  [6] both gone
 *   [7] Σ rounds  [8] Σ rounds²  [9] Σ steps lost by the Franks  [10] Σ²
 *   [11] Σ steps lost by the Saracens  [12] Σ²  [13] trials where a round hit its action guard (never expected)
 *   [SURV + side * (maxAll + 1) + steps]   surviving steps per side (histogram)
 *   [ATTR + ((turn - 1) * 4 + slot) * 12 + (side * 3 + place) * 2 (+1)]   Σ steps, Σ steps²
 *       slot 0..2 = end of round 1..3, 3 = after retreat and attrition; place 0 field, 1 castle, 2 reserves
 */
import type { CrusaderRexCompiled } from './compile.js';
import { setOutcomeTable } from '../trace.js';
import type { Trace } from '../types.js';

export const A_ATT_WINS = 1;
export const A_DEF_HOLDS = 2;
export const A_FALLS = 3;
export const A_LIFTED = 4;
export const A_CONTINUES = 5;
export const A_BOTH_GONE = 6;
export const A_ROUNDS = 7;
export const A_LOST = 9; // + 2 * side
export const A_GUARD = 13;
export const SURV = 14;

export function maxAll(c: CrusaderRexCompiled): number {
  return Math.max(c.maxTotal[0], c.maxTotal[1]);
}
export function attrBase(c: CrusaderRexCompiled): number {
  return SURV + 2 * (maxAll(c) + 1);
}
export function accLengthCrusaderRex(c: CrusaderRexCompiled): number {
  return attrBase(c) + c.turns * 4 * 12;
}

/**
 * Outcome mode (engine/kernel.ts Trace.outcome): the words of an outcome row every path that
 * writes outcome codes lays out alike: wins, holds, goes on, both gone, falls, lifted, rounds,
 * steps lost by side 0 and 1 (a path may keep more words after them: its table's width says).
 */
export const OUTCOME_SLOTS = [A_ATT_WINS, A_DEF_HOLDS, A_CONTINUES, A_BOTH_GONE, A_FALLS, A_LIFTED, A_ROUNDS, A_LOST, A_LOST + 2];
/** Words of the closed and field paths' outcome rows (the table path's walk keeps two more: OW). */
export const OUTCOME_W = 9;

/** A call's outcome table for the engine (systems/trace.ts setOutcomeTable); p_guard never changes on these paths. */
export function setOutcomes(trace: Trace, table: ArrayLike<number>, width: number): void {
  setOutcomeTable(trace, table, width, OUTCOME_SLOTS, [A_GUARD], 'crusader-rex');
}
