/**
 * The fantasy kernel's accumulator layout (Float64Array):
 *   [0] trials  [1] attacker wins  [2] defender wins  [3] undecided  [4] Σ rounds  [5] Σ rounds²
 *   [6] breached  [7] Σ breach round  [8] Σ breach round²  [9] round cap reached
 *   [10] Σ Phase A damage after shields  [11] its Σ²  [12] attacker withdrew
 *   [13 + r - 1]                      breaches in round r, r = 1..R
 *   [13 + R + r * 30 + k]             end-of-round state, r = 0..R (0 = before the battle):
 *                                     k = 0, 1: Σ wall HP, Σ wall HP²;
 *                                     k = 2 + (side * 7 + type) * 2 (+1): Σ alive, Σ alive²
 *   [13 + R + (R + 1) * 30 + d]       Phase A damage after shields = d, d = 0..maxVolley (an open
 *                                     field with a side out at the start: d = 0)
 */
import { NT, type FantasyCompiled } from './compile.js';

export const A_TRIALS = 0;
export const A_ATT_WINS = 1;
export const A_DEF_WINS = 2;
export const A_UNDECIDED = 3;
export const A_ROUNDS = 4;
export const A_ROUNDS2 = 5;
export const A_BREACHED = 6;
export const A_BREACH_ROUND = 7;
export const A_BREACH_ROUND2 = 8;
export const A_CAP = 9;
export const A_VOLLEY = 10;
export const A_VOLLEY2 = 11;
export const A_WITHDREW = 12;
export const A_BY_ROUND = 13;
export const ROUND_STRIDE = 2 + 2 * NT * 2;

export function roundBase(c: FantasyCompiled): number {
  return A_BY_ROUND + c.maxRounds;
}
export function histBase(c: FantasyCompiled): number {
  return roundBase(c) + (c.maxRounds + 1) * ROUND_STRIDE;
}
export function accLengthFantasy(c: FantasyCompiled): number {
  return histBase(c) + c.maxVolley + 1;
}
