/**
 * Closed form of the surrender test (docs/rules/surrender.md, "Closed form"):
 * a test succeeds on a fixed set of faces, so one turn surrenders with a constant hazard h
 * (blockade x cards x tests per turn), and the turn of surrender is geometric with h,
 * truncated at the last turn.
 */
import type { ExactSummary } from '../types.js';
import { testSucceeds, type SurrenderCompiled } from './compile.js';

/** P(one test succeeds) with modifier sum m: the share of faces that pass. */
export function testProbability(c: SurrenderCompiled, m: number): number {
  let ok = 0;
  for (let r = 1; r <= c.die; r++) if (testSucceeds(c, r, m)) ok++;
  return ok / c.die;
}

/** P(the structure surrenders in one given turn, not having surrendered before). */
export function turnHazard(c: SurrenderCompiled): number {
  if (c.siege === 0) return 0;
  const pb = c.cardBT >= 0 ? c.cardBChance : 0;
  const pd = c.cardDT >= 0 ? c.cardDChance : 0;
  let q = 0;
  for (let b = 0; b < 2; b++) {
    for (let d = 0; d < 2; d++) {
      const w = (b ? pb : 1 - pb) * (d ? pd : 1 - pd);
      if (w === 0) continue;
      const p = testProbability(c, c.baseMod + (b ? c.cardBMod : 0) + (d ? c.cardDMod : 0));
      q += w * (1 - Math.pow(1 - p, c.testsPerTurn));
    }
  }
  return c.blockadeChance * q;
}

export function exactSurrender(c: SurrenderCompiled): ExactSummary {
  const h = turnHazard(c);
  const curve: { x: Record<string, number>; value: number }[] = [];
  let alive = 1; // P(not surrendered yet)
  let m1 = 0;
  let m2 = 0;
  for (let t = 1; t <= c.turns; t++) {
    const pt = alive * h;
    m1 += t * pt;
    m2 += t * t * pt;
    alive -= pt;
    curve.push({ x: { turn: t }, value: 1 - alive });
  }
  const pS = 1 - alive;
  const meanT = pS > 0 ? m1 / pS : NaN;
  return {
    metrics: {
      p_test: { value: testProbability(c, c.baseMod) },
      p_surrender: { value: pS },
      mean_turns: { value: meanT, variance: pS > 0 ? m2 / pS - meanT * meanT : NaN },
    },
    curves: { surrender_by_turn: curve },
  };
}
