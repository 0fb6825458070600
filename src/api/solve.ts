/** The solve verb: the smallest integer value of a parameter whose metric reaches a target. */
import { splitPath, validateCase, valueAtPath, type ValidScenario } from '../scenario/validate.js';
import { COMMON_KEYS, scenarioSchemaOf, schemaAt } from '../scenario/schema.js';
import type { Metric } from '../systems/types.js';
import { runGroups, type GroupJob } from '../engine/run.js';
import { InlineExecutor, type Executor } from '../engine/executor.js';

export interface SolveOptions {
  param: string;
  metric: string;
  target: number;
  from?: number;
  to?: number;
  trials?: number;
  seed?: string | number;
  executor?: Executor;
  signal?: AbortSignal;
  /** Trials multiplier for the final look at the answer and its neighbour. */
  refine?: number;
  onStep?: (value: number, m: Metric) => void;
}

export interface SolveResult {
  param: string;
  metric: string;
  target: number;
  from: number;
  to: number;
  increasing: boolean;
  reachable: boolean;
  /** The answer (undefined when the target is not reachable in [from, to]). */
  value?: number;
  at?: Metric;
  /** The neighbour just before the answer (value - 1), when it is in range. */
  neighbour?: { value: number; metric: Metric };
  /** Every evaluation made, in order. */
  evaluations: { value: number; trials: number; metric: Metric }[];
  ends: { from: Metric; to: Metric };
}

/** A user-facing problem with a solve request (the CLI prints it and exits 2). */
export class SolveInputError extends Error {}

/**
 * Find the smallest integer value v in [from, to] of `param` whose `metric` reaches `target`
 * (≥ target when the metric grows with v, ≤ when it falls), assuming the metric is monotone.
 * Every candidate rolls the same dice (one stream for all values: common random numbers), so
 * the comparison between neighbours is as tight as it can be; the answer and its neighbour are
 * then re-run with `refine` times the trials, and the answer is moved if the closer look
 * disagrees.
 */
export async function solveScenario(v: ValidScenario, o: SolveOptions): Promise<SolveResult> {
  const sys = v.system;
  if (!sys.metricOrder.includes(o.metric)) {
    throw new SolveInputError(`unknown metric "${o.metric}" for system ${sys.id} (one of: ${sys.metricOrder.join(', ')})`);
  }
  const node = schemaAt(scenarioSchemaOf(sys), splitPath(o.param));
  const kind = node ? (node as unknown as { _zod: { def: { type: string } } })._zod.def.type : undefined;
  if (COMMON_KEYS.has(splitPath(o.param)[0]) || kind !== 'number') {
    throw new SolveInputError(`"${o.param}" is not a numeric setting of system ${sys.id}`);
  }
  const baseCase = validateCase(v, {});
  const base = baseCase.ok ? valueAtPath(baseCase.scenario, o.param) : undefined;
  const from = o.from ?? 0;
  const to = o.to ?? Math.max(10, 2 * (typeof base === 'number' ? base : 0));
  if (!Number.isInteger(from) || !Number.isInteger(to) || from >= to) throw new SolveInputError(`need integers --from < --to (got ${from}, ${to})`);
  const trials = o.trials ?? v.trials;
  const seed = o.seed ?? v.seed;
  const exec = o.executor ?? new InlineExecutor();
  const evaluations: SolveResult['evaluations'] = [];

  const evaluate = async (value: number, n: number): Promise<Metric> => {
    const c = validateCase(v, { [o.param]: value });
    if (!c.ok) throw new SolveInputError(`${o.param} = ${value} is not valid: ${c.messages.join('; ')} (use --from/--to)`);
    const compiled = sys.compile(c.scenario);
    const job: GroupJob = {
      stream: 'solve', // the same dice for every candidate value
      system: sys.id,
      compiled: [compiled],
      accLengths: [sys.kernel.accLength(compiled)],
      pairedSlots: [[]],
    };
    const [out] = await runGroups([job], { seed, trials: n, chunkTrials: sys.chunkTrials, signal: o.signal }, exec);
    const m = sys.summarize(compiled, out.merged).metrics[o.metric];
    if (!m) throw new SolveInputError(`metric "${o.metric}" is not produced for this scenario`);
    evaluations.push({ value, trials: n, metric: m });
    o.onStep?.(value, m);
    return m;
  };

  const fFrom = await evaluate(from, trials);
  const fTo = await evaluate(to, trials);
  const increasing = fTo.value >= fFrom.value;
  const meets = (m: Metric) => (increasing ? m.value >= o.target : m.value <= o.target);
  const result: SolveResult = { param: o.param, metric: o.metric, target: o.target, from, to, increasing, reachable: false, evaluations, ends: { from: fFrom, to: fTo } };
  if (!meets(fTo)) return result;
  result.reachable = true;
  let lo = from;
  let hi = to;
  const seen = new Map<number, Metric>([
    [from, fFrom],
    [to, fTo],
  ]);
  if (meets(fFrom)) hi = from;
  else {
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const m = await evaluate(mid, trials);
      seen.set(mid, m);
      if (meets(m)) hi = mid;
      else lo = mid;
    }
  }
  // A closer look at the answer and its neighbour; move if it disagrees (at most a few steps).
  const big = trials * (o.refine ?? 4);
  let answer = hi;
  let at = await evaluate(answer, big);
  for (let guard = 0; guard < 8 && !meets(at) && answer < to; guard++) {
    answer++;
    at = await evaluate(answer, big);
  }
  let neighbour = answer > from ? await evaluate(answer - 1, big) : undefined;
  for (let guard = 0; guard < 8 && neighbour && meets(neighbour) && answer > from; guard++) {
    answer--;
    at = neighbour;
    neighbour = answer > from ? await evaluate(answer - 1, big) : undefined;
  }
  result.reachable = meets(at);
  result.value = answer;
  result.at = at;
  if (neighbour) result.neighbour = { value: answer - 1, metric: neighbour };
  return result;
}
