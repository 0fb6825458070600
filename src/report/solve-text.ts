/**
 * Solve in words: a request's problem (`SolveProblem`) and an answer's next step (`SolveNext`),
 * phrased for a front end that names its controls its own way (`SolveNames`: the CLI's flags,
 * the workbench's sweep ends). The api returns the reasons and their data; this is the one place
 * that turns them into sentences, so both front ends say the same thing in their own words.
 */
// the modules themselves, not the api's face, so a page that runs solve in the browser can word it too
import { solveJson, type SolveNext, type SolveProblem, type SolveResult } from '../api/solve.js';
import type { Metric } from '../systems/types.js';
import { MSG } from '../scenario/messages.js';

/** The words a front end uses for solve's inputs: the range's ends, the resolution, the tolerance, the target. */
export interface SolveNames {
  from: string;
  to: string;
  /** Left out when the caller has no control for the resolution (the workbench). */
  step?: string;
  /** "a higher --to" (the default, from `to`), for a caller whose name of an end does not take "a higher" before it. */
  higher?: string;
  /** "a lower --from" (the default, from `from`). */
  lower?: string;
  /** An end set to a value: "--to 24" (the default: the end's name, then the value). */
  set?: (end: 'from' | 'to', value: number) => string;
  /** The tolerance (default `--within`). */
  within?: string;
  /** The target given as a value: "--target 1.5" (the default). */
  target?: (value: number) => string;
}

/** The command line's flags. */
export const CLI_SOLVE_NAMES: SolveNames = { from: '--from', to: '--to', step: '--step' };

/** The phrases built from `names` (each defaults to the CLI's form built from `from`/`to`). */
function phrases(names: SolveNames) {
  return {
    higher: names.higher ?? `a higher ${names.to}`,
    lower: names.lower ?? `a lower ${names.from}`,
    set: names.set ?? ((end: 'from' | 'to', value: number) => `${names[end]} ${value}`),
    within: names.within ?? '--within',
    target: names.target ?? ((value: number) => `--target ${value}`),
  };
}

/**
 * What is wrong with a solve request, in the caller's words: "need integers --from < --to (got
 * 9, 3)"; the workbench's: 'need integers the sweep's "from" < the sweep's "to" (got 9, 3)'.
 */
export function solveProblemText(p: SolveProblem, names: SolveNames = CLI_SOLVE_NAMES): string {
  const say = phrases(names);
  switch (p.code) {
    case 'invalid-value':
      return `${p.param} = ${p.value} is not valid: ${p.messages.join('; ')} (use ${names.from} and ${names.to})`;
    case 'unknown-metric':
      return MSG.unknownMetric(p.metric, p.guess, p.known);
    case 'not-produced':
      return `metric "${p.metric}" is not produced for this scenario`;
    case 'target-outside':
      return MSG.outsideProbability(say.target(p.target), p.metric);
    case 'target-range':
      return MSG.outsideRange(say.target(p.target), p.metric, p.range[0], p.range[1]);
    case 'within':
      return `${say.within} must be a number >= 0, got ${p.within}`;
    case 'not-a-number': {
      const options = p.options ? ` (${p.options.join(', ')})` : '';
      return `"${p.param}" is ${p.kind === 'enum' ? 'a choice between options' : 'a yes/no setting'}${options}, not a number: solve searches a number's range for where a metric crosses a target; compare its options with a sweep of ${p.param} instead (or with sensitivity)`;
    }
    case 'not-numeric':
      return `"${p.param}" is not a numeric setting of system ${p.system}${p.guess ? ` (did you mean "${p.guess}"?)` : ''}`;
    case 'no-variant':
      return `no variant "${p.name}" in ${p.scenario} (its variants: ${p.variants.join(', ')})`;
    case 'no-start':
      return `${p.param} has no value in this case to start a range from: give ${names.from} and ${names.to} (it allows ${p.min}..${p.max})`;
    case 'order':
      return `need ${p.int ? 'integers ' : ''}${names.from} < ${names.to} (got ${p.from}, ${p.to})`;
    case 'bounds':
      return `the range ${p.from}..${p.to} goes outside the values ${p.param} allows (${p.min}..${p.max})`;
    case 'step':
      return `${names.step ?? 'the resolution'} must be a ${p.int ? `whole number >= 1 (${p.param} is an integer setting)` : 'positive number'}, got ${p.step}`;
    case 'few-values':
      return `the range ${p.from}..${p.to} holds fewer than two multiples of ${p.step}, the resolution: give a wider range${names.step ? ` or a smaller ${names.step}` : ''}`;
    case 'max-trials':
      return `--max-trials ${p.maxTrials.toLocaleString('en-US')} is below the ${p.needed.toLocaleString('en-US')} trials the answer and its neighbour are run with (${(p.needed / p.trials).toLocaleString('en-US')} x --trials ${p.trials.toLocaleString('en-US')}): give at least ${p.needed.toLocaleString('en-US')}, or fewer --trials`;
  }
}

/**
 * An answer's next step in the caller's words, e.g. "p_defender_wins grows with wall.hp towards
 * the target: try a higher --to (wall.hp allows up to 100000), e.g. --to 19".
 */
export function solveNextText(r: SolveResult, next: SolveNext, names: SolveNames = CLI_SOLVE_NAMES): string {
  const say = phrases(names);
  const higher = `${say.higher} (${r.param} allows up to ${r.allowed.max})`;
  const lower = `${say.lower} (down to ${r.allowed.min})`;
  const way = r.increasing ? 'grows' : 'falls';
  switch (next.reason) {
    case 'bottom':
      return `${r.value} is the bottom of the range: the target is met from ${names.from} on; ${lower}, e.g. ${say.set('from', next.suggest)}, may find a smaller value`;
    case 'flat': {
      const ways = [next.widen === 'from' || next.widen === 'both' ? lower : '', next.widen === 'to' || next.widen === 'both' ? higher : ''].filter(Boolean);
      return ways.length > 0
        ? `${r.metric} hardly moves between ${r.param} = ${r.from} and ${r.to}: try ${ways.join(' or ')}${next.suggest !== undefined ? `, e.g. ${say.set(next.widen === 'to' ? 'to' : 'from', next.suggest)}` : ''}, or another setting`
        : `${r.metric} hardly moves over every value ${r.param} allows: another setting must move it`;
    }
    case 'out-of-reach':
      return `${r.metric} ${way} with ${r.param} but ${r.to} is the highest value it allows: the target is out of this setting's reach`;
    case 'towards':
      return `${r.metric} ${way} with ${r.param} towards the target: try ${higher}, e.g. ${say.set('to', next.suggest)}`;
  }
}

/** The next step as the JSON says it: which end to widen, the value to try, and the advice in the caller's words. */
export interface SolveNextJson {
  widen: SolveNext['widen'];
  suggest?: number;
  text: string;
}

export function solveNextJson(r: SolveResult, next: SolveNext, names: SolveNames = CLI_SOLVE_NAMES): SolveNextJson {
  return { widen: next.widen, ...('suggest' in next && next.suggest !== undefined ? { suggest: next.suggest } : {}), text: solveNextText(r, next, names) };
}

/** The trials an answer's estimate was run with (its evaluation's; the metric's `n` for one not among them). */
export function solveTrialsOf(r: SolveResult, m: Metric): number {
  return r.evaluations.find((e) => e.metric === m)?.trials ?? m.n;
}

/**
 * One answer as JSON (the CLI's `solve --json`, the workbench's sweep): `solveJson`'s (`value:
 * null` when there is none), with the next step in the caller's words (`SolveNextJson`).
 */
export function solveJsonIn(r: SolveResult, names: SolveNames = CLI_SOLVE_NAMES): Omit<ReturnType<typeof solveJson>, 'next'> & { next?: SolveNextJson } {
  const j = solveJson(r);
  return r.next ? { ...j, next: solveNextJson(r, r.next, names) } : (j as Omit<typeof j, 'next'>);
}
