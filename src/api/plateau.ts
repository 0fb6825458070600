/**
 * A plateau around an answer: the values of one parameter, next to the answer's, whose results
 * are identical to the answer's. tune and solve run every candidate on the same dice (common
 * random numbers), so a value that changes nothing in the game gives bit-identical estimates;
 * a run of such values says the metric does not depend on the parameter there, and the answer's
 * own value is then one of many equally good ones. Only evaluations already made are used.
 *
 * Equal intervals are not enough (neighbouring values of a parameter that matters overlap
 * too): the test is exact equality of every estimate and interval at the same trials.
 */

/** One evaluation: the parameter's value, the trials it ran, and its results as a comparable key. */
export interface PlateauPoint {
  value: number;
  trials: number;
  /** The estimates (values and intervals), e.g. JSON of them: equal keys, identical results. */
  key: string;
}

/** The values from `from` to `to` (the answer among them) give results identical to the answer's. */
export interface Plateau {
  param: string;
  from: number;
  to: number;
  /** The values evaluated in [from, to] (at least two: the answer and another). */
  tried: number;
  /** The grid's resolution when it is not 1 (a decimal setting solved to 0.01): [from, to] holds (to - from) / step + 1 values. */
  step?: number;
  /** The metrics compared. */
  metrics: string[];
}

/**
 * The plateau of `param` around `at`, from evaluations of the line through the answer (the other
 * parameters at the answer's values): the evaluated values next to `at`, outwards in both
 * directions, are in it while each agrees with `at` at every trial count both were run with
 * (and shares one at least). Undefined when no other value agrees.
 */
export function plateauAround(param: string, metrics: string[], at: number, points: readonly PlateauPoint[], step = 1): Plateau | undefined {
  const byValue = new Map<number, Map<number, string>>();
  for (const p of points) {
    const m = byValue.get(p.value) ?? new Map<number, string>();
    m.set(p.trials, p.key);
    byValue.set(p.value, m);
  }
  const ref = byValue.get(at);
  if (!ref) return undefined;
  const same = (value: number) => {
    let shared = 0;
    for (const [n, key] of byValue.get(value)!) {
      const r = ref.get(n);
      if (r === undefined) continue;
      if (r !== key) return false;
      shared++;
    }
    return shared > 0;
  };
  const values = [...byValue.keys()].sort((a, b) => a - b);
  const i = values.indexOf(at);
  let lo = i;
  let hi = i;
  while (lo > 0 && same(values[lo - 1])) lo--;
  while (hi < values.length - 1 && same(values[hi + 1])) hi++;
  if (lo === hi) return undefined;
  return { param, from: values[lo], to: values[hi], tried: hi - lo + 1, metrics, ...(step !== 1 ? { step } : {}) };
}

/** "wall.dc: any value from 21 to 40 gives the same p_attacker_wins (the metric does not depend on it there: the 10 values tried give identical results on the same dice)". */
export function plateauText(p: Plateau): string {
  const what = p.metrics.length === 1 ? p.metrics[0] : `${p.metrics.slice(0, -1).join(', ')} and ${p.metrics[p.metrics.length - 1]}`;
  const does = p.metrics.length === 1 ? 'the metric does' : 'these metrics do';
  const tried = p.tried !== Math.round((p.to - p.from) / (p.step ?? 1)) + 1 ? `the ${p.tried} values tried` : p.tried === 2 ? 'both values' : `all ${p.tried} values`;
  return `${p.param}: any value from ${p.from} to ${p.to} gives the same ${what} (${does} not depend on it there: ${tried} give identical results on the same dice)`;
}
