/**
 * Tune in words where the front ends name their own controls: a refused request (`TuneProblem`,
 * in the CLI's flags or the page's fields, `TuneNames`) and an answer at the edge of its range
 * (`TuneEdge`, with the `--range` that widens it). The api returns the problem and its data; the
 * sentences are made here.
 */
import type { TuneEdge, TuneParam, TuneProblem, TuneTarget } from '../api/tune.js';

/** The words tune's messages use for its inputs. */
export interface TuneNames {
  /** The settings searched: `--params`. */
  params: string;
  /** Asking for a target: `--target "<metric> in [lo, hi]"`. */
  target: string;
  /** A setting's given range: `--range wall.dc=1..20`. */
  range: (param: string, lo: number, hi: number) => string;
  /** Asking for a setting's range: `--range wall.dc=LO..HI`. */
  askRange: (param: string) => string;
  /** What a range's ends must be: `integers LO < HI`. */
  order: string;
  /** Where a range must lie: `the schema's bounds 1..40`. */
  bounds: (param: string, min: number, max: number) => string;
  /** The ranges given: `--range`. */
  ranges: string;
  /** The budget given: `--budget 100`. */
  budget: (budget: number) => string;
  /** A target whose ends are the wrong way round: `target "p_test in [0.6, 0.4]": need lo < hi`. */
  targetOrder: (t: TuneTarget) => string;
}

/** The command line's flags. */
export const CLI_TUNE_NAMES: TuneNames = {
  params: '--params',
  target: '--target "<metric> in [lo, hi]"',
  range: (p, lo, hi) => `--range ${p}=${lo}..${hi}`,
  askRange: (p) => `--range ${p}=LO..HI`,
  order: 'integers LO < HI',
  bounds: (_p, min, max) => `the schema's bounds ${min}..${max}`,
  ranges: '--range',
  budget: (b) => `--budget ${b}`,
  targetOrder: (t) => `target "${t.metric} in [${t.lo}, ${t.hi}]": need lo < hi`,
};

/** What is wrong with a tune request, in the caller's words: "--range wall.hp=-5..10 must be inside the schema's bounds 0..100000". */
export function tuneProblemText(p: TuneProblem, names: TuneNames = CLI_TUNE_NAMES): string {
  switch (p.code) {
    case 'params-count':
      return `tune takes one to three ${names.params} (got ${p.count})`;
    case 'params-twice':
      return `a parameter is listed twice in ${names.params}`;
    case 'no-target':
      return `give at least one ${names.target}`;
    case 'target-order':
      return names.targetOrder(p.target);
    case 'range-order':
      return `${names.range(p.param, p.lo, p.hi)} must be ${names.order}`;
    case 'range-bounds':
      return `${names.range(p.param, p.lo, p.hi)} must be inside ${names.bounds(p.param, p.min, p.max)}`;
    case 'no-start':
      return `"${p.param}" allows ${p.min}..${p.max} and has no value in this case to search around: give ${names.askRange(p.param)}`;
    case 'range-stray':
      return `${names.ranges} names "${p.param}", which is not in ${names.params}`;
    case 'budget':
      return `${names.budget(p.budget)} leaves no room to search: give at least ${p.least} trials`;
  }
}

/** An edge in words, with the `--range` that widens it: "wall.hp = 60 is the top of the range searched (15..60): ...". */
export function edgeText(e: TuneEdge, p: Pick<TuneParam, 'lo' | 'hi'>): string {
  const where = `${e.param} = ${e.value} is the ${e.end === 'hi' ? 'top' : 'bottom'} of the range searched (${p.lo}..${p.hi})`;
  return e.bound || !e.range
    ? `${where} and the ${e.end === 'hi' ? 'highest' : 'lowest'} value ${e.param} allows: nothing beyond it to try`
    : `${where}: a better value may lie beyond it; widen the search with --range ${e.param}=${e.range[0]}..${e.range[1]}`;
}
