/** Which metrics a run's Answer shows, and in what order: the one rule for every front end and report. */

/**
 * What the Answer shows: the first outcome partition the run produces (every trial ends in
 * exactly one of these, so they account for all of them), in the system's order, then the other
 * headline metrics. `produced` says whether the run has a value of a metric. A run that produces
 * none of them shows the first three of `metrics` (its metrics in order) it produces, so an
 * Answer is never empty. A scenario's own `headline:` (`chosen`) replaces all of this: its
 * metrics, in its order (validation made sure the scenario produces each), the question first;
 * when it names a way of ending of a partition the run produces, that partition stays whole and
 * grouped where the first of them stands (the ones it names in its order, then the others in the
 * system's), so "how each trial ends" still sums to 1: `lead` before the group, `also` after it.
 * The one rule for the report's Answer, `run`'s and `merge`'s printed answer, the index's answer
 * cell and the workbench's cards (the server sends each case's columns, `answer`).
 */
export function answerMetrics(
  headline: readonly string[],
  outcomes: readonly (readonly string[])[],
  produced: (m: string) => boolean,
  metrics: readonly string[] = [],
  chosen?: readonly string[],
): AnswerColumns {
  if (chosen && chosen.length > 0) {
    const part = outcomes.find((o) => o.every(produced) && o.some((m) => chosen.includes(m)));
    if (!part) return { lead: [], outcome: [], also: [...chosen] };
    const at = chosen.findIndex((m) => part.includes(m));
    const named = chosen.filter((m) => part.includes(m));
    return {
      lead: chosen.slice(0, at),
      outcome: [...named, ...part.filter((m) => !named.includes(m))],
      also: chosen.slice(at).filter((m) => !part.includes(m)),
    };
  }
  const outcome = [...(outcomes.find((o) => o.every(produced)) ?? [])];
  const also = headline.filter((m) => produced(m) && !outcome.includes(m));
  return { lead: [], outcome, also: outcome.length + also.length > 0 ? also : metrics.filter(produced).slice(0, 3) };
}

/** The Answer's columns (answerMetrics): `lead`, then the outcome partition (`outcome`, grouped: they sum to 1), then `also`. */
export interface AnswerColumns {
  lead: string[];
  outcome: string[];
  also: string[];
}

/** Every column of an Answer, in its order. */
export function answerOrder(cols: AnswerColumns): string[] {
  return [...cols.lead, ...cols.outcome, ...cols.also];
}
