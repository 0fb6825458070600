/**
 * Balance assertions (`expect:`, `siegesim test`): validation at file:line:col, and the
 * decision rule — pass, FAIL, inconclusive at the cap, and a straddling interval decided by
 * the extra looks — on the surrender system (one 262,144-trial chunk takes ~10 ms).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { judge, runScenario, testScenario, validateText, prepareExact, type AssertionResult, type ScenarioTestResult, type ValidScenario } from '../src/api.js';
import { assertionMessage, junitXml, relationText, testFooter, testLines } from '../src/report/test-report.js';
import { PoolExecutor } from '../src/engine/pool.js';
import { MSG } from '../src/scenario/messages.js';
import type { Expectation } from '../src/scenario/expect.js';
import { wilson, zForConfidence } from '../src/stats/intervals.js';
import type { CaseResult } from '../src/systems/types.js';

/** town-basic's test: p_test = 4/6 exactly (docs/rules/surrender.md: roll − 2 below 3 on a d6). */
const TOWN = `name: t
system: surrender
seed: 42
trials: 262144
structure: { surrender_level: 3 }
besieger: { combat_units: 4, artillery: 1 }
besieged: { steps_inside: 8 }
turns: 12
`;
/** A fantasy open-field battle (no wall, so no breach metrics). */
const FANTASY_OPEN = `name: f
system: fantasy
seed: 1
trials: 1000
mode: open_field
attacker: { infantry: 8 }
defender: { infantry: 8 }
`;
const ROOT = path.resolve(import.meta.dirname, '..');
const C = 262_144; // the surrender system's chunk: looks at 1, 2, 4, 8, 16 chunks

function scenario(text: string): ValidScenario {
  const v = validateText('s.yaml', text);
  if (!v.ok) throw new Error(v.issues.map((i) => `${i.line}:${i.col} ${i.path} ${i.message}`).join('\n'));
  return v.value;
}

function issuesOf(text: string) {
  const v = validateText('s.yaml', text);
  if (v.ok) throw new Error('expected problems');
  return v.issues.map((i) => ({ at: `${i.line}:${i.col}`, path: i.path, message: i.message }));
}

const GRID = `name: g
system: surrender
seed: 1
trials: 1000
variants:
  - name: as-written
  - name: lenient
    set: { rules.comparison: le }
sweep:
  structure.surrender_level: [2, 3]
`;

describe('expect: validation', () => {
  it('resolves each item to its sweep points and variants, with its line', () => {
    const v = scenario(
      GRID +
        `expect:
  - { metric: p_test, between: [0, 1] }
  - { metric: diff_p_surrender, where: { structure.surrender_level: 3 }, at_least: 0 }
  - { metric: mean_turns, variant: lenient, where: { structure.surrender_level: [2, 3] }, at_most: 12 }
  - { metric: p_surrender, exact: true }
`,
    );
    const [all, diff, one, ex] = v.expect;
    expect(all.targets).toEqual([
      { point: 0, variant: 0 },
      { point: 0, variant: 1 },
      { point: 1, variant: 0 },
      { point: 1, variant: 1 },
    ]);
    expect(all.line).toBe(12);
    expect(diff).toMatchObject({ diff: true, base: 'p_surrender', bound: { kind: 'at_least', low: 0 }, targets: [{ point: 1, variant: 1 }] });
    expect(one.targets).toEqual([
      { point: 0, variant: 1 },
      { point: 1, variant: 1 },
    ]);
    expect(ex.bound).toEqual({ kind: 'exact' });
    expect(scenario(GRID).expect).toEqual([]);
  });

  it('reports unknown metrics, variants, unswept paths and values not in the sweep at file:line:col', () => {
    const issues = issuesOf(
      GRID +
        `expect:
  - { metric: p_surender, at_least: 0.1 }
  - { metric: p_test, variant: lenent, at_least: 0.1 }
  - { metric: p_test, where: { structure.port: true }, at_least: 0.1 }
  - { metric: p_test, where: { structure.surrender_level: [3, 4] }, at_least: 0.1 }
  - { metric: diff_p_test, variant: as-written, at_least: 0.1 }
  - { metric: p_test, between: [0.5, 0.4] }
  - { metric: p_test, at_least: 0.1, at_most: 0.2 }
  - { metric: p_test }
`,
    );
    expect(issues).toEqual([
      { at: '12:15', path: 'expect[0].metric', message: MSG.unknownMetric('p_surender', 'p_surrender', []) },
      { at: '13:32', path: 'expect[1].variant', message: MSG.unknownVariant('lenent', 'lenient', ['as-written', 'lenient']) },
      { at: '14:32', path: 'expect[2].where.structure.port', message: MSG.whereNotSwept('structure.port', undefined, ['structure.surrender_level']) },
      { at: '15:63', path: 'expect[3].where.structure.surrender_level[1]', message: MSG.whereValueNotSwept('structure.surrender_level', 4, [2, 3]) },
      { at: '16:37', path: 'expect[4].variant', message: MSG.diffOfBaseline('diff_p_test', 'as-written') },
      { at: '17:32', path: 'expect[5].between', message: MSG.expectBetweenOrder(0.5, 0.4) },
      { at: '18:38', path: 'expect[6].at_most', message: MSG.expectOneBound(['at_least', 'at_most']) },
      { at: '19:5', path: 'expect[7]', message: MSG.expectOneBound([]) },
    ]);
  });

  it('exact: anything but true is refused in plain words, not zod\'s "expected true"', () => {
    const issues = issuesOf(
      GRID +
        `expect:
  - { metric: p_test, exact: false }
  - { metric: p_test, exact: "true" }
  - { metric: p_test, exact: 1 }
`,
    );
    expect(issues).toEqual([
      { at: '12:30', path: 'expect[0].exact', message: MSG.exactOnlyTrue('false') },
      { at: '13:30', path: 'expect[1].exact', message: MSG.exactOnlyTrue('the text "true"', true) },
      { at: '14:30', path: 'expect[2].exact', message: MSG.exactOnlyTrue('1') },
    ]);
    expect(MSG.exactOnlyTrue('false')).toBe('only exact: true is a bound (the metric agrees with the exact solver), got false: for any other claim give between, at_least or at_most instead');
    expect(MSG.exactOnlyTrue('the text "true"', true)).toContain('(write it without quotes)');
  });

  it('refuses a bound outside a probability\'s range ([0, 1]; [-1, 1] for a diff_), not a mean\'s', () => {
    const issues = issuesOf(
      GRID +
        `expect:
  - { metric: p_test, at_least: 1.5 }
  - { metric: p_test, between: [0.5, 1.01] }
  - { metric: diff_p_test, between: [-1.5, 0] }
  - { metric: diff_p_test, at_most: -0.5 }
  - { metric: mean_turns, at_least: 1.5 }
  - { metric: p_test, at_most: 1 }
`,
    );
    expect(issues).toEqual([
      { at: '12:33', path: 'expect[0].at_least', message: MSG.outsideProbability('at_least: 1.5', 'p_test') },
      { at: '13:32', path: 'expect[1].between', message: MSG.outsideProbability('between [0.5, 1.01]', 'p_test') },
      { at: '14:37', path: 'expect[2].between', message: MSG.outsideProbability('between [-1.5, 0]', 'diff_p_test', true) },
    ]);
  });

  it('lists the metrics when a name is nowhere near one, and needs variants for diff_', () => {
    const [a] = issuesOf(TOWN + 'expect:\n  - { metric: breach_chance, at_least: 0.1 }\n');
    expect(a.message).toBe(MSG.unknownMetric('breach_chance', undefined, ['p_test', 'p_surrender', 'mean_turns']));
    const [b] = issuesOf(TOWN + 'expect:\n  - { metric: diff_p_test, at_least: 0.1 }\n');
    expect(b).toEqual({ at: '10:15', path: 'expect[0].metric', message: MSG.diffNeedsVariants('diff_p_test') });
  });

  it('refuses a metric no case can produce, for every system, whether or not the file has other problems', () => {
    // one short scenario per system; `trials: 0` gives it a problem of its own, so no case is
    // built and the system's metricNames of the file as written answers
    const files = ['surrender/town-basic', 'crusader-rex/knights-charge', 'fantasy/climbers-dc', 'cry-havoc/melee-two-on-one'];
    for (const f of files) {
      const data = parseYaml(readFileSync(path.join(ROOT, 'scenarios', `${f}.yaml`), 'utf8')) as Record<string, unknown>;
      const probe = stringify({
        ...data,
        expect: [
          { metric: 'p_dragon_wins', at_least: 0.1 },
          { metric: 'diff_p_dragon_wins', at_least: 0.1 },
          { metric: 'mean_roundz', at_least: 1 },
        ],
      });
      for (const text of [probe, probe.replace(/^trials: .*$/m, 'trials: 0')]) {
        const v = validateText('s.yaml', text);
        if (v.ok) throw new Error(`${f}: a made-up metric passed validation`);
        const problems = v.issues.filter((i) => i.path.startsWith('expect'));
        expect(problems.map((i) => i.path), f).toEqual(['expect[0].metric', 'expect[1].metric', 'expect[2].metric']);
        expect(problems[0].message, f).toMatch(/^unknown metric "p_dragon_wins" \(this scenario's metrics: p_/);
        expect(problems[1].message, f).toMatch(/^unknown metric "diff_p_dragon_wins" /);
        // a near miss gets its "did you mean" where the system has a mean_ metric within reach
        expect(problems[2].message, f).toMatch(/^unknown metric "mean_roundz" \((did you mean "mean_rounds"\?|this scenario's metrics: .*)\)$/);
      }
    }
    // the names come from the file as written: a fantasy open-field battle has no breach, a siege no volley
    const open = FANTASY_OPEN.replace('trials: 1000', 'trials: 0');
    expect(issuesOf(open + 'expect:\n  - { metric: p_breach, at_least: 0.1 }\n')).toContainEqual({ at: '9:15', path: 'expect[0].metric', message: expect.stringMatching(/^unknown metric "p_breach" \(this scenario's metrics: p_attacker_wins, p_defender_wins, p_undecided, mean_rounds, p_round_cap, mean_volley_a_damage\)$/) });
    expect(issuesOf(open.replace('mode: open_field', 'mode: sige') + 'expect:\n  - { metric: p_breach, at_least: 0.1 }\n').map((i) => i.path)).toEqual(['trials', 'mode']);
  });

  it('refuses a diff_ of a metric the baseline does not have (nothing to compare with), before anything runs', () => {
    // the first melee roll's letters are those of the table the defender starts on: G only on the mounted one
    const melee = `name: m
system: cry-havoc
seed: 1
trials: 1000
kind: melee
attackers: [{ attack: 6 }]
defender: { defence: 3 }
variants:
  - name: foot
  - name: mounted
    set: { defender.mounted: true }
expect:
  - { metric: p_first_G, at_least: 0.01 }
  - { metric: diff_p_first_G, at_least: 0.01 }
  - { metric: diff_p_first_A, at_least: -1 }
`;
    expect(issuesOf(melee)).toEqual([{ at: '14:15', path: 'expect[1].metric', message: MSG.diffWithoutBaseline('diff_p_first_G', 'foot') }]);
    const v = scenario(melee.replace(/^ {2}- \{ metric: diff_p_first_G.*\n/m, ''));
    expect(v.expect.map((e) => e.targets)).toEqual([[{ point: 0, variant: 1 }], [{ point: 0, variant: 1 }]]);
  });

  it('accepts every metric a short run of each bundled scenario produces, and its diff_ (no false alarm)', async () => {
    const dir = path.join(ROOT, 'scenarios');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml')).sort();
    let checked = 0;
    for (const f of files) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      const v = scenario(text);
      // one chunk's worth of trials at most: the names, not the values, are under test
      const r = await runScenario(v, { trials: Math.min(64, v.system.chunkTrials) });
      const names = new Set<string>();
      for (const c of r.cases) {
        for (const m of Object.keys(c.metrics)) names.add(m);
        for (const m of Object.keys(c.differences)) if (r.cases.some((b) => b.case === c.case && b.variant === v.variantNames[0] && b.metrics[m])) names.add(`diff_${m}`);
      }
      const items = [...names].map((m) => ({ metric: m, at_least: m.startsWith('diff_') ? -1 : 0 }));
      const probe = stringify({ ...(parseYaml(text) as Record<string, unknown>), expect: items });
      const ok = validateText(f, probe);
      if (!ok.ok) throw new Error(`${f}: ${ok.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`);
      // the same with a problem of the file's own: the system's metricNames of the file as written answers
      const broken = validateText(f, probe.replace(/^trials: .*$/m, 'trials: 0'));
      expect(broken.ok ? [] : broken.issues.map((i) => i.path), f).toEqual(['trials']);
      checked += names.size;
    }
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(checked).toBeGreaterThan(150);
  }, 120_000);

  it('rejects unknown keys in an item, like every other key', () => {
    const [a] = issuesOf(TOWN + 'expect:\n  - { metric: p_test, at_leest: 0.1 }\n');
    expect(a).toEqual({ at: '10:23', path: 'expect[0].at_leest', message: MSG.unknownKey('at_leest', 'at_least') });
  });

  it('an exact: true on a case with no exact answer for the metric is found before anything runs', () => {
    // fantasy's exact form (b) gives p_breach for climbers alone, not p_attacker_wins
    const v = scenario(`name: f
system: fantasy
seed: 1
trials: 1000
mode: siege
attacker: { infantry: 8, cavalry: 3 }
defender: { infantry: 8 }
wall: { type: stone, breach_threshold: 4 }
rules: { tower_bonus: none }
expect:
  - { metric: p_breach, exact: true }
  - { metric: p_attacker_wins, exact: true }
`);
    const { issues } = prepareExact(v);
    expect(issues).toEqual([{ file: 's.yaml', line: 12, col: 5, path: 'expect[1]', message: MSG.exactUnavailable('p_attacker_wins', 'this case') }]);
  });

  it('exact: true on a diff_ is the exact difference variant − baseline where both have exact answers and the difference is paired; else a problem at the item', async () => {
    const v = scenario(
      GRID +
        `expect:
  - { metric: diff_p_test, exact: true }
  - { metric: diff_p_surrender, variant: lenient, where: { structure.surrender_level: 3 }, exact: true }
`,
    );
    const { answers, issues } = prepareExact(v);
    expect(issues).toEqual([]);
    // surrender's p_test is (roll - 2) below the level on a d6 (docs/rules/surrender.md): lenient adds one face
    expect(answers.get('0:1')!.diff_p_test.value).toBeCloseTo(1 / 6, 12);
    expect(answers.get('1:1')!.diff_p_test.value).toBeCloseTo(1 / 6, 12);
    expect(answers.get('1:1')!.diff_p_surrender.value).toBeCloseTo(0.9997558594 - 0.9922926534, 9);
    const r = await testScenario(v, { trials: 20000 });
    expect(r.assertions.map((a) => [a.metric, a.verdict])).toEqual([
      ['diff_p_test', 'pass'],
      ['diff_p_test', 'pass'],
      ['diff_p_surrender', 'pass'],
    ]);
    expect(r.assertions[0].exact!.value).toBeCloseTo(1 / 6, 12);
    expect(r.assertions[0].boundText).toMatch(/^exact 0\.16667 \(z = -?\d\.\d\d\)$/);
    // mean_turns' difference is Welch (not paired trial by trial): no z to judge
    const welch = scenario(GRID + `expect:\n  - { metric: diff_mean_turns, where: { structure.surrender_level: 2 }, exact: true }\n`);
    expect(prepareExact(welch).issues).toEqual([
      { file: 's.yaml', line: 12, col: 5, path: 'expect[0]', message: MSG.exactOfDiff('diff_mean_turns', 'structure.surrender_level=2, variant lenient') },
    ]);
  });

  it('an item the scenario no longer matches is an error by default (test, validate) and, with staleExpect warn, left out and given back to warn about', () => {
    // the designer's edit: the sweep moved, a variant was renamed, a metric went away
    const text =
      GRID.replace('[2, 3]', '[3, 4]') +
      `expect:
  - { metric: p_test, where: { structure.surrender_level: 2 }, at_least: 0.1 }
  - { metric: p_test, variant: strict, at_least: 0.1 }
  - { metric: p_breach, at_least: 0.1 }
  - { metric: p_test, at_least: 0.1 }
`;
    const stale = [
      { at: '12:59', path: 'expect[0].where.structure.surrender_level', message: MSG.whereValueNotSwept('structure.surrender_level', 2, [3, 4]) },
      { at: '13:32', path: 'expect[1].variant', message: MSG.unknownVariant('strict', undefined, ['as-written', 'lenient']) },
      { at: '14:15', path: 'expect[2].metric', message: expect.stringMatching(/^unknown metric "p_breach"/) },
    ];
    expect(issuesOf(text)).toEqual(stale);
    const strict = validateText('s.yaml', text);
    expect(!strict.ok && strict.issues.every((i) => i.stale === true)).toBe(true);
    const v = validateText('s.yaml', text, { staleExpect: 'warn' });
    if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('\n'));
    expect(v.value.expect.map((e) => e.index)).toEqual([3]); // the item that matches is kept
    expect(v.value.staleExpect!.map((i) => ({ at: `${i.line}:${i.col}`, path: i.path, message: i.message }))).toEqual(stale);
    // test cannot judge them: prepareExact says them as the problems they are
    expect(prepareExact(v.value).issues.map((i) => i.path)).toEqual(stale.map((i) => i.path));
    // nothing stale: no staleExpect at all
    const fine = validateText('s.yaml', GRID + 'expect:\n  - { metric: p_test, at_least: 0.1 }\n', { staleExpect: 'warn' });
    expect(fine.ok && fine.value.staleExpect).toBe(undefined);

    // an item wrong in itself is an error either way, and a stale one beside it stays flagged
    const malformed = validateText('s.yaml', text + '  - { metric: p_test, between: [0.5, 0.4] }\n', { staleExpect: 'warn' });
    expect(malformed.ok).toBe(false);
    if (malformed.ok) return;
    expect(malformed.issues.filter((i) => !i.stale).map((i) => [i.path, i.message])).toEqual([['expect[4].between', MSG.expectBetweenOrder(0.5, 0.4)]]);
    expect(malformed.issues.filter((i) => i.stale).length).toBe(3);
    // a bound outside a probability's range, no bound: never stale (exact: true on a diff_ is an
    // assertion now, on the exact difference: test/exact-differences.test.ts)
    for (const item of ['{ metric: p_test, at_most: 2 }', '{ metric: p_test }']) {
      const r = validateText('s.yaml', GRID + `expect:\n  - ${item}\n`, { staleExpect: 'warn' });
      expect(r.ok, item).toBe(false);
    }
  });
});

describe('the decision rule', () => {
  const run = (expectBlock: string, opts = {}) => testScenario(scenario(TOWN + 'expect:\n' + expectBlock), opts);

  it('passes inside the bound and fails outside it at the first look, with no extra trials', async () => {
    const r = await run('  - { metric: p_test, between: [0.66, 0.675] }\n  - { metric: mean_turns, at_most: 1.45 }\n  - { metric: p_test, exact: true }\n');
    const [inside, outside, exact] = r.assertions;
    expect(inside).toMatchObject({ verdict: 'pass', trials: C, confidence: 0.999 });
    expect(inside.ci_low).toBeGreaterThanOrEqual(0.66);
    expect(inside.ci_high).toBeLessThanOrEqual(0.675);
    expect(outside).toMatchObject({ verdict: 'fail', trials: C });
    expect(outside.ci_low).toBeGreaterThan(1.45);
    expect(exact.verdict).toBe('pass');
    expect(exact.exact!.value).toBeCloseTo(2 / 3, 12);
    expect(Math.abs(exact.exact!.z)).toBeLessThan(zForConfidence(0.999));
    // the interval is the 99.9% Wilson interval of the counts
    const m = r.result.cases[0].metrics.p_test;
    expect([inside.ci_low, inside.ci_high]).toEqual([wilson(m.k!, m.n, zForConfidence(0.999)).ci_low, wilson(m.k!, m.n, zForConfidence(0.999)).ci_high]);
  });

  it('a bound on the true value straddles at every look: inconclusive at the cap, with its interval', async () => {
    const r = await run('  - { metric: p_test, at_least: 0.666666667 }\n');
    const [a] = r.assertions;
    expect(a.verdict).toBe('inconclusive');
    expect(a.trials).toBe(16 * C); // the default cap: 16 x the first look's trials
    expect(r.maxTrials).toBe(16 * C);
    expect(a.ci_low).toBeLessThan(0.666666667);
    expect(a.ci_high).toBeGreaterThan(0.666666667);
    // a lower cap stops sooner, at the cap
    const capped = await run('  - { metric: p_test, at_least: 0.666666667 }\n', { maxTrials: 3 * C });
    expect(capped.assertions[0]).toMatchObject({ verdict: 'inconclusive', trials: 3 * C });
  });

  it('a straddling interval gets more trials on the chunk schedule and is decided at a later look', async () => {
    // Place the bound inside the first look's 99.9% interval, 60% of the way down from the
    // estimate: it straddles at 1 chunk and clears once the interval has narrowed.
    const first = await run('  - { metric: p_test, between: [0, 1] }\n');
    const a0 = first.assertions[0];
    const bound = a0.value - 0.6 * (a0.value - a0.ci_low);
    const r = await run(`  - { metric: p_test, at_least: ${bound} }\n`);
    const [a] = r.assertions;
    expect(a.verdict).toBe('pass');
    expect(a.trials).toBeGreaterThan(C);
    expect(a.trials).toBeLessThan(16 * C);
    expect([2 * C, 4 * C, 8 * C]).toContain(a.trials); // a look: 2^k x the first look's trials
    // its row says it ran on because it was undecided at the first look
    expect(a.ranOn).toBe(true);
    expect(testLines(r).find((l) => l.startsWith('  pass'))).toMatch(new RegExp(`\\(${a.trials.toLocaleString('en-US')} trials: undecided at ${C.toLocaleString('en-US')}\\)$`));
    // the same answer with worker threads: where a run stops depends only on its results
    const exec = new PoolExecutor(2);
    try {
      const again = await testScenario(scenario(TOWN + `expect:\n  - { metric: p_test, at_least: ${bound} }\n`), { executor: exec });
      expect(again.assertions).toEqual(r.assertions);
    } finally {
      await exec.close();
    }
  });

  it('the other assertions of a sweep point share its extra trials; other points stop at their own look', async () => {
    const v = scenario(
      TOWN.replace('trials: 262144', 'trials: 262144\nsweep: { structure.surrender_level: [3, 4] }') +
        `expect:
  - { metric: p_test, where: { structure.surrender_level: 3 }, at_least: 0.666666667 }
  - { metric: p_surrender, at_least: 0.99 }
`,
    );
    const r = await testScenario(v, { maxTrials: 4 * C });
    const byPoint = (level: number) => r.assertions.filter((a) => a.params['structure.surrender_level'] === level);
    expect(byPoint(3).map((a) => [a.metric, a.verdict, a.trials])).toEqual([
      ['p_test', 'inconclusive', 4 * C],
      ['p_surrender', 'pass', 4 * C],
    ]);
    expect(byPoint(4).map((a) => [a.metric, a.verdict, a.trials])).toEqual([['p_surrender', 'pass', C]]);
    // which one made the point run on: p_test, undecided at the first look; p_surrender only ran on with it
    expect(byPoint(3).map((a) => a.ranOn ?? false)).toEqual([true, false]);
    expect(byPoint(4).map((a) => a.ranOn ?? false)).toEqual([false]);
    const lines = testLines(r);
    expect(lines[0]).toContain('where an interval straddled a bound: p_test)');
  });

  it('--confidence widens the interval it judges on', async () => {
    const r95 = await run('  - { metric: p_test, between: [0, 1] }\n', { confidence: 0.95 });
    const r999 = await run('  - { metric: p_test, between: [0, 1] }\n');
    const w = (a: { ci_low: number; ci_high: number }) => a.ci_high - a.ci_low;
    expect(w(r999.assertions[0]) / w(r95.assertions[0])).toBeCloseTo(zForConfidence(0.999) / zForConfidence(0.95), 3);
  });
});

describe('judge', () => {
  const z = zForConfidence(0.999);
  const e = (bound: Expectation['bound'], extra: Partial<Expectation> = {}): Expectation => ({
    index: 0,
    metric: 'p_x',
    base: 'p_x',
    diff: false,
    bound,
    targets: [],
    line: 1,
    col: 1,
    ...extra,
  });
  const prob = (k: number, n: number): CaseResult => ({
    case: 1,
    variant: 'v',
    params: {},
    trials: n,
    metrics: { p_x: { ...wilson(k, n), kind: 'probability', n, k } },
    differences: { p_x: { value: 0.1, ci_low: 0.09, ci_high: 0.11 } },
    curves: {},
  });

  it('pass inside, fail outside, undecided across a bound; bounds are inclusive', () => {
    expect(judge(e({ kind: 'between', low: 0.4, high: 0.6 }), prob(5000, 10000), z).state).toBe('pass');
    expect(judge(e({ kind: 'at_most', high: 0.48 }), prob(5000, 10000), z).state).toBe('fail');
    expect(judge(e({ kind: 'at_least', low: 0.5 }), prob(5000, 10000), z).state).toBe('undecided');
    expect(judge(e({ kind: 'at_least', low: 0 }), prob(0, 10000), z).state).toBe('pass'); // Wilson's low end is exactly 0
    expect(judge(e({ kind: 'at_most', high: 0 }), prob(0, 10000), z).state).toBe('undecided'); // ...its high end never is
  });

  it('diff_ metrics are judged on the difference interval, rescaled from 95% to the confidence', () => {
    const j = judge(e({ kind: 'at_least', low: 0.08 }, { diff: true, metric: 'diff_p_x' }), prob(50, 100), z);
    expect(j.interval.ci_low).toBeCloseTo(0.1 - (0.01 * z) / 1.959963984540054, 12);
    expect(j.state).toBe('pass');
  });

  it('exact: pass within the confidence z, FAIL beyond 4.5, more trials in between', () => {
    const c = prob(5000, 10000); // se 0.005
    const ex = (value: number) => ({ p_x: { value } });
    expect(judge(e({ kind: 'exact' }), c, z, ex(0.51)).state).toBe('pass'); // z = -2
    expect(judge(e({ kind: 'exact' }), c, z, ex(0.52)).state).toBe('undecided'); // z = -4
    expect(judge(e({ kind: 'exact' }), c, z, ex(0.53)).state).toBe('fail'); // z = -6
  });

  it('exact: a mean no trial gave a value has no z (not 0, which passed it) and is undecided', () => {
    const none: CaseResult = { case: 1, variant: 'v', params: {}, trials: 20, metrics: { m_x: { value: NaN, ci_low: NaN, ci_high: NaN, kind: 'mean', n: 0 } }, differences: {}, curves: {} };
    const j = judge(e({ kind: 'exact' }, { metric: 'm_x', base: 'm_x' }), none, z, { m_x: { value: 3.25, variance: 1 } });
    expect(j.state).toBe('undecided');
    expect(j.exact?.value).toBe(3.25);
    expect(j.exact?.z).toBeNaN();
  });
});

describe('what a FAIL or inconclusive assertion says', () => {
  const a = (bound: AssertionResult['bound'], verdict: AssertionResult['verdict'], lo: number, hi: number, extra: Partial<AssertionResult> = {}): AssertionResult => ({
    index: 0,
    line: 11,
    col: 5,
    metric: 'p_attacker_wins',
    case: 1,
    variant: 'baseline',
    params: {},
    where: '',
    bound,
    boundText: '',
    verdict,
    value: (lo + hi) / 2,
    ci_low: lo,
    ci_high: hi,
    confidence: 0.999,
    trials: 320_000,
    ...extra,
  });

  it('a FAIL: which side of the bound, and by at least the gap from the near end of the interval', () => {
    expect(assertionMessage(a({ kind: 'between', low: 0.3, high: 0.4 }, 'fail', 0.48459, 0.49041))).toBe(
      'p_attacker_wins = 0.4875 [0.48459, 0.49041] is above the bound [0.3, 0.4] by at least 0.0846 (99.9% interval, 320,000 trials)',
    );
    expect(relationText(a({ kind: 'between', low: 0.3, high: 0.4 }, 'fail', 0.21, 0.25))).toBe('is below the bound [0.3, 0.4] by at least 0.05');
    expect(relationText(a({ kind: 'at_least', low: 0.9 }, 'fail', 0.85, 0.8999877))).toBe('is below the lower bound 0.9 by at least 1.23e-5');
    expect(relationText(a({ kind: 'at_most', high: 1.5 }, 'fail', 1.61, 1.7))).toBe('is above the upper bound 1.5 by at least 0.11');
    expect(assertionMessage(a({ kind: 'at_most', high: -0.05 }, 'fail', -0.02, 0.01, { metric: 'diff_p_breach', where: 'wall.dc=16, variant at-least-dc' }))).toBe(
      'diff_p_breach (wall.dc=16, variant at-least-dc) = -0.005 [-0.02, 0.01] is above the upper bound -0.05 by at least 0.03 (99.9% interval, 320,000 trials)',
    );
    // a mean over the trials of an event says over how many of them (it gave the case's trials alone)
    expect(assertionMessage(a({ kind: 'at_most', high: 1.5 }, 'fail', 1.6423, 1.7104, { metric: 'mean_breach_round', over: { event: 'p_breach', n: 12_138 } }))).toBe(
      'mean_breach_round = 1.6764 [1.6423, 1.7104] is above the upper bound 1.5 by at least 0.142 (99.9% interval, 320,000 trials; a mean over the 12,138 of them with p_breach)',
    );
  });

  it('testScenario gives a mean over the trials of an event its event and observations', async () => {
    const v = validateText('k.yaml', readFileSync(path.join(ROOT, 'scenarios/fantasy/engines-vs-wall.yaml'), 'utf8').replace(/\nexpect:[\s\S]*$/, '') + '\nexpect:\n  - { metric: mean_breach_round, at_least: 0 }\n  - { metric: p_breach, at_least: 0 }\n');
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const r = await testScenario(v.value, { trials: 500 });
    const mean = r.assertions.find((x) => x.metric === 'mean_breach_round')!;
    expect(mean.over).toEqual({ event: 'p_breach', n: r.result.cases[mean.case - 1].metrics.mean_breach_round.n });
    expect(r.assertions.find((x) => x.metric === 'p_breach')!.over).toBeUndefined();
  }, 60_000);

  it('exact: the distance from the exact answer and the z it was judged on', () => {
    const ex = (z: number, verdict: AssertionResult['verdict']) => relationText(a({ kind: 'exact' }, verdict, 0.49, 0.5, { value: 0.495, exact: { value: 0.52, z } }));
    expect(ex(-6.1, 'fail')).toBe('is below the exact answer 0.52 by 0.025 (z = -6.10; |z| over 4.5 fails)');
    expect(ex(-3.9, 'inconclusive')).toBe('is below the exact answer 0.52 by 0.025 (z = -3.90: over 3.29 to pass, not over 4.5 to fail)');
  });

  it('inconclusive: which end of the bound it straddles, undecided at the cap; no interval at all is said so', () => {
    expect(assertionMessage(a({ kind: 'at_least', low: 0.5 }, 'inconclusive', 0.49, 0.51))).toBe(
      'p_attacker_wins = 0.5 [0.49, 0.51] straddles the lower bound 0.5 (99.9% interval, still undecided at the cap of 320,000 trials)',
    );
    expect(relationText(a({ kind: 'between', low: 0.3, high: 0.4 }, 'inconclusive', 0.39, 0.41))).toBe('straddles the bound [0.3, 0.4] at 0.4');
    expect(relationText(a({ kind: 'between', low: 0.3, high: 0.4 }, 'inconclusive', 0.29, 0.31))).toBe('straddles the bound [0.3, 0.4] at 0.3');
    expect(relationText(a({ kind: 'between', low: 0.3, high: 0.31 }, 'inconclusive', 0.29, 0.32))).toBe('straddles the bound [0.3, 0.31] at both ends');
    expect(relationText(a({ kind: 'at_most', high: 2 }, 'inconclusive', NaN, NaN))).toBe('has no interval to judge against the upper bound 2 (too few observations)');
  });

  it('a mean with no interval says how many trials gave it a value, and the hint is not "move the bound" (more trials cannot decide it)', async () => {
    const none = a({ kind: 'at_most', high: 1.5 }, 'inconclusive', NaN, NaN, { metric: 'mean_breach_round', observations: 0 });
    expect(relationText(none)).toBe('has no interval to judge against the upper bound 1.5: 0 of 320,000 trials gave it a value, and a mean needs 2');
    const straddles = a({ kind: 'at_least', low: 0.5 }, 'inconclusive', 0.49, 0.51);
    const result = (...assertions: AssertionResult[]) => ({ assertions }) as unknown as ScenarioTestResult;
    expect(testFooter([result(none)], false, 0).slice(1)).toEqual([MSG.testNoIntervalHint()]);
    expect(testFooter([result(straddles)], false, 0).slice(1)).toEqual([MSG.testInconclusiveHint()]);
    expect(testFooter([result(none, straddles)], false, 0).slice(1)).toEqual([MSG.testInconclusiveHint(), MSG.testNoIntervalHint()]);
    // for real: a wall no one can breach (a threshold above the attackers), so mean_breach_round has no observation at the cap
    const v = scenario(`name: w
system: fantasy
seed: 23
trials: 1000
mode: siege
attacker: { infantry: 8, cavalry: 3 }
defender: { infantry: 8 }
wall: { type: stone, breach_threshold: 40 }
rules: { tower_bonus: none }
max_rounds: 10
expect:
  - { metric: mean_breach_round, at_most: 1.5 }
`);
    const r = await testScenario(v, { maxTrials: 2000 });
    expect(r.assertions.map((x) => [x.verdict, x.observations, x.trials])).toEqual([['inconclusive', 0, 2000]]);
    expect(assertionMessage(r.assertions[0])).toBe(
      'mean_breach_round = n/a [n/a, n/a] has no interval to judge against the upper bound 1.5: 0 of 2,000 trials gave it a value, and a mean needs 2 (99.9% interval, still undecided at the cap of 2,000 trials)',
    );
    // the console block says over which trials the mean is taken (the new-user audit)
    expect(testLines(r).at(-1)).toBe('  mean_breach_round (a mean over the trials with p_breach)');
  });

  it('exact: true on a mean no trial gave a value prints no z (it passed as "z = 0.00" before): inconclusive, and more trials decide it', async () => {
    // the wall at DC 20: the exact p_breach is 0.0124, and 20 trials see no breach (seed 24)
    const text = `name: w
system: fantasy
seed: 24
trials: 20
mode: siege
attacker: { infantry: 8, cavalry: 3 }
defender: { infantry: 8 }
wall: { type: stone, breach_threshold: 4, dc: 20 }
rules: { tower_bonus: none }
max_rounds: 10
expect:
  - { metric: mean_breach_round, exact: true }
`;
    const first = await testScenario(scenario(text), { maxTrials: 20 });
    const [x] = first.assertions;
    expect([x.verdict, x.observations, x.trials, x.boundText]).toEqual(['inconclusive', 0, 20, 'exact 3.2567 (no z)']);
    expect(x.exact?.z).toBeNaN();
    expect(assertionMessage(x)).toBe(
      `mean_breach_round = n/a [n/a, n/a] ${MSG.testExactNoZ('3.2567', 0, '20')} (99.9% interval, still undecided at the cap of 20 trials)`,
    );
    expect(testFooter([first], false, 0).slice(1)).toEqual([MSG.testNoIntervalHint()]);
    // the JUnit testcase keeps the name it has when there is a z (CI tools track a testcase by name)
    expect(junitXml([first], false)).toContain('<testcase name="mean_breach_round exact 3.2567" ');
    // with room for more looks the point runs on until breaches give the mean values, and is judged on a z
    const later = await testScenario(scenario(text), { maxTrials: 320 });
    expect(later.assertions[0].verdict).toBe('pass');
    expect(later.assertions[0].trials).toBeGreaterThan(20);
    expect(Number.isFinite(later.assertions[0].exact?.z)).toBe(true);
  });
});

describe("check's FAIL sentence", () => {
  it('names the case, and says a z that is not a number (an exact answer with no value where trials gave one) in words, not "z = NaN"', async () => {
    const { checkFailText } = await import('../src/cli/commands/check.js');
    const row = { case: 3, variant: 'above-dc', metric: 'mean_breach_round', simulated: 4.5, exact: NaN, n: 12, z: NaN };
    expect(checkFailText('keep', 'keep.yaml', 'wall.dc=16, variant above-dc', row, 4.5)).toBe(
      `FAIL  keep (keep.yaml) case 3 (wall.dc=16, variant above-dc): mean_breach_round simulated 4.500000, exact n/a, z = ${MSG.checkExactUndefined('12')}, |z| over the limit 4.5 (12 observations)`,
    );
    expect(checkFailText('keep', 'keep.yaml', '', { ...row, exact: 4, z: 5.123 }, 4.5)).toBe(
      'FAIL  keep (keep.yaml) case 3: mean_breach_round simulated 4.500000, exact 4.000000, z = 5.12, |z| over the limit 4.5 (12 observations)',
    );
  });
});
