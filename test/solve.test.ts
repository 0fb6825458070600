/**
 * solve (src/api/solve.ts): answers that can be trusted. The surrender test has exact answers
 * here: one test succeeds when roll - 1 (artillery) - floor(steps / 5) < L on a d6 (or <= L
 * with `comparison: le`), so p_test = min(1, (L + k) / 6) (lt) or (L + 1 + k) / 6 (le), k =
 * floor(steps / 5), and the smallest steps_inside with p_test >= 0.9 is 5 x the smallest k that
 * makes it 1.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runScenario, solveAfterSweep, solveJson, solvePlan, solveScenario, solveSweep, SolveInputError, validateText, type SolveResult } from '../src/api.js';
import { CancelledError } from '../src/engine/run.js';
import { solveNextJson, solveNextText, solveProblemText } from '../src/report/solve-text.js';
import { caseLine, describe as describeAnswer, solveSummary } from '../src/cli/commands/solve.js';
import { estimateText } from '../src/report/answer-text.js';
import { YieldingExecutor } from './helpers.js';

/** What a refused request says in the CLI's words (the api throws the problem as data). */
async function refusal(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    if (e instanceof SolveInputError) return solveProblemText(e.problem);
    throw e;
  }
  throw new Error('the request was not refused');
}

const SCENARIO = `name: solve-me
system: surrender
seed: solve-tests
trials: 2000
structure: { surrender_level: 3 }
besieger: { combat_units: 4, artillery: 1 }
besieged: { steps_inside: 8 }
turns: 4
sweep:
  structure.surrender_level: [3, 4]
variants:
  - name: lt
  - name: le
    set: { rules.comparison: le }
`;

function valid(text = SCENARIO) {
  const v = validateText('solve.yaml', text);
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return v.value;
}

const ASK = { param: 'besieged.steps_inside', metric: 'p_test', target: 0.9, from: 0, to: 40 };

/** The answer's interval on the target's side, its neighbour's on the other. */
function separates(r: SolveResult): boolean {
  return r.at!.ci_low >= r.target && (r.neighbour === undefined || r.neighbour.metric.ci_high < r.target);
}

describe('solve', () => {
  it('solves on the baseline at the scenario values, resolved: the intervals separate the target', async () => {
    const r = await solveScenario(valid(), ASK);
    expect(r).toMatchObject({ variant: 'lt', point: {}, reachable: true, resolved: true, value: 15 });
    expect(r.neighbour!.value).toBe(14);
    expect(separates(r)).toBe(true);
  });

  it('--variant solves on the named variant', async () => {
    const r = await solveScenario(valid(), { ...ASK, variant: 'le' });
    expect(r).toMatchObject({ variant: 'le', resolved: true, value: 10 });
    await expect(solveScenario(valid(), { ...ASK, variant: 'lenient' })).rejects.toMatchObject({ problem: { code: 'no-variant', name: 'lenient', scenario: 'solve-me', variants: ['lt', 'le'] } });
    expect(await refusal(() => solveScenario(valid(), { ...ASK, variant: 'lenient' }))).toBe('no variant "lenient" in solve-me (its variants: lt, le)');
  });

  it("rolls run's dice: at the file's own setting its value is run's, at each sweep point", async () => {
    const run = await runScenario(valid());
    for (const [i, level] of [3, 4].entries()) {
      const r = await solveScenario(valid(), { ...ASK, from: 8, to: 40, point: { 'structure.surrender_level': level } });
      const at8 = r.evaluations.find((e) => e.value === 8 && e.phase === 'ends')!;
      const c = run.cases.find((x) => x.variant === 'lt' && x.params['structure.surrender_level'] === level)!;
      expect(at8.trials).toBe(c.trials);
      expect(at8.metric.value, `point ${i}`).toBe(c.metrics.p_test.value);
    }
  });

  it('one answer per point of the sweep over the other parameters', async () => {
    const r = await solveSweep(valid(), { ...ASK, variant: 'le' });
    expect(r.params).toEqual(['structure.surrender_level']);
    expect(r.points.map((p) => [p.point, p.value, p.resolved])).toEqual([
      [{ 'structure.surrender_level': 3 }, 10, true],
      [{ 'structure.surrender_level': 4 }, 5, true],
    ]);
    expect(r.resolved && r.reachable).toBe(true);
    // without the sweep: once, at the scenario's own values
    const once = await solveSweep(valid(), { ...ASK, sweep: false });
    expect(once.points.map((p) => [p.point, p.value])).toEqual([[{}, 15]]);
  });

  it('checks the request and plans the points once, says the plan before any trial, then runs it', async () => {
    const v = valid();
    const compile = vi.spyOn(v.system, 'compile');
    try {
      const seen: string[] = [];
      const r = await solveSweep(v, {
        ...ASK,
        onPlan: (plan) => seen.push(`plan ${JSON.stringify(plan)}`),
        onStep: (value) => seen.push(`step ${value}`),
      });
      // one compile for the request's check, then one per candidate evaluated: nothing per point again
      const evaluations = r.points.reduce((n, p) => n + p.evaluations.length, 0);
      expect(r.points).toHaveLength(2);
      expect(compile.mock.calls.length).toBe(1 + evaluations);
      expect(seen[0]).toBe(`plan ${JSON.stringify(solvePlan(v, ASK))}`);
      expect(seen.filter((x) => x.startsWith('plan'))).toHaveLength(1);
    } finally {
      compile.mockRestore();
    }
  });

  it('the swept parameter itself is what is searched: its axis is not a sweep point', async () => {
    const r = await solveSweep(valid(SCENARIO.replace('structure.surrender_level: [3, 4]', 'besieged.steps_inside: [0, 20]')), ASK);
    expect(r.params).toEqual([]);
    expect(r.points.map((p) => p.value)).toEqual([15]);
  });

  it('an answer the intervals cannot separate from its neighbour is flagged unresolved, not returned as an answer', async () => {
    // p_test is exactly 1 from 15 steps on: no sample proves p >= 1, so at any cap the interval
    // of the answer still holds the target
    const r = await solveScenario(valid(), { ...ASK, target: 1, maxTrials: 20_000 });
    expect(r.value).toBe(15);
    expect(r.reachable).toBe(true);
    expect(r.resolved).toBe(false);
    expect(r.at!.ci_low).toBeLessThan(1);
    // it added trials up to the cap first (4x the trials, then more, chunk by chunk)
    expect(r.at!.n).toBe(20_000);
    expect(r.max_trials).toBe(20_000);
  });

  it('--within: the target less the tolerance counts as reached, so an answer practically on target is resolved', async () => {
    // p(15 steps) = 1 exactly: no sample proves p >= 1 (unresolved above), but within 0.01 it is
    // clearly >= 0.99 and p(14) = 5/6 clearly short of it
    const r = await solveScenario(valid(), { ...ASK, target: 1, maxTrials: 20_000, within: 0.01 });
    expect(r).toMatchObject({ value: 15, reachable: true, resolved: true, within: 0.01 });
    expect(r.at!.ci_low).toBeGreaterThanOrEqual(0.99);
    expect(r.neighbour!.metric.ci_high).toBeLessThan(0.99);
    // the tolerance moves the answer: 5/6 is within 0.07 of 0.9, so 10 steps reach it
    const near = await solveScenario(valid(), { ...ASK, within: 0.07 });
    expect(near).toMatchObject({ value: 10, resolved: true });
    expect((await solveScenario(valid(), ASK)).within).toBe(0);
    expect(await refusal(() => solvePlan(valid(), { ...ASK, within: -0.1 }))).toBe('--within must be a number >= 0, got -0.1');
  });

  it('refuses a --max-trials below the closer look\'s 4 x --trials, which it could not keep (the new-user audit: 40,000 was run as 80,000 and called the cap)', async () => {
    expect(await refusal(() => solvePlan(valid(), { ...ASK, trials: 20_000, maxTrials: 40_000 }))).toBe(
      '--max-trials 40,000 is below the 80,000 trials the answer and its neighbour are run with (4 x --trials 20,000): give at least 80,000, or fewer --trials',
    );
    // the scenario's own trials (2,000) when --trials is not given; exactly 4 x is a cap it can keep
    expect(await refusal(() => solvePlan(valid(), { ...ASK, maxTrials: 7999 }))).toContain('below the 8,000 trials');
    expect(solvePlan(valid(), { ...ASK, maxTrials: 8000 }).points.length).toBeGreaterThan(0);
  });

  it('adds trials on the same dice until the intervals separate, deterministically', async () => {
    // A target between p(10 steps) = 5/6 and p(15) = 1 that needs more than the 4x look to settle: the
    // neighbour's interval must shrink below 0.85.
    const ask = { ...ASK, target: 0.85, trials: 100 };
    const a = await solveScenario(valid(), ask);
    const b = await solveScenario(valid(), ask);
    expect(a).toMatchObject({ value: 15, resolved: true });
    expect(separates(a)).toBe(true);
    expect(a.neighbour!.metric.n).toBeGreaterThan(400); // beyond the 4x look
    expect(a.evaluations.filter((e) => e.phase === 'resolve').length).toBeGreaterThan(0);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    // with a cap at the 4x look it cannot (the estimates at 10-14 steps sit on the target): said so
    const capped = await solveScenario(valid(), { ...ask, maxTrials: 400 });
    expect(capped.resolved).toBe(false);
    expect(separates(capped)).toBe(false);
  });

  it('"not reachable" is resolved only when the top of the range is clearly short of the target', async () => {
    const r = await solveScenario(valid(), { ...ASK, to: 12 }); // p(12) = 5/6
    expect(r).toMatchObject({ reachable: false, resolved: true });
    expect(r.value).toBeUndefined();
    expect(r.ends.to.ci_high).toBeLessThan(0.9);
    // which end came closest, with its estimate and interval, and the next step: the range's span again past --to
    expect(r.closest).toEqual({ end: 'to', value: 12, metric: r.ends.to });
    expect(r.next).toEqual({ widen: 'to', suggest: 24, reason: 'towards' });
    expect(solveNextJson(r, r.next!)).toEqual({ widen: 'to', suggest: 24, text: 'p_test grows with besieged.steps_inside towards the target: try a higher --to (besieged.steps_inside allows up to 1000), e.g. --to 24' });
    expect(solveJson(r)).toMatchObject({ value: null, closest: { end: 'to', value: 12 }, next: { widen: 'to', suggest: 24 } });
    // in the caller's words (the workbench names its sweep's ends)
    expect(solveNextText(r, r.next!, { from: 'the start', to: 'the end' })).toBe(
      'p_test grows with besieged.steps_inside towards the target: try a higher the end (besieged.steps_inside allows up to 1000), e.g. the end 24',
    );
    const close = await solveScenario(valid(), { ...ASK, to: 12, target: 0.86, trials: 100, maxTrials: 400 });
    expect(close).toMatchObject({ reachable: false, resolved: false });
    expect(close.ends.to.ci_high).toBeGreaterThan(0.86);
  });

  it('a metric the setting does not move: the ends hardly differ, so either end can be widened, or another setting', async () => {
    // p_test is one test's chance: the number of turns does not change it (the same dice: identical ends)
    const both = await solveScenario(valid(), { ...ASK, param: 'turns', from: 2, to: 8 });
    expect(both).toMatchObject({ reachable: false, resolved: true, closest: { end: 'to', value: 8 } });
    expect(both.ends.from).toEqual(both.ends.to);
    expect(both.next).toEqual({ widen: 'both', reason: 'flat' });
    expect(solveNextJson(both, both.next!)).toEqual({ widen: 'both', text: 'p_test hardly moves between turns = 2 and 8: try a lower --from (down to 1) or a higher --to (turns allows up to 10000), or another setting' });
    // from the lowest value turns allows: only --to can widen
    const up = await solveScenario(valid(), { ...ASK, param: 'turns', from: 1, to: 8 });
    expect(up.next).toEqual({ widen: 'to', suggest: 15, reason: 'flat' });
    expect(solveNextText(up, up.next!)).toBe('p_test hardly moves between turns = 1 and 8: try a higher --to (turns allows up to 10000), e.g. --to 15, or another setting');
    // an answer has neither
    const answered = await solveScenario(valid(), ASK);
    expect(answered.closest).toBeUndefined();
    expect(answered.next).toBeUndefined();
  });

  it('an answer at the bottom of a range that could start lower says the value that first reaches the target may lie below: next widens --from', async () => {
    // p_test >= 0.9 from 15 steps on: searched from 16, the answer is 16, the bottom of the range
    const r = await solveScenario(valid(), { ...ASK, from: 16, to: 40 });
    expect(r).toMatchObject({ value: 16, reachable: true, resolved: true });
    expect(r.neighbour).toBeUndefined();
    expect(r.closest).toBeUndefined();
    expect(r.next).toEqual({ widen: 'from', suggest: 0, reason: 'bottom' });
    expect(solveNextJson(r, r.next!)).toEqual({ widen: 'from', suggest: 0, text: '16 is the bottom of the range: the target is met from --from on; a lower --from (down to 0), e.g. --from 0, may find a smaller value' });
    expect(solveJson(r).next).toEqual(r.next);
    // from the lowest value the setting allows there is nothing below: no next
    const all = await solveScenario(valid(), { ...ASK, metric: 'p_test', target: 0.1 });
    expect(all).toMatchObject({ value: 0, from: 0 });
    expect(all.next).toBeUndefined();
  });

  it('is cancellable, reports each step, and writes nothing to the console', async () => {
    const writes = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write'), vi.spyOn(console, 'log'), vi.spyOn(console, 'error')];
    try {
      const steps: string[] = [];
      await solveScenario(valid(), { ...ASK, onStep: (value, m, info) => steps.push(`${info.phase} ${value} ${info.trials} ${m.value.toFixed(3)}`) });
      expect(steps[0]).toMatch(/^ends 0 2000 0\.\d{3}$/);
      // p = 1/2: within 4.5 standard errors (0.011 at 2000 trials) on the fixed seed's dice
      expect(Math.abs(Number(steps[0].split(' ')[3]) - 0.5)).toBeLessThan(4.5 * Math.sqrt(0.25 / 2000));
      expect(steps.some((s) => s.startsWith('bisect '))).toBe(true);
      expect(steps.some((s) => s.startsWith('resolve 15 8000 1.000'))).toBe(true);
      for (const w of writes) expect(w).not.toHaveBeenCalled();
    } finally {
      for (const w of writes) w.mockRestore();
    }
    const ctl = new AbortController();
    await expect(solveScenario(valid(), { ...ASK, signal: ctl.signal, onStep: () => ctl.abort() })).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('solve: the default range starts from the value the case uses', () => {
  const PALISADE = readFileSync(path.resolve(import.meta.dirname, 'fixtures/palisade.yaml'), 'utf8');
  const ask = { metric: 'p_defender_wins', target: 0.3 };

  it("is 0 (or the schema's lowest value) to twice the rules' value for a setting the file leaves out, at least 10", () => {
    const v = valid(PALISADE);
    expect(solvePlan(v, { ...ask, param: 'wall.hp' }).points).toEqual([{ point: {}, from: 0, to: 30, step: 1 }]);
    expect(solvePlan(v, { ...ask, param: 'wall.dc' }).points).toEqual([{ point: {}, from: 1, to: 20, step: 1 }]); // DC allows 1..40
    expect(solvePlan(v, { ...ask, param: 'wall.dc', from: 5, to: 12 }).points).toEqual([{ point: {}, from: 5, to: 12, step: 1 }]);
    // a written value by the same rule; the top kept inside the schema (a count allows 0..200)
    expect(solvePlan(v, { ...ask, param: 'attacker.infantry' }).points).toEqual([{ point: {}, from: 0, to: 20, step: 1 }]);
  });

  it('refuses a range outside the schema, before anything runs', async () => {
    const v = valid(PALISADE);
    expect(await refusal(() => solvePlan(v, { ...ask, param: 'wall.dc', from: 0, to: 20 }))).toBe('the range 0..20 goes outside the values wall.dc allows (1..40)');
    expect(() => solvePlan(v, { ...ask, param: 'wall.dc', from: 5, to: 41 })).toThrow(SolveInputError);
  });

  it('solves a setting the file leaves out over that range (wall.dc from its lowest allowed value, 1, not 0)', async () => {
    const r = await solveScenario(valid(PALISADE), { ...ask, param: 'wall.dc', maxTrials: 3200 });
    expect(r).toMatchObject({ from: 1, to: 20, reachable: true });
    expect(r.value).toBeGreaterThan(1);
  });
});

describe("solve: a refused request in each front end's words", () => {
  const PAGE = { from: 'the sweep\'s "from"', to: 'the sweep\'s "to"', higher: 'a higher "to" for the sweep', lower: 'a lower "from" for the sweep', set: (end: 'from' | 'to', value: number) => `"${end}" ${value}` };

  it("names the CLI's flags, or the page's controls, and the data the api gave", () => {
    expect(solveProblemText({ code: 'order', int: true, from: 9, to: 3 })).toBe('need integers --from < --to (got 9, 3)');
    expect(solveProblemText({ code: 'order', int: false, from: 0.5, to: 0.2 }, PAGE)).toBe('need the sweep\'s "from" < the sweep\'s "to" (got 0.5, 0.2)');
    expect(solveProblemText({ code: 'few-values', from: 0.271, to: 0.279, step: 0.01 })).toBe(
      'the range 0.271..0.279 holds fewer than two multiples of 0.01, the resolution: give a wider range or a smaller --step',
    );
    expect(solveProblemText({ code: 'few-values', from: 0.271, to: 0.279, step: 0.01 }, PAGE)).toBe('the range 0.271..0.279 holds fewer than two multiples of 0.01, the resolution: give a wider range');
    expect(solveProblemText({ code: 'step', param: 'wall.hp', int: true, step: 0.5 })).toBe('--step must be a whole number >= 1 (wall.hp is an integer setting), got 0.5');
    expect(solveProblemText({ code: 'step', param: 'x.p', int: false, step: 0 }, PAGE)).toBe('the resolution must be a positive number, got 0');
    expect(solveProblemText({ code: 'no-start', param: 'wall.hp', min: 0, max: 100000 }, PAGE)).toBe(
      'wall.hp has no value in this case to start a range from: give the sweep\'s "from" and the sweep\'s "to" (it allows 0..100000)',
    );
    expect(solveProblemText({ code: 'invalid-value', param: 'a.b', value: 3, messages: ['x', 'y'] })).toBe('a.b = 3 is not valid: x; y (use --from and --to)');
    expect(solveProblemText({ code: 'target-outside', metric: 'p_test', target: 1.5 })).toBe('--target 1.5 is outside [0, 1]: "p_test" is a probability');
    expect(solveProblemText({ code: 'not-numeric', param: 'wal.hp', system: 'fantasy', guess: 'wall.hp' })).toBe('"wal.hp" is not a numeric setting of system fantasy (did you mean "wall.hp"?)');
    expect(solveProblemText({ code: 'not-a-number', param: 'rules.x', kind: 'boolean' })).toMatch(/^"rules\.x" is a yes\/no setting, not a number: /);
  });

  it('refuses each bad request with the problem as data, before anything runs', async () => {
    expect(await refusal(() => solvePlan(valid(), { ...ASK, metric: 'p_tst' }))).toBe('unknown metric "p_tst" (did you mean "p_test"?)');
    expect(await refusal(() => solvePlan(valid(), { ...ASK, target: 1.5 }))).toBe('--target 1.5 is outside [0, 1]: "p_test" is a probability');
    expect(await refusal(() => solvePlan(valid(), { ...ASK, from: 9, to: 3 }))).toBe('need integers --from < --to (got 9, 3)');
    expect(await refusal(() => solvePlan(valid(), { ...ASK, step: 0.5 }))).toBe('--step must be a whole number >= 1 (besieged.steps_inside is an integer setting), got 0.5');
  });
});

describe('solve: what an answer holds at and what its numbers count', () => {
  const GRID = readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/wall-hp-dc-grid.yaml'), 'utf8');

  it("refuses a mean's target outside the values it can take (mean_rounds under max_rounds: 12), never advising a wider search; a parameter that moves the range is allowed", async () => {
    const g = valid(GRID);
    const rounds = { param: 'wall.hp', metric: 'mean_rounds', target: 50, sweep: false };
    await expect(Promise.resolve().then(() => solvePlan(g, rounds))).rejects.toMatchObject({ problem: { code: 'target-range', metric: 'mean_rounds', target: 50, range: [0, 12] } });
    expect(await refusal(() => solvePlan(g, rounds))).toBe('--target 50 is outside the values "mean_rounds" can take in this case (0 to 12): no value searched can reach it');
    expect(await refusal(() => solvePlan(g, { ...rounds, target: -1 }))).toMatch(/^--target -1 is outside the values "mean_rounds" can take/);
    expect(await refusal(() => solveScenario(g, { ...rounds, metric: 'mean_breach_round', target: 13 }))).toMatch(/"mean_breach_round" can take in this case \(1 to 12\)/);
    // at every sweep point too, and in the workbench's words
    expect(await refusal(() => solvePlan(g, { ...rounds, sweep: true }))).toMatch(/^--target 50 is outside/);
    expect(solveProblemText({ code: 'target-range', metric: 'mean_rounds', target: 50, range: [0, 12] }, { from: 'from', to: 'to', target: (x) => `the target ${x}` })).toMatch(/^the target 50 is outside/);
    // on the edge of the range, or within --within of it, it can still be reached: not refused
    expect(solvePlan(g, { ...rounds, target: 12 }).points).toHaveLength(1);
    expect(solvePlan(g, { ...rounds, target: 12.5, within: 0.5 }).points).toHaveLength(1);
    // the round cap itself moves the range: 14 is within reach of max_rounds 5..60
    expect(solvePlan(g, { ...rounds, param: 'max_rounds', target: 14, from: 5, to: 60 }).points).toEqual([{ point: {}, from: 5, to: 60, step: 1 }]);
  });

  it('a conditional mean: the trials run, and the trials the mean is over, each named (never the event count as "trials"); the summary sums the trials run', async () => {
    const r = await solveSweep(valid(GRID), { executor: new YieldingExecutor(), param: 'wall.hp', metric: 'mean_breach_round', target: 2, sweep: false, trials: 2000 });
    const [p] = r.points;
    expect(p.conditional_on).toBe('p_breach');
    expect(p.reachable).toBe(false);
    const top = p.ends.to;
    expect(top.n).toBeLessThan(2000); // some trials had no breach
    const text = describeAnswer(p, ['baseline']);
    expect(text).toContain(`  at wall.hp = ${p.to}: ${estimateText(top)} (2,000 trials; a mean over the ${top.n.toLocaleString('en-US')} of them with p_breach), the closest\n`);
    expect(text).not.toContain(`(${top.n.toLocaleString('en-US')} trials)`);
    const ran = p.evaluations.reduce((n, e) => n + e.trials, 0);
    expect(ran).toBe(4000);
    expect(solveSummary(r, 1.5, false)).toBe('1 answer, from 2 evaluations (4,000 trials) in 1.500 s (--verbose lists them)');
    // a metric over every trial says its trials alone
    const all = await solveScenario(valid(), { ...ASK, executor: new YieldingExecutor() });
    expect(all.conditional_on).toBeUndefined();
    expect(describeAnswer(all)).toMatch(/\n {2}at 15: p_test 1 \[[\d.]+, 1\] \(8,000 trials\)\n/);
  }, 60_000);

  it("names the case it holds in on stdout and in the JSON: --no-sweep at the scenario's own values of the swept settings, the variant when there are several", async () => {
    const v = valid();
    const once = await solveSweep(v, { ...ASK, sweep: false, variant: 'le' });
    const [p] = once.points;
    expect(p.point).toEqual({});
    expect(p.held).toEqual({ 'structure.surrender_level': 3 }); // the file's own value, not a sweep point's
    expect(solveJson(p)).toMatchObject({ point: {}, held: { 'structure.surrender_level': 3 } });
    expect(caseLine(p, v.variantNames)).toBe("  holds at structure.surrender_level = 3 (the scenario's own value: --no-sweep), on the variant le\n");
    expect(describeAnswer(p, v.variantNames).split('\n')[1]).toBe("  holds at structure.surrender_level = 3 (the scenario's own value: --no-sweep), on the variant le");
    // at a sweep point the point's line says the values; the variant is still named
    const swept = await solveSweep(v, ASK);
    expect(swept.points.map((x) => x.held)).toEqual([{ 'structure.surrender_level': 3 }, { 'structure.surrender_level': 4 }]);
    expect(caseLine(swept.points[1], v.variantNames)).toBe('  holds on the variant lt (the baseline)\n');
    // a scenario with neither: nothing to add
    const plain = valid(SCENARIO.replace(/sweep:[\s\S]*$/, ''));
    const q = await solveScenario(plain, ASK);
    expect(q.held).toEqual({});
    expect(caseLine(q, plain.variantNames)).toBe('');
  });
});

describe("solve over a setting the file sweeps and leaves to the rules (climbers-dc's wall.dc: its stone wall's DC 12)", () => {
  // the new-user audit (newuser53b, defect 1): the page's answer over wall.dc 8..20 had ends.from
  // k = 4094 of 4096 and 0.46497 at 17, solve --json's 4092 and 0.4760: solve rolled point-0, the
  // page point-1 (wall.dc = 12, the file's own value), and only the page's was run's there
  const CLIMBERS = readFileSync(path.resolve(import.meta.dirname, '../scenarios/fantasy/climbers-dc.yaml'), 'utf8');
  const ask = { metric: 'p_breach', target: 0.5, trials: 4096, seed: 23 };
  /** The workbench's sweep-and-solve (POST /api/sweep with a target) over one axis, nothing tuned. */
  const page = async (v: ReturnType<typeof valid>, axis: { path: string; from: number; to: number }, o: { variant?: string; metric?: string; target?: number } = {}) => {
    const { variant, metric = ask.metric, target = ask.target } = o;
    const after = await solveAfterSweep({ v, variant, values: {}, axes: [{ ...axis, step: 1 }], metric, target }, { trials: ask.trials, seed: ask.seed });
    if (after?.kind !== 'solved') throw new Error(`no answer: ${JSON.stringify(after)}`);
    return after.result;
  };

  it("rolls run's dice at the file's own value: wall.dc = 12 is run's point wall.dc = 12", async () => {
    const v = valid(CLIMBERS);
    const run = await runScenario(v, { trials: ask.trials, seed: ask.seed });
    const r = await solveScenario(v, { ...ask, param: 'wall.dc', from: 12, to: 13 });
    const c = run.cases.find((x) => x.variant === 'at-least-dc' && x.params['wall.dc'] === 12)!;
    expect(r.ends.from.n).toBe(c.metrics.p_breach.n);
    expect(r.ends.from).toEqual(c.metrics.p_breach);
  });

  it("the workbench's answer is solve --json's, field by field: over the file's sweep axis (both variants), and over a setting it does not sweep", async () => {
    const v = valid(CLIMBERS);
    for (const variant of ['at-least-dc', 'above-dc']) {
      const cli = await solveSweep(v, { ...ask, param: 'wall.dc', from: 8, to: 20, variant });
      expect(cli.points).toHaveLength(1); // the swept axis is what is searched: one point
      expect(await page(v, { path: 'wall.dc', from: 8, to: 20 }, { variant: variant === 'at-least-dc' ? undefined : variant }), variant).toEqual(cli.points[0]);
    }
    // attacker.infantry, not swept: the page's case is the file's own (wall.dc 12), solve's at the
    // point wall.dc = 12 and with --no-sweep; point and held name that case each its own way (the
    // page's point is the values on screen, none here), every number is the same
    const own = await page(v, { path: 'attacker.infantry', from: 1, to: 12 });
    const at12 = (await solveSweep(v, { ...ask, param: 'attacker.infantry', from: 1, to: 12 })).points.find((p) => p.point['wall.dc'] === 12)!;
    const once = (await solveSweep(v, { ...ask, param: 'attacker.infantry', from: 1, to: 12, sweep: false })).points[0];
    expect(once.held).toEqual({ 'wall.dc': 12 });
    for (const cli of [at12, once]) expect({ ...own, point: cli.point, held: cli.held }).toEqual(cli);
    expect(own.value).toBe(3);
  });

  it('a file without a sweep: the same answer as before', async () => {
    const plain = valid(SCENARIO.replace(/sweep:[\s\S]*$/, ''));
    const r = await page(plain, { path: 'besieged.steps_inside', from: 0, to: 40 }, { metric: 'p_test', target: 0.9 });
    expect(r).toEqual(await solveScenario(plain, { ...ask, metric: 'p_test', target: 0.9, param: 'besieged.steps_inside', from: 0, to: 40 }));
    expect(r.value).toBe(15);
  });
});
