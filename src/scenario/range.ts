/*
 * A sweep range (`{ from, to, step }`): how many values it holds and each one, for the scenario
 * validator and the workbench page alike (a leaf: nothing else to load in the browser).
 */

/**
 * How many values a from/to/step range holds (Infinity past what a number holds), without making
 * them: floor((to − from)/step + 1e-9) + 1. The 1e-9 (of a step) lets `to` count as reached when
 * floating point lands just short of it ((0.3 − 0)/0.1 is 2.9999999999999996).
 */
export function sweepCount(spec: { from: number; to: number; step: number }): number {
  return Math.floor((spec.to - spec.from) / spec.step + 1e-9) + 1;
}

/**
 * The k-th value of a range: from + k·step to 12 significant digits (0.1 + 0.2 is written 0.3,
 * not 0.30000000000000004), and never above `to`: the tolerance of `sweepCount` can admit a last
 * value up to 1e-9 of a step beyond it (`to: 0.29999999999` by 0.1), which is then `to` itself.
 */
export function sweepValueAt(spec: { from: number; to: number; step: number }, k: number): number {
  return Math.min(Number((spec.from + k * spec.step).toPrecision(12)), spec.to);
}
