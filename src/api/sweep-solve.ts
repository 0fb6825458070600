/**
 * Sweep-then-solve: a workbench sweep of one setting with a target is followed by solve, which
 * finds where in the swept range the metric reaches the target. Which sweeps are followed, and
 * on what case, is decided here; the front end phrases the outcome and sends it.
 */
import { tunedScenario, type SweepAxis } from './live.js';
import { SolveInputError, solveScenario, type SolveOptions, type SolveProblem, type SolveResult } from './solve.js';
import type { ValidScenario } from '../scenario/validate.js';

/** The sweep as requested: the scenario, the tuned values around it, its axes, the metric and target. */
export interface SweepSolveRequest {
  v: ValidScenario;
  variant?: string;
  /** The tuned values (the swept path's own value is the axis', not this). */
  values: Record<string, unknown>;
  axes: readonly SweepAxis[];
  metric: string;
  target?: number;
}

/**
 * What followed a sweep: `solved` (solve's answer), `one-value` (one value swept: nothing to
 * solve between), `input` (solve refused the request: what is wrong, for the front end to word),
 * `invalid` (the tuned case is not valid: the validator's messages).
 */
export type SweepSolve =
  | { kind: 'solved'; result: SolveResult }
  | { kind: 'one-value'; path: string; value: number }
  | { kind: 'input'; problem: SolveProblem }
  | { kind: 'invalid'; messages: string[] };

export type SweepSolveOptions = Pick<SolveOptions, 'trials' | 'seed' | 'executor' | 'signal'> & {
  /** Said just before solve's first trial. */
  onSolving?: () => void;
};

/** The ends of a sweep axis (solve searches between them). */
const lowest = (a: SweepAxis) => ('values' in a ? Math.min(...a.values) : a.from);
const highest = (a: SweepAxis) => ('values' in a ? Math.max(...a.values) : a.to);

/** Solve after a sweep with a target over one setting; undefined when none follows (no target, or two axes). */
export async function solveAfterSweep(req: SweepSolveRequest, o: SweepSolveOptions = {}): Promise<SweepSolve | undefined> {
  const { v, axes, metric, target } = req;
  if (target === undefined || axes.length !== 1) return undefined;
  const axis = axes[0];
  if (lowest(axis) === highest(axis)) return { kind: 'one-value', path: axis.path, value: lowest(axis) };
  const tv = tunedScenario(v, { variant: req.variant, values: Object.fromEntries(Object.entries(req.values).filter(([p]) => p !== axis.path)) });
  if (!tv.ok) return { kind: 'invalid', messages: tv.issues.map((i) => i.message) };
  try {
    o.onSolving?.();
    const result = await solveScenario(tv.value, {
      param: axis.path,
      metric,
      target,
      // the swept range as it is (a chance's 0.1..0.9 too), at the setting's own resolution
      from: lowest(axis),
      to: highest(axis),
      trials: o.trials,
      seed: o.seed,
      executor: o.executor,
      signal: o.signal,
    });
    return { kind: 'solved', result };
  } catch (e) {
    if (e instanceof SolveInputError) return { kind: 'input', problem: e.problem };
    throw e;
  }
}
