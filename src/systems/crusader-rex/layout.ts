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
