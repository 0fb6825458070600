#!/usr/bin/env node
/**
 * Mutation testing, one module at a time (docs/mutation.md).
 *
 *   npm run mutate                 every module below, then one table of scores
 *   npm run mutate -- diff expect  only those modules
 *   npm run mutate -- --list       the modules, what each mutates and the tests it runs
 *   npm run mutate -- --incremental diff   reuse reports/mutation/<module>.incremental.json
 *   npm run mutate -- --static diff        also static mutants (module-level code), ~3x slower
 *
 * Each module is one Stryker run (@stryker-mutator/core with its vitest runner) that mutates
 * only the module's files (or line ranges, `file.ts:start-end`) and runs only the in-process test
 * files that exercise it, with per-test coverage: a mutant runs only the tests that reach it.
 * The score is Stryker's "score of covered code": (killed + timeout) / (killed + timeout +
 * survived); mutants no selected test reaches are counted apart (no coverage). It is a lower
 * bound: the e2e tests, which run the built CLI, are not selected.
 *
 * One Stryker worker (concurrency 1; MUTATE_CONCURRENCY sets more) and one vitest worker: the machine's two cores are shared.
 * Nothing is downloaded: Stryker and its runner are devDependencies. The worker pool of the
 * tests that run through piscina loads dist/ (unmutated), so the script builds dist/ when it is
 * missing; those tests only kill mutants of code they run in-process.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The bar every module's score must reach: killed + timeout over covered mutants. */
const BAR = 0.9;

/**
 * A line that writes a kernel's accumulator: `acc[...] +=` (or `=`, `-=`), and `dst[...] +=` in a
 * helper that is handed the accumulator.
 */
const ACC_WRITE = /\b(?:acc|dst)\[.*\]\s*[-+*]?=(?!=)/;
/** Fantasy's round records, kept as changes (record.ts noteTypeLoss, noteWall; volley.ts memoApply writes through noteTypeLoss): `d[k] -= dead`, `d[k + 1] += …`. */
const ROUND_CHANGE = /\bd\[k\d*(?: \+ 1)?\]\s*[-+]=/;

/**
 * Part of a file, chosen by what its lines say rather than by line numbers, which move as the
 * file is edited: every line matching one of `lines`, as Stryker line ranges (`file:start-end`,
 * consecutive lines merged). `why` says what the lines are (`--list` prints it).
 */
function linesOf(file, lines, why) {
  return { file, lines, why };
}

/** A module's mutate entries as Stryker takes them: files, and line ranges for a `linesOf` part. */
export function mutatePatterns(mod, root = ROOT) {
  return mod.mutate.flatMap((m) => {
    if (typeof m === 'string') return [m];
    const text = readFileSync(resolve(root, m.file), 'utf8').split('\n');
    const hits = [];
    text.forEach((line, i) => {
      if (m.lines.some((re) => re.test(line))) hits.push(i + 1);
    });
    if (hits.length === 0) throw new Error(`${m.file}: no line is ${m.why}`);
    const ranges = [];
    for (const l of hits) {
      const last = ranges.at(-1);
      if (last && last[1] === l - 1) last[1] = l;
      else ranges.push([l, l]);
    }
    return ranges.map(([a, b]) => `${m.file}:${a}-${b}`);
  });
}

/**
 * The modules: what each mutates and the test files that exercise it: the unit tests of the
 * module first, and only those simulation-heavy files without which it would lose kills (every
 * surviving mutant runs every test that reaches it, and a test file that runs 200 000 trials is
 * seconds per mutant on a shared machine). A kernel mutates its
 * accumulator bookkeeping only: the lines that write `acc`, chosen by what they say (`linesOf`),
 * so they need no re-pointing when the rules code around them moves (surrender's kernel is all
 * bookkeeping and dice: all of it); the rules themselves are held to exact answers by
 * `siegesim check` and the statistical tests.
 */
export const MODULES = {
  intervals: {
    mutate: ['src/stats/intervals.ts'],
    tests: ['test/stats.test.ts', 'test/stats-edges.test.ts', 'test/diff.test.ts'],
  },
  expect: {
    mutate: ['src/scenario/expect.ts'],
    tests: ['test/expect-edges.test.ts', 'test/scenario.test.ts'],
  },
  diff: {
    mutate: ['src/api/diff.ts'],
    tests: ['test/diff.test.ts', 'test/diff-edges.test.ts'],
  },
  'surrender-summarize': {
    mutate: ['src/systems/surrender/summarize.ts'],
    tests: ['test/summarize-acc.test.ts'],
  },
  'surrender-kernel': {
    mutate: ['src/systems/surrender/kernel.ts'],
    tests: ['test/surrender.test.ts'],
  },
  'fantasy-summarize': {
    mutate: ['src/systems/fantasy/summarize.ts'],
    tests: ['test/summarize-acc.test.ts'],
  },
  'cry-havoc-summarize': {
    mutate: ['src/systems/cry-havoc/summarize.ts'],
    tests: ['test/summarize-acc.test.ts'],
  },
  'cry-havoc-kernel': {
    mutate: [
      linesOf(
        'src/systems/cry-havoc/kernel.ts',
        [ACC_WRITE, /^\s*if \((end === 1 \|\| end === 2|dead|breached|burning > 0)\) \{$/, /const lost = start - pts|\bout\+\+|turnsBurning\+\+/],
        'a line that writes the accumulator, or decides or computes what one writes',
      ),
    ],
    tests: ['test/kernel-acc-cry-havoc.test.ts'],
  },
  'fantasy-kernel': {
    mutate: ['kernel', 'open-field', 'record', 'siege'].map((f) =>
      linesOf(`src/systems/fantasy/${f}.ts`, [ACC_WRITE, ROUND_CHANGE], 'a line that writes the accumulator or a round record\'s change'),
    ),
    tests: ['test/kernel-acc-fantasy.test.ts', 'test/fantasy-records.test.ts'],
  },
  'crusader-rex-kernel': {
    mutate: ['closed-field-path', 'field-run-path', 'volley-path', 'table-path'].map((f) =>
      linesOf(`src/systems/crusader-rex/${f}.ts`, [ACC_WRITE], 'a line that writes the accumulator'),
    ),
    tests: ['test/kernel-acc-crusader-rex.test.ts'],
  },
  'crusader-rex-summarize': {
    mutate: ['src/systems/crusader-rex/summarize.ts'],
    tests: ['test/summarize-acc.test.ts'],
  },
  // a chunk: its variants on the same dice, paired from rows, one-hot codes or outcome codes
  'engine-chunk': {
    mutate: ['src/engine/chunk.ts'],
    tests: ['test/engine-pairing.test.ts', 'test/engine-slices.test.ts'],
  },
};

/**
 * Surviving mutants that no test can kill, each with why: matched on file, mutator, the source
 * text it replaced and its replacement (not on line numbers, which move). They still count as
 * survivors in the score; the table says how many of a module's survivors are listed here.
 */
export const EQUIVALENT = [
  // src/stats/intervals.ts (docs/mutation.md)
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "!(m.n > 0)", replacement: "false", reason: "with n = 0 the moments are (0, 0, 0): the unguarded mean and se are 0/0 = NaN, as NO_ESTIMATE" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "m.n > 0", replacement: "true", reason: "with n = 0 the moments are (0, 0, 0): the unguarded mean and se are 0/0 = NaN, as NO_ESTIMATE" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "m.n > 0", replacement: "m.n >= 0", reason: "with n = 0 the moments are (0, 0, 0): the unguarded mean and se are 0/0 = NaN, as NO_ESTIMATE" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "!(variant.n > 0) || !(baseline.n > 0)", replacement: "false", reason: "with either n = 0 its moments are (0, 0, 0): 0/0 makes the SE NaN, as the guard does" },
  { file: 'src/stats/intervals.ts', mutator: "LogicalOperator", original: "!(variant.n > 0) || !(baseline.n > 0)", replacement: "!(variant.n > 0) && !(baseline.n > 0)", reason: "with either n = 0 its moments are (0, 0, 0): 0/0 makes the SE NaN, as the guard does" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "variant.n > 0", replacement: "true", reason: "with either n = 0 its moments are (0, 0, 0): 0/0 makes the SE NaN, as the guard does" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "variant.n > 0", replacement: "variant.n >= 0", reason: "with either n = 0 its moments are (0, 0, 0): 0/0 makes the SE NaN, as the guard does" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "baseline.n > 0", replacement: "true", reason: "with either n = 0 its moments are (0, 0, 0): 0/0 makes the SE NaN, as the guard does" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "baseline.n > 0", replacement: "baseline.n >= 0", reason: "with either n = 0 its moments are (0, 0, 0): 0/0 makes the SE NaN, as the guard does" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "Math.abs(d) < 1e-9 * Math.max(1, Math.abs(exact))", replacement: "Math.abs(d) <= 1e-9 * Math.max(1, Math.abs(exact))", reason: "a difference exactly at the rounding threshold: no exact answer sits on it" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "s === 0", replacement: "false", reason: "d is not 0 here (checked above), and d / 0 is the same signed infinity" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "d > 0", replacement: "d >= 0", reason: "d is not 0 here (checked above), and d / 0 is the same signed infinity" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "u < 0.02425", replacement: "u <= 0.02425", reason: "at the region boundary both rational approximations agree to their 1.2e-9" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "u > 1 - 0.02425", replacement: "u >= 1 - 0.02425", reason: "at the region boundary both rational approximations agree to their 1.2e-9" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "p > 0.5", replacement: "false", reason: "at p = 1/2 counting the other outcome is the same sum (symmetry)" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "p > 0.5", replacement: "p >= 0.5", reason: "at p = 1/2 counting the other outcome is the same sum (symmetry)" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "p <= 0", replacement: "false", reason: "the general sum at p = 0 gives the same tails (pmf(0) = 1, then exp(-Infinity) = 0)" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "p <= 0", replacement: "p < 0", reason: "the general sum at p = 0 gives the same tails (pmf(0) = 1, then exp(-Infinity) = 0)" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "t < tail * 1e-17", replacement: "t <= tail * 1e-17", reason: "the early stop only skips terms below 1e-17 of the sum, which come past the mode (above n p)" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "i > n * p", replacement: "true", reason: "the early stop only skips terms below 1e-17 of the sum, which come past the mode (above n p)" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "i > n * p", replacement: "i >= n * p", reason: "the early stop only skips terms below 1e-17 of the sum, which come past the mode (above n p)" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "Math.abs(d) < 1e-12", replacement: "Math.abs(d) <= 1e-12", reason: "a difference exactly at the rounding threshold: no exact answer sits on it" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "v === 0", replacement: "false", reason: "v = 0: the exact-binomial path gives the same signed infinity (a tail of 0)" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "tail >= 0.5", replacement: "tail > 0.5", reason: "at a tail of exactly 1/2 the z is normalQuantile(0.5) = 0 as well" },
  { file: 'src/stats/intervals.ts', mutator: "EqualityOperator", original: "Math.abs(d) < 1e-9 * Math.max(1, Math.abs(mu))", replacement: "Math.abs(d) <= 1e-9 * Math.max(1, Math.abs(mu))", reason: "a difference exactly at the rounding threshold: no exact answer sits on it" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "se === 0", replacement: "false", reason: "se = 0 and d is not 0: d / 0 is the same signed infinity; d === 0 is unreachable after the rounding check" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "d === 0", replacement: "false", reason: "se = 0 and d is not 0: d / 0 is the same signed infinity; d === 0 is unreachable after the rounding check" },
  { file: 'src/stats/intervals.ts', mutator: "ConditionalExpression", original: "Number.isNaN(z)", replacement: "false", reason: "a NaN z gives a NaN tail, and Math.min(1, NaN) is NaN as well" },
  // src/systems/cry-havoc/kernel.ts
  { file: 'src/systems/cry-havoc/kernel.ts', mutator: 'ConditionalExpression', original: 'days <= c.horizon', replacement: 'true', reason: 'a day past the horizon indexes past the end of the accumulator (its by-day slots stop there), and a Float64Array drops a write past its end' },
  // src/systems/fantasy kernel modules (bookkeeping lines)
  { file: 'src/systems/fantasy/open-field.ts', mutator: 'ConditionalExpression', original: 'through <= c.maxVolley', replacement: 'true', reason: "the first volley's damage after shields is never above maxVolley (3 a mage, 2 an archer; kernel-acc-fantasy checks it): the histogram's clamp never applies" },
  { file: 'src/systems/fantasy/open-field.ts', mutator: 'EqualityOperator', original: 'through <= c.maxVolley', replacement: 'through < c.maxVolley', reason: 'at through = maxVolley both branches give maxVolley' },
  { file: 'src/systems/fantasy/record.ts', mutator: 'ConditionalExpression', original: 'run !== 0', replacement: 'true', reason: 'the check only skips adding a sum of 0 to a round (flushRecords)' },
  // src/systems/crusader-rex/{volley-path,table-path}.ts (bookkeeping lines)
  { file: 'src/systems/crusader-rex/volley-path.ts', mutator: 'ConditionalExpression', original: 'guard > 0', replacement: 'false', reason: 'the action guard is a loop cap no battle reaches (kernel-acc-crusader-rex checks [13] is 0 in every trial): nothing to count' },
  { file: 'src/systems/crusader-rex/table-path.ts', mutator: 'ConditionalExpression', original: 'run !== 0', replacement: 'true', reason: 'the check only skips adding 0 to the tail records' },
  { file: 'src/systems/crusader-rex/closed-field-path.ts', mutator: 'EqualityOperator', original: 'sd === def', replacement: 'sd !== def', reason: "each side's final-steps histogram counts every contested trial once: the attacker's counts add up to the same defender-holds total" },
  { file: 'src/systems/crusader-rex/closed-field-path.ts', mutator: 'AssignmentOperator', original: 'acc[A_BOTH_GONE] += bothGone', replacement: 'acc[A_BOTH_GONE] -= bothGone', reason: "bothGone is always 0: no closed field battle ends with both sides gone: without a charge a side's runs only hit the other side and an eliminated side scores nothing, and a scenario has at least one block" },
  { file: 'src/systems/crusader-rex/closed-field-path.ts', mutator: 'AssignmentOperator', original: 'acc[A_BOTH_GONE] += 1', replacement: 'acc[A_BOTH_GONE] -= 1', reason: "never run: no closed field battle ends with both sides gone: without a charge a side's runs only hit the other side and an eliminated side scores nothing, and a scenario has at least one block" },
  { file: 'src/systems/crusader-rex/closed-field-path.ts', mutator: 'ConditionalExpression', original: 'defIn', replacement: 'true', reason: "differs only when both sides are gone: no closed field battle ends with both sides gone: without a charge a side's runs only hit the other side and an eliminated side scores nothing, and a scenario has at least one block" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'LogicalOperator', original: 'attIn && !defIn', replacement: 'attIn || !defIn', reason: "the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'ConditionalExpression', original: 'defIn && !attIn', replacement: 'true', reason: "the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'LogicalOperator', original: 'defIn && !attIn', replacement: 'defIn || !attIn', reason: "the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'ConditionalExpression', original: 'attIn && defIn', replacement: 'true', reason: "never run: the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'ConditionalExpression', original: 'attIn && defIn', replacement: 'false', reason: "never run: the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'LogicalOperator', original: 'attIn && defIn', replacement: 'attIn || defIn', reason: "never run: the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'AssignmentOperator', original: 'acc[A_CONTINUES] += 1', replacement: 'acc[A_CONTINUES] -= 1', reason: "never run: the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/field-run-path.ts', mutator: 'AssignmentOperator', original: 'acc[A_BOTH_GONE] += 1', replacement: 'acc[A_BOTH_GONE] -= 1', reason: "never run: the field run path never ends with both sides in the town (the attacker leaves a contested field) or both gone (no harry; a charge that takes the charger's last step has rolled only sixes, no hit): the branches differ only there" },
  { file: 'src/systems/crusader-rex/volley-path.ts', mutator: 'LogicalOperator', original: 'attIn && defIn', replacement: 'attIn || defIn', reason: 'after the two branches before it attIn equals defIn, where || and && agree' },
  { file: 'src/systems/crusader-rex/volley-path.ts', mutator: 'AssignmentOperator', original: 'acc[A_GUARD] += 1', replacement: 'acc[A_GUARD] -= 1', reason: 'never run: the action guard (200 actions in a round) is a loop cap no battle reaches, each of at most 40 blocks acting once a round' },
  // src/systems/cry-havoc/summarize.ts
  { file: 'src/systems/cry-havoc/summarize.ts', mutator: 'BooleanLiteral', original: 'false', replacement: 'true', reason: "reading the mounted table twice instead of both tables: it has every letter of the foot table (summarize-acc checks), so the set of names is the same, in the same order" },
  // src/systems/crusader-rex/summarize.ts
  { file: 'src/systems/crusader-rex/summarize.ts', mutator: 'EqualityOperator', original: 'side < 2', replacement: 'side <= 2', reason: "the survivors curve's side 2 has no maxTotal: `s <= undefined` is false and it adds no point (the attrition loop's side < 2 is killed)" },
  // src/api/diff.ts
  { file: 'src/api/diff.ts', mutator: 'BooleanLiteral', original: 'false', replacement: 'true', reason: "a row's moved is a placeholder: diffSets sets it from the Holm-adjusted p for every row before returning" },
  // src/scenario/expect.ts
  { file: 'src/scenario/expect.ts', mutator: 'EqualityOperator', original: 'vi < nVariants', replacement: 'vi <= nVariants', reason: 'one past the last variant metricsAt[pi][vi] is undefined, and `?.has` skips it as it skips a variant that failed' },
  { file: 'src/scenario/expect.ts', mutator: 'ConditionalExpression', original: 'ctx.points !== undefined && ctx.points.length === ctx.axes.reduce((n, a) => n * a.values.length, 1)', replacement: 'false', reason: "the whole-grid path only saves work: the other path finds the same points, matching each point's values, in the same order" },
  { file: 'src/scenario/expect.ts', mutator: 'ArrowFunction', original: '(n, a) => n * a.values.length', replacement: '() => undefined', reason: "the whole-grid path only saves work: the other path finds the same points, matching each point's values, in the same order" },
  { file: 'src/scenario/expect.ts', mutator: 'ArithmeticOperator', original: 'n * a.values.length', replacement: 'n / a.values.length', reason: "the whole-grid path only saves work: the other path finds the same points, matching each point's values, in the same order" },
  { file: 'src/scenario/expect.ts', mutator: 'ConditionalExpression', original: '!grid', replacement: 'true', reason: "the whole-grid path only saves work: the other path finds the same points, matching each point's values, in the same order" },
  { file: 'src/scenario/expect.ts', mutator: 'ConditionalExpression', original: '!r', replacement: 'true', reason: 'items selecting the same cases share one list only to save work: computed again for each, the list is the same' },
  // src/engine/chunk.ts (docs/mutation.md)
  { file: "src/engine/chunk.ts", mutator: "OptionalChaining", original: "task.pairedSlots[0]?.length", replacement: "task.pairedSlots[0].length", reason: "a task's pairedSlots has one entry per case (api/run.ts jobsOf; a chunk has at least the baseline), so entry 0 is always there" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "V > 1", replacement: "true", reason: "with one case step() makes its one kernel call and returns (V === 1) before any trace is read: the traces made are never used" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "V > 1", replacement: "V >= 1", reason: "with one case step() makes its one kernel call and returns (V === 1) before any trace is read: the traces made are never used" },
  { file: "src/engine/chunk.ts", mutator: "MethodExpression", original: "Math.min(PAIR_BLOCK, task.trials)", replacement: "Math.max(PAIR_BLOCK, task.trials)", reason: "a larger rows buffer than a block needs: only a block's rows are written and read" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "p < P", replacement: "p <= P", reason: "one past the last metric: an entry (byCode[P], before[v * P + P], the next case's first, set again before it is read) or a slot (pairedSlots[v][P], undefined) that nothing reads" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "task.pairedSlots[v][p] >= 0", replacement: "true", reason: "a metric a case does not pair then sends it to the traced rows instead of the codes: both ways give the same whole-number sums to the bit (the block-by-block tests compare them with the trial-by-trial pairing)" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "task.pairedSlots[v][p] >= 0", replacement: "task.pairedSlots[v][p] > 0", reason: "slot 0 is no case's paired slot: it is the trial count, which a kernel adds once a call, before its loop (the Kernel contract), so it has no per-trial value to pair (every bundled case: none pairs slot 0)" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "slots[p] < 0", replacement: "slots[p] <= 0", reason: "slot 0 is no case's paired slot: it is the trial count, which a kernel adds once a call, before its loop (the Kernel contract), so it has no per-trial value to pair (every bundled case: none pairs slot 0)" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "task.pairedSlots[v][p] < 0", replacement: "task.pairedSlots[v][p] <= 0", reason: "slot 0 is no case's paired slot: it is the trial count, which a kernel adds once a call, before its loop (the Kernel contract), so it has no per-trial value to pair (every bundled case: none pairs slot 0)" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "slots[p] < 0", replacement: "false", reason: "keepBefore for a metric the case does not pair: its before value (acc[-1], undefined) is never read, its column being -1; the baseline pairs every metric" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "own.length === 0 && !coded", replacement: "false", reason: "a trace with no slots for a case that pairs nothing: every column of it is -1, so nothing it writes is read" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "V === 1", replacement: "false", reason: "one case through the general loop: no traces (the constructor makes none for one case), so one call of the step's trials on the same stream and accumulator, none for 0 trials (the one-variant test sees the calls)" },
  { file: "src/engine/chunk.ts", mutator: "BlockStatement", original: "{\n      if (k > 0) this.kernel.run(task.compiled[0], stream, k, accs[0]); // one call: the kernel draws each trial's stream\n      return k;\n    }", replacement: "{}", reason: "one case through the general loop: no traces (the constructor makes none for one case), so one call of the step's trials on the same stream and accumulator, none for 0 trials (the one-variant test sees the calls)" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "v > 0", replacement: "true", reason: "stream.set(start) for the baseline too: start was copied from the stream just before" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "v > 0", replacement: "v >= 0", reason: "stream.set(start) for the baseline too: start was copied from the stream just before" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "v < V", replacement: "v <= V", reason: "one past the last case: traces[V] is undefined, and the loop passes over it" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "counted && PAIR_COUNT.length < Kv * K0", replacement: "true", reason: "the count scratch made again (zeroed) or larger than needed: the same counts" },
  { file: "src/engine/chunk.ts", mutator: "LogicalOperator", original: "counted && PAIR_COUNT.length < Kv * K0", replacement: "counted || PAIR_COUNT.length < Kv * K0", reason: "the count scratch made again (zeroed) or larger than needed: the same counts" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "PAIR_COUNT.length < Kv * K0", replacement: "true", reason: "the count scratch made again (zeroed) or larger than needed: the same counts" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "PAIR_COUNT.length < Kv * K0", replacement: "PAIR_COUNT.length <= Kv * K0", reason: "the count scratch made again (zeroed) or larger than needed: the same counts" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "PAIR_MET.length < b", replacement: "true", reason: "the scratch made again or larger than needed: every entry read is written in the same block first" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "PAIR_MET.length < b", replacement: "PAIR_MET.length <= b", reason: "the scratch made again or larger than needed: every entry read is written in the same block first" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "PAIR_ROWS.length < 3 * b", replacement: "true", reason: "the scratch made again or larger than needed: every entry read is written in the same block first" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "PAIR_ROWS.length < 3 * b", replacement: "PAIR_ROWS.length <= 3 * b", reason: "the scratch made again or larger than needed: every entry read is written in the same block first" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "counted", replacement: "true", reason: "the refusal's reset of the count cells met, trial by trial: met[0..m) then holds cells of earlier blocks, already zero (and m <= b <= met's length)" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "i < m", replacement: "i <= m", reason: "one past the pairs met: met[m] is a cell of an earlier block (already zero) or this block's (zeroed by then); the row it writes, index m, is past the 3m the sums read" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "m < metrics.length", replacement: "m <= metrics.length", reason: "one past the metrics: metrics[m + 1] is undefined, so j is NaN, and a Float64Array drops a write at a NaN index" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "task.pairedCodes !== undefined", replacement: "true", reason: "a chunk with pairedCodes: undefined is one without it: only the value is read (the constructor, `task.pairedCodes`)" },
  // src/engine/chunk.ts, BatchRun and the outcome codes' scratch (docs/mutation.md)
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "v >= OUTCOME_SCRATCH_KEPT", replacement: "true", reason: "outcomeScratch: a variant's codes in a new array instead of the thread's kept one, or kept past the first 64 variants: every code read is written by the same step's calls first" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "v >= OUTCOME_SCRATCH_KEPT", replacement: "false", reason: "outcomeScratch: a variant's codes in a new array instead of the thread's kept one, or kept past the first 64 variants: every code read is written by the same step's calls first" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "v >= OUTCOME_SCRATCH_KEPT", replacement: "v > OUTCOME_SCRATCH_KEPT", reason: "outcomeScratch: a variant's codes in a new array instead of the thread's kept one, or kept past the first 64 variants: every code read is written by the same step's calls first" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "v >= OUTCOME_SCRATCH_KEPT", replacement: "v < OUTCOME_SCRATCH_KEPT", reason: "outcomeScratch: a variant's codes in a new array instead of the thread's kept one, or kept past the first 64 variants: every code read is written by the same step's calls first" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "a === undefined || a.length < trials", replacement: "true", reason: "outcomeScratch: the thread's kept codes array made again (the same size or larger): every code read is written by the same step's calls first" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "a.length < trials", replacement: "a.length <= trials", reason: "outcomeScratch: the thread's kept codes array made again (the same size or larger): every code read is written by the same step's calls first" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "this.byOutcome", replacement: "true", reason: "the constructor's list of each variant's codes filled outside outcome mode too (NO_CODES each): step reads it only in outcome mode (pairOutcomes)" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "k > 0", replacement: "true", reason: "close's guard: BatchRun closes only pieces of at least one trial (a chunk that opens 0 is passed over), and pairOutcomes of 0 trials adds nothing" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "k > 0", replacement: "k >= 0", reason: "close's guard: BatchRun closes only pieces of at least one trial (a chunk that opens 0 is passed over), and pairOutcomes of 0 trials adds nothing" },
  { file: "src/engine/chunk.ts", mutator: "ArrayDeclaration", original: "[]", replacement: "[\"Stryker was here\"]", reason: "BatchRun's codes, pieces and ks starting with an entry: pieces and ks are emptied at every step's start, codes[v] is set for every case before a step with variants reads it, and a one-case step's close reads none" },
  { file: "src/engine/chunk.ts", mutator: "ArrayDeclaration", original: "new Array<ChunkRun | undefined>(task.sizes.length)", replacement: "new Array()", reason: "BatchRun's runs made without its length: it is only read and written by index (runs[j] ??=, runs[j] = undefined)" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "this.j < this.task.sizes.length", replacement: "this.j <= this.task.sizes.length", reason: "skipDone past the last chunk: it makes a chunk of no size (sizes[j] undefined), which is not finished, so the loop stops; nothing plays or reads it, and finished is j >= sizes.length" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "total < limit", replacement: "true", reason: "the pieces' loop going on once the step has its trials: every later chunk opens 0 trials (limit - total is 0) and is passed over (k === 0)" },
  { file: "src/engine/chunk.ts", mutator: "EqualityOperator", original: "total < limit", replacement: "total <= limit", reason: "the pieces' loop going on once the step has its trials: every later chunk opens 0 trials (limit - total is 0) and is passed over (k === 0)" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "k === 0", replacement: "false", reason: "a chunk after the first unfinished one is untouched, so it opens 0 trials only if it has none; such a piece (a kernel call of 0 trials, holding or settling, and its close) leaves the batch's total the same" },
  { file: "src/engine/chunk.ts", mutator: "ConditionalExpression", original: "traces[v] === undefined", replacement: "false", reason: "a variant without a trace given a codes scratch anyway: play sets an outcome only on a trace, and pairOutcomes passes over a variant without one" },
  { file: 'src/api/diff.ts', mutator: 'EqualityOperator', original: 'adjusted[i] <= alpha', replacement: 'adjusted[i] < alpha', reason: 'differs only when an adjusted p equals alpha to the last bit, which no p-value from the normal tail does' },
];

const ROOT = resolve(import.meta.dirname, '..');
const OUT = resolve(ROOT, 'reports/mutation');

function usage(msg) {
  if (msg) console.error(msg);
  console.error(`usage: npm run mutate [-- [--incremental] [--static] [--list] [module ...]]\nmodules: ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}

function parseArgs(argv) {
  const names = [];
  let incremental = false;
  let list = false;
  let statics = false;
  for (const a of argv) {
    if (a === '--incremental') incremental = true;
    else if (a === '--list') list = true;
    else if (a === '--static') statics = true;
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (!(a in MODULES)) usage(`unknown module "${a}"`);
    else names.push(a);
  }
  return { names: names.length ? names : Object.keys(MODULES), incremental, list, statics };
}

/** The source text a mutant replaced, from its location (lines and columns 1-based, end exclusive). */
function originalText(lines, loc) {
  const { start, end } = loc;
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  const out = [lines[start.line - 1].slice(start.column - 1)];
  for (let l = start.line; l < end.line - 1; l++) out.push(lines[l]);
  out.push(lines[end.line - 1].slice(0, end.column - 1));
  return out.join('\n');
}

function equivalentReason(m) {
  const e = EQUIVALENT.find(
    (q) => q.file === m.file && q.mutator === m.mutatorName && q.original === m.original && q.replacement === m.replacement,
  );
  return e?.reason;
}

/**
 * By default a mutant's test files share one load of the modules (vitest.mutate.config.ts,
 * isolate: false), ~3x faster; each mutant's run loads them anew, but Stryker switches the mutant
 * on in a beforeAll hook, after the test file's imports: a static mutant (one in code run once,
 * when its module loads: a table of metric definitions, a module-level Set) then never takes
 * effect, so static mutants are left out (Stryker's ignoreStatic) and counted apart. `--static`
 * reloads the modules for every run (the project's vitest.config.ts) and tests static mutants too.
 */
async function runModule(name, { incremental, statics }) {
  const { Stryker } = await import('@stryker-mutator/core');
  const mod = MODULES[name];
  mkdirSync(OUT, { recursive: true });
  const started = Date.now();
  const stryker = new Stryker({
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner'],
    vitest: { configFile: statics ? 'vitest.config.ts' : 'vitest.mutate.config.ts', related: false },
    ignoreStatic: !statics,
    coverageAnalysis: 'perTest',
    mutate: mutatePatterns(mod),
    testFiles: mod.tests,
    concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 1),
    // the suite's tests are written to pass on a loaded machine; a mutant that loops is cut off
    timeoutMS: 10_000,
    reporters: ['json', 'html', 'progress-append-only'],
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    incremental,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    tempDirName: '.stryker-tmp',
    cleanTempDir: true,
    ignorePatterns: ['/bench', '/docs', '/test-artifacts', '/dist/cli/*.map'],
    logLevel: 'warn',
    fileLogLevel: 'off',
    allowConsoleColors: false,
  });
  const results = await stryker.runMutationTest();
  const seconds = (Date.now() - started) / 1000;
  const sources = new Map();
  const count = { total: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0 };
  const survivors = [];
  for (const r of results) {
    count.total++;
    if (r.status === 'Killed') count.killed++;
    else if (r.status === 'Timeout') count.timeout++;
    else if (r.status === 'Survived' || r.status === 'NoCoverage') {
      if (r.status === 'Survived') count.survived++;
      else count.noCoverage++;
      const file = r.fileName.startsWith(ROOT) ? r.fileName.slice(ROOT.length + 1) : r.fileName;
      if (!sources.has(file)) sources.set(file, readFileSync(resolve(ROOT, file), 'utf8').split('\n'));
      const m = { file, line: r.location.start.line, mutatorName: r.mutatorName, status: r.status, original: originalText(sources.get(file), r.location), replacement: r.replacement ?? '' };
      m.equivalent = equivalentReason(m);
      survivors.push(m);
    } else if (r.status === 'Ignored') count.ignored++; // static mutants, without --static
    else count.errors++;
  }
  const detected = count.killed + count.timeout;
  const covered = detected + count.survived;
  const score = covered > 0 ? detected / covered : NaN;
  const row = { module: name, ...count, detected, covered, score, seconds, survivors };
  writeFileSync(resolve(OUT, `${name}.survivors.json`), JSON.stringify(row, null, 2) + '\n');
  return row;
}

function pct(x) {
  return Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`;
}

function printSurvivors(row) {
  for (const s of row.survivors) {
    const why = s.equivalent ? `  equivalent: ${s.equivalent}` : '';
    const status = s.status === 'NoCoverage' ? ' (no coverage)' : '';
    console.log(`  ${s.file}:${s.line}  ${s.mutatorName}  ${JSON.stringify(s.original)} -> ${JSON.stringify(s.replacement)}${status}${why}`);
  }
}

function printTable(rows) {
  console.log('\n| module | mutants | killed + timeout | survived (equivalent) | no coverage | static, not run | errors | score | time |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const eq = r.survivors.filter((s) => s.status === 'Survived' && s.equivalent).length;
    const mark = r.score >= BAR ? '' : ' (below 90%)';
    console.log(
      `| ${r.module} | ${r.total} | ${r.detected} | ${r.survived} (${eq}) | ${r.noCoverage} | ${r.ignored} | ${r.errors} | ${pct(r.score)}${mark} | ${r.seconds.toFixed(0)} s |`,
    );
  }
}

const { names, incremental, list, statics } = parseArgs(process.argv.slice(2));
if (list) {
  for (const n of names) {
    const parts = MODULES[n].mutate.map((m) => (typeof m === 'string' ? m : `${m.file} (lines: ${m.why})`));
    console.log(`${n}\n  mutate: ${parts.join(' ')}\n  lines:  ${mutatePatterns(MODULES[n]).join(' ')}\n  tests:  ${MODULES[n].tests.join(' ')}`);
  }
  process.exit(0);
}
process.chdir(ROOT);
if (!existsSync(resolve(ROOT, 'dist/workers/worker.js'))) {
  console.log('dist/ is not built: npm run build (the tests that start a worker pool load it)');
  execSync('npm run build', { stdio: 'inherit' });
}
const rows = [];
const t0 = Date.now();
for (const n of names) {
  console.log(`\n== ${n}: ${mutatePatterns(MODULES[n]).join(' ')}  (tests: ${MODULES[n].tests.join(' ')})`);
  const row = await runModule(n, { incremental, statics });
  printSurvivors(row);
  rows.push(row);
}
printTable(rows);
console.log(`\n${rows.length} module(s) in ${((Date.now() - t0) / 1000).toFixed(0)} s; reports in reports/mutation/`);
process.exitCode = rows.every((r) => !(r.score < BAR)) ? 0 : 1;
