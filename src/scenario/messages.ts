/** A key or value as shown in messages: at most 60 characters (a hostile file may hold a 200 000-character key). */
export function shortKey(key: string): string {
  const cut = key.length > 60 ? `${key.slice(0, 57)}...` : key;
  // a character a terminal shows as nothing (a byte-order mark or zero-width space pasted inside
  // a key, a control character) written as its code, so that "s\uFEFFet" is not read as "set"
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** A count that may be astronomically large (a sweep step of 1e-300), in words a reader can take in. */
export function bigCount(n: number): string {
  if (!Number.isFinite(n)) return 'more than 10^308';
  return n < 1e15 ? n.toLocaleString('en-US') : `about ${n.toExponential(1).replace('e+', ' x 10^')}`;
}

/** `shard 3` or `shards 3 to 16`. */
function shardRange(from: number, to: number): string {
  return from === to ? `shard ${from}` : `shards ${from} to ${to}`;
}

/** A limit in a message: whole numbers grouped (10,000,000,000), others as written. */
function limit(n: number): string {
  return Number.isInteger(n) && Math.abs(n) >= 10_000 ? n.toLocaleString('en-US') : String(n);
}

/** What diff's arguments are, in its messages about one that is not. */
const DIFF_TAKES = "diff compares two runs' results (report folders, folders of them, or summary.json files)";

/**
 * Every user-facing message about scenario input, in one catalogue (as vega-lite's
 * log/message.ts): tests compare against these functions, not against copied strings.
 */
export const MSG = {
  yamlSyntax: (detail: string) => `YAML syntax error: ${detail}`,
  /** A tab in a line's indentation (the YAML parser's knock-on errors on that line are not said). */
  tabIndent: () => 'YAML syntax error: Tabs are not allowed as indentation: this line is indented with a tab; YAML indents with spaces only (replace the tab with spaces)',
  /** A `{` or `[` never closed: said where it opens; `line`: where the parser gave up looking. */
  unclosedFlow: (open: string, close: string, line: number) => `YAML syntax error: this ${open} is never closed (reading reached line ${line} without its ${close})`,
  /** A key indented under one whose value is already on its line (YAML reads it as more of that value). */
  keyUnderValue: (key: string, above: string, aboveLine: number, aboveIndent: number) =>
    `YAML syntax error: "${shortKey(key)}:" is indented deeper than "${shortKey(above)}:" on line ${aboveLine}, which already has its value, so YAML reads it as more of that value; line it up with "${shortKey(above)}:" (column ${aboveIndent + 1}) to make it a key beside it`,
  /** A key of a mapping out of line with the key before it. */
  keyOutOfLine: (key: string, col: number, before: string, beforeLine: number, beforeCol: number) =>
    `YAML syntax error: "${shortKey(key)}:" starts in column ${col}, and "${shortKey(before)}:" before it on line ${beforeLine} in column ${beforeCol}: the keys of one mapping start in the same column`,
  notAMapping: () => 'a scenario must be a YAML mapping of keys to values',
  emptyFile: () => 'the file is empty: a scenario is a YAML mapping of keys to values (name:, system:, ...)',
  onlyComments: () => 'the file holds only comments: a scenario is a YAML mapping of keys to values (name:, system:, ...)',
  /** `hint`: the system's reason the key is not taken there (RulesSystem.unknownKeyHint). */
  unknownKey: (key: string, suggestion?: string, hint?: string) =>
    (key === '<<'
      ? 'unknown key "<<": YAML merge keys are not read in a scenario (anchors and aliases are): write the keys out'
      : suggestion
        ? `unknown key "${shortKey(key)}" (did you mean "${suggestion}"?)`
        : `unknown key "${shortKey(key)}"`) + (hint ? `: ${hint}` : ''),
  unknownSystem: (value: string, suggestion?: string, known: readonly string[] = []) =>
    `unknown system "${shortKey(value)}"` +
    (suggestion ? ` (did you mean "${suggestion}"?)` : ` (expected one of: ${known.join(', ')})`),
  missingKey: () => 'required key is missing',
  badPath: (path: string, suggestion?: string) =>
    `"${shortKey(path)}" is not a setting of this system` + (suggestion ? ` (did you mean "${suggestion}"?)` : ''),
  reservedPath: (path: string) => `"${shortKey(path)}" cannot be varied: only the system's own settings can`,
  inVariant: (variant: string, detail: string) => `in variant "${variant}": ${detail}`,
  inSweep: (value: unknown, detail: string) => `with sweep value ${shortKey(JSON.stringify(value))}: ${detail}`,
  /** A variant's name given again: where the first one stands, and why names must differ. */
  duplicateVariant: (name: string, firstLine: number) =>
    `variant name "${shortKey(name)}" is used twice (first on line ${firstLine}): give each variant its own name (the answer, its diff_ metrics and expect: items tell variants apart by name)`,
  sweepRange: () => 'a range needs from <= to and step > 0',
  /** A range whose step (or start) is fractional on a setting that takes whole numbers: said once, with the values it makes. */
  sweepNotWhole: (by: 'step' | 'from', value: number, fractional: readonly number[]) =>
    `${by === 'step' ? `the step ${value}` : `from: ${value}`} makes values that are not whole numbers ` +
    `(${fractional.length > 3 ? `${fractional[0]}, ${fractional[1]}, ..., ${fractional[fractional.length - 1]}` : fractional.join(', ')}) ` +
    `for a setting that takes whole numbers: use a whole ${by === 'step' ? 'step' : 'start'}`,
  sweepEmpty: () => 'a sweep list needs at least one value',
  /** A workbench sweep's path that is none of the scenario's number settings (the ones its sweep can take). */
  notSweepable: (path: string, suggestion?: string) =>
    `"${shortKey(path)}" is not a number setting of this scenario` + (suggestion ? ` (did you mean "${suggestion}"?)` : ''),
  /** A sweep list naming one value twice: two cases of the same setting, each with its own answer (and the count of cases off). */
  sweepRepeated: (value: unknown, first: number, again: number) =>
    `${shortKey(JSON.stringify(value))} is listed twice (items ${first + 1} and ${again + 1}): list each value once (the same setting would run as two cases, with two answers)`,
  /** A range whose step is below what 12 significant digits tell apart: two of its values would be one number, two cases with two answers. */
  sweepStepTooFine: (step: number, value: number) =>
    `the step ${step} is too fine for 12 significant digits: the range gives ${value} twice (each value is rounded to 12 significant digits); use a coarser step`,
  sweepNumbers: () => 'a sweep list here needs numbers',
  /** `parts`: what multiplies to n ("6 values of wall.hp", "3 variants"); `ranged`: an axis is a from/to/step range. */
  /** The cases' results would hold more numbers than LIMITS.resultNumbers (curves long in turns, rounds or days, times many cases). */
  resultsTooLarge: (n: number, cases: number, max: number, largest: number) =>
    `the ${cases.toLocaleString('en-US')} cases' results would hold ${bigCount(n)} numbers (their curves: up to ${largest.toLocaleString('en-US')} a case); at most ${max.toLocaleString('en-US')} are allowed: sweep fewer values, or fewer turns, rounds or days per case`,
  sweepTooLarge: (n: number, max: number, parts: readonly string[] = [], ranged = false, variants = 1) =>
    `the sweep would make ${bigCount(n)} cases${parts.length > 1 ? ` (${parts.join(' x ')})` : ''}; at most ${max.toLocaleString('en-US')} are allowed: ` +
    ['list fewer values', ...(ranged ? ['use a coarser step (or a narrower from/to) in a range'] : []), ...(variants > 1 ? ['have fewer variants'] : [])].join(', or '),
  /**
   * A variant after the first with no `set:`. Every variant's `set:` applies to the file as
   * written, not on top of the first variant's, so a set-less variant runs the file as written:
   * the same as the baseline when the baseline sets nothing (`baselineSets` false).
   */
  variantSetsNothing: (name: string, baseline: string, baselineSets = false) =>
    baselineSets
      ? `variant "${shortKey(name)}" sets nothing, so it would run the scenario as written (a variant's set: applies to the file as written, not on top of the baseline "${shortKey(baseline)}"'s set:): give it a set: { path: value }, or remove it`
      : `variant "${shortKey(name)}" sets nothing, so it would run the scenario as written, exactly as the baseline "${shortKey(baseline)}" does: give it a set: { path: value }, or remove it`,
  // --- values of the wrong kind (zod's own words, "expected int, received number", said plainly) ---
  notWholeNumber: (got: string) => `expected a whole number, got ${got}`,
  /** `want`: "a number", "true or false", "text"...; `got`: the value as written ("the text \"10\"", ".nan", "a list"). */
  wrongKind: (want: string, got: string, quotedNumber = false) =>
    `expected ${want}, got ${got}${quotedNumber ? ' (a number read as text: write it without quotes or a tag such as !!str)' : got === '.inf' || got === '-.inf' ? ' (infinite: .inf, or more digits than a number holds)' : ''}`,
  /** A limit as a reader takes it in: 10,000,000,000 rather than 10000000000. */
  tooSmall: (min: number, got: string, inclusive = true) => `must be ${inclusive ? 'at least' : 'more than'} ${limit(min)}, got ${got}`,
  /** `why`: the rule behind the limit, when the schema gives one ("a block has at most 4 steps"). */
  tooBig: (max: number, got: string, inclusive = true, why?: string) =>
    `must be ${inclusive ? 'at most' : 'less than'} ${limit(max)}${why ? ` (${why})` : ''}, got ${got}`,
  tooFewEntries: (min: number, got: number) => (min === 1 ? 'needs at least one entry' : `needs at least ${limit(min)} entries, got ${got}`),
  tooManyEntries: (max: number, got: number) => `has ${limit(got)} entries; at most ${limit(max)} are allowed`,
  tooShortText: (min: number) => (min === 1 ? 'must not be empty' : `needs at least ${limit(min)} characters`),
  tooLongText: (max: number, got: number) => `is ${limit(got)} characters long; at most ${limit(max)} are allowed`,
  unsafeInteger: (got: string) => `${got} is too large: whole numbers here stop at 9,007,199,254,740,991`,
  badOption: (got: string, suggestion: string | undefined, values: readonly string[]) =>
    `${got} is not an option${suggestion !== undefined ? ` (did you mean "${suggestion}"?)` : ''}: expected one of ${values.map((v) => `"${v}"`).join('|')}`,
  sweepDuplicatePath: (path: string, swept = path) =>
    swept === path
      ? `"${path}" is swept and also set by a variant; sweep it or set it, not both`
      : `"${path}" is set by a variant and holds the swept "${swept}", which this set would replace; sweep it or set it, not both`,
  /** `code`: the system's error code (ENOENT...), said in words for the common ones. */
  fileUnreadable: (code: string) => {
    const words: Record<string, string> = {
      ENOENT: 'no such file or folder',
      ENOTDIR: 'no such file (a part of the path is a file, not a folder)',
      EACCES: 'permission denied: this user may not read it',
      EPERM: 'permission denied: this user may not read it',
      EISDIR: 'a folder, not a file',
      ELOOP: 'a loop of symbolic links',
      ENAMETOOLONG: 'the name is too long',
    };
    return words[code] ?? `cannot read the file: ${code}`;
  },
  notAFile: () => 'not a file (a scenario is a .yaml file, or a folder of them)',
  fileTooLarge: (bytes: number, max: number) =>
    `the file is ${bytes.toLocaleString('en-US')} bytes; scenario files are limited to ${max.toLocaleString('en-US')} bytes`,
  utf16: () => 'the file is UTF-16 text; save it as UTF-8',
  invalidUtf8: () => 'the file is not valid UTF-8 text: a binary file, or text saved in another encoding (Latin-1, Windows-1252): save it as UTF-8',
  controlChar: (code: number) =>
    `control character U+${code.toString(16).toUpperCase().padStart(4, '0')} is not allowed in a scenario (a binary file?)`,
  tooManyYamlErrors: (max: number) => `${max} YAML syntax errors: the file was read no further`,
  tooDeep: (max: number) => `nested more than ${max} levels deep; scenarios need far fewer`,
  multipleDocuments: () => 'a scenario file holds one YAML document; this is the start of a second one (---)',
  duplicateKey: (key: string, line: number) => `key "${shortKey(key)}" is given twice in this mapping (first on line ${line})`,
  complexKey: () => 'a key must be a plain name, not a list or mapping',
  undefinedAlias: (name: string) => `alias *${shortKey(name)} refers to no anchor &${shortKey(name)} before it`,
  aliasBomb: (max: number) => `aliases expand to more than ${max} values (a YAML alias bomb?)`,
  moreProblems: (more: number, shown: number) => `... and ${more} more problem${more === 1 ? '' : 's'} (the first ${shown} are shown)`,
  /** `siegesim serve` of files that all have problems (the page and the start say so). */
  noValidScenario: (files: number) => `no valid scenario is served: ${files === 1 ? 'the file has' : `all ${files} files have`} problems (above); fix them and reload the page`,
  noScenarios: (where: string) => `no scenario files (*.yaml, *.yml) found in ${where}`,
  /** A folder given to run, validate, test or serve that is a siegesim report: its scenario.yaml is a copy, which is run only when named. */
  noScenariosInReport: (where: string, copy: string) =>
    `no scenario files (*.yaml, *.yml) of yours in ${where}: it is a siegesim report, and its scenario.yaml the copy of a run (to run the copy, name it: ${copy})`,
  /** A command that reads `folder` when given no files (test, serve), run where there is none. */
  noDefaultFolder: (folder: string, cwd: string, example: string) =>
    `no ${folder}/ folder in ${cwd} (the default when no file is given): pass scenario files or folders, e.g. ${example}`,
  /** diff given a scenario file where it compares runs' results. */
  diffScenarioFile: (file: string, name: string | undefined) =>
    `this looks like a scenario file: ${DIFF_TAKES}; ` +
    `run it first (siegesim run ${file}) and diff the report folders it writes (${name === undefined ? 'reports/<its name>/' : `reports/${shortKey(name)}/`})`,
  /** diff given a file that is not a summary.json; `why`: what is wrong with it. */
  notASummary: (why: string) => `not a summary.json (${why}): ${DIFF_TAKES}`,
  /** diff given a folder with no summary.json in it or its folders. */
  noSummaryIn: () => `no summary.json in it nor in its folders: ${DIFF_TAKES}`,
  /** `other`: where the first file gives the name (`a.yaml:2:7`). */
  duplicateName: (name: string, other: string) =>
    `scenario name "${name}" is also used by ${other}; reports would overwrite each other`,
  /**
   * A report folder holding the report of another scenario than the one about to be written there
   * (`cannot write to <folder>: ` comes before it). `was`: the old report's scenario name and the
   * file it says it was made from, as a path from here (undefined when it names none), `gone`
   * when that file is no longer there; `now`: the scenario being run; `named`: the folder was
   * named by --out (else it is reports/<name>/, so another name: is a way out too); `report`:
   * what kind of report it is (`sensitivity report`).
   */
  otherScenarioReport: (was: { name: string; file?: string; gone?: boolean }, now: { name: string; file: string }, named: boolean, report = 'report') => {
    const from = was.file === undefined ? '' : was.gone ? ` (made from ${was.file.split(/[\\/]/).pop()}, no longer where the report says)` : ` (made from ${was.file})`;
    const ways = 'choose another --out, or add --force to replace it';
    return was.name !== now.name
      ? `it holds the ${report} of scenario "${shortKey(was.name)}"${from}, not of "${shortKey(now.name)}" (${now.file}); ${ways}`
      : `it holds the ${report} of "${shortKey(now.name)}" made from ${was.file}, not from ${now.file} (both files are named "${shortKey(now.name)}"); ${named ? '' : 'give one of them another name:, '}${ways}`;
  },
  // --- shards (run --shard k/n, merge) ---
  /** Shard k of n got no chunk: the run has `chunks` chunks per case of `chunkTrials` trials. */
  shardEmpty: (k: number, n: number, chunks: number, trials: number, chunkTrials: number) =>
    `warning: shard ${k}/${n} has nothing to run: ${trials.toLocaleString('en-US')} trials make ${chunks} chunk${chunks === 1 ? '' : 's'} per case ` +
    `(${chunkTrials.toLocaleString('en-US')} trials each), so ${shardRange(chunks + 1, n)} of ${n} ${chunks + 1 === n ? 'is' : 'are'} empty ` +
    `and merge does not need ${chunks + 1 === n ? 'it' : 'them'}; ` +
    (chunks > 1 ? `--shard k/${chunks} splits this run with none empty` : 'one chunk cannot be split: sharding this run gains nothing, run it whole (without --shard)'),
  /** After a merge: the shards that hold no chunk, how many of them were given (empty) and how many were left out. */
  shardsNotNeeded: (empty: readonly number[], n: number, chunks: number, given: number) =>
    `${shardRange(empty[0], empty[empty.length - 1])} of ${n} ${empty.length === 1 ? 'holds' : 'hold'} no chunks (the run has ${chunks} chunk${chunks === 1 ? '' : 's'} per case): ` +
    `${empty.length === 1 ? 'it was' : 'they were'} not needed (${empty.length - given} absent, ${given} given empty)`,
  // --- expect: (balance assertions, `siegesim test`) ---
  expectTooManyJudgments: (n: number, items: number, max: number) =>
    `the expect: items would be judged ${bigCount(n)} times (${items.toLocaleString('en-US')} items, each at every case it applies to); at most ${max.toLocaleString('en-US')} judgments are allowed, so that validating and testing stay within seconds and the JUnit report readable: give items a where: or variant: to select fewer cases, or have fewer items`,
  expectOneBound: (given: readonly string[]) =>
    given.length === 0
      ? 'an assertion needs one bound: between, at_least, at_most or exact'
      : `an assertion has one bound; this one has ${given.join(' and ')} (use between: [low, high] for a range)`,
  /** `exact: false` (or any value but true): only `true` means something. */
  exactOnlyTrue: (written: string, quoted = false) =>
    `only exact: true is a bound (the metric agrees with the exact solver), got ${written}${quoted ? ' (write it without quotes)' : ''}: for any other claim give between, at_least or at_most instead`,
  expectBetweenOrder: (low: number, high: number) => `between [${low}, ${high}]: the low end must not exceed the high end`,
  unknownMetric: (name: string, suggestion: string | undefined, known: readonly string[]) =>
    `unknown metric "${name}"` + (suggestion ? ` (did you mean "${suggestion}"?)` : ` (this scenario's metrics: ${known.join(', ')})`),
  /** A `headline:` list naming a metric twice. */
  headlineRepeated: (name: string, first: number, again: number) =>
    `metric "${shortKey(name)}" is listed twice (items ${first + 1} and ${again + 1}): list each metric once`,
  outsideProbability: (what: string, metric: string, diff = false) =>
    `${what} is outside ${diff ? '[-1, 1]' : '[0, 1]'}: "${metric}" is ${diff ? 'a difference of probabilities' : 'a probability'}`,
  /**
   * A target a mean cannot reach: outside the values it can take in the case (`range`, from the
   * system: `mean_rounds` 0..12 under a round cap of 12). `lo`/`hi`: the range's ends.
   */
  outsideRange: (what: string, metric: string, lo: number, hi: number) =>
    `${what} is outside the values "${metric}" can take in this case (${lo} to ${hi}): no value searched can reach it`,
  diffNeedsVariants: (name: string) => `"${name}" compares a variant with the baseline, but this scenario has no variants`,
  /**
   * `exact: true` on a diff_ that has no exact difference to judge: `side` says which exact
   * answer is missing (`the baseline "a"`), or the difference is not paired (side undefined).
   */
  exactOfDiff: (name: string, where: string, side?: string) =>
    side !== undefined
      ? `exact: true, but "${name}" has no exact difference at ${where}: there is no exact answer for ${side} (give it a bound)`
      : `exact: true, but "${name}" at ${where} is not paired trial by trial (its interval is Welch's, whose SE leaves out that the variants share dice, so no z can be judged on it; give it a bound)`,
  unknownVariant: (name: string, suggestion: string | undefined, known: readonly string[]) =>
    `unknown variant "${name}"` + (suggestion ? ` (did you mean "${suggestion}"?)` : ` (variants: ${[...new Set(known)].join(', ')})`),
  diffOfBaseline: (metric: string, variant: string) => `"${variant}" is the baseline: "${metric}" exists for the other variants`,
  whereNotSwept: (key: string, suggestion: string | undefined, swept: readonly string[]) =>
    `"${key}" is not a swept parameter` +
    (suggestion ? ` (did you mean "${suggestion}"?)` : swept.length > 0 ? ` (swept: ${swept.join(', ')})` : ' (this scenario has no sweep)'),
  /** A `where:` value not in the sweep; one that is a swept number or true/false written in quotes (`"12"`) says so. */
  whereValueNotSwept: (key: string, value: unknown, values: readonly unknown[]) =>
    `${JSON.stringify(value)} is not one of the values "${key}" is swept over (${values.map((v) => JSON.stringify(v)).join(', ')})` +
    (typeof value === 'string' && values.some((v) => typeof v !== 'string' && JSON.stringify(v) === value.trim()) ? ' (it is written as a string: write it without quotes)' : ''),
  metricNotThere: (metric: string, variant?: string) =>
    `"${metric}" does not exist at the sweep points selected${variant ? ` for variant "${variant}"` : ''}`,
  /** A `diff_` of a metric the variant has and the baseline does not (a table letter only a mounted defender's table has). */
  diffWithoutBaseline: (metric: string, baseline: string) =>
    `"${metric}" is a difference from the baseline "${baseline}", which has no "${metric.slice('diff_'.length)}" at the sweep points selected: there is nothing to compare with`,
  /**
   * An expect: item the scenario no longer matches, said as a warning by the commands that run
   * (`place`: the problem as formatIssue writes it, file:line:col  path  message).
   */
  /** A setting that changes nothing in the cases it is written for (ValidScenario.warnings), said by every command that reads the file. */
  deadSetting: (place: string) => `warning: ${place}`,
  /** A stale expect: item of a file refused for other problems (listed with them). */
  staleExpectRefused: '`siegesim test` refuses this expect: item until it matches the scenario (the other commands go on without it)',
  staleExpect: (place: string) => `warning: ${place}; \`siegesim test\` will refuse this expect: item until it matches the scenario (this command goes on without it)`,
  exactUnavailable: (metric: string, where: string, why?: string) => `exact: true, but there is no exact answer for "${metric}" at ${where}${why !== undefined ? `: ${why}` : ''}`,
  // --- what `siegesim test` says about a run ---
  /** A run with nothing to judge (`scenarios`: how many files were given), as `check` refuses 0 comparisons. */
  testEmpty: (scenarios: number) =>
    `0 assertions: ${scenarios === 1 ? 'the scenario given has no' : `none of the ${scenarios} scenarios given has an`} expect: block, ` +
    'so the test would prove nothing; add one, or pass --allow-empty to accept that',
  /** Said once under the verdicts when an assertion FAILed. */
  testFailHint: () =>
    'hint: if the change is intended, move the bound at the file:line shown; if not, the change moved the balance: ' +
    '`siegesim diff` of a run before and after it shows what moved',
  /** Said once under the verdicts when an assertion is inconclusive. */
  testInconclusiveHint: () =>
    "hint: an inconclusive assertion's bound lies inside its interval even at the cap: put the bound further from the estimate " +
    '(about 8 standard errors at the first look; docs/ci.md, "Choosing bounds"), or raise --max-trials',
  /** Said once under the verdicts when an inconclusive assertion has no interval (a mean over fewer than 2 observations). */
  testNoIntervalHint: () =>
    'hint: an assertion with no interval is on a mean of something that (almost) never happened, even at the cap: more trials will not decide it. ' +
    'If the change is intended, rewrite or drop the item at the file:line shown; if not, `siegesim diff` of a run before and after it shows what moved. ' +
    "An assertion on that event's probability too (p_breach beside mean_breach_round) fails when it stops happening",
  /** `check`'s table, beside a mean no trial gave a value (its z column shows –). */
  checkNoZ: () => 'no z: no trial gave this mean a value (n = 0); the probability of its event is compared on its own row',
  /** The tail of `check`'s verdict line when some rows had no z. */
  /** Differences `check` has an exact value for but does not judge: not paired trial by trial. */
  checkUnpaired: (names: readonly string[]) =>
    `not compared: ${names.join(', ')} (not paired trial by trial: their intervals are Welch's, whose SE leaves out that the variants share dice, so no z is judged on them)`,
  checkNoDataCount: (n: number) => `${n} with no z (a mean no trial gave a value: n = 0; neither a pass nor a fail)`,
  /**
   * A failed comparison of `check`, as a sentence that stands alone in a CI log: the scenario and
   * its file, the case as `test` names it (swept values and variant), the metric, the numbers.
   */
  checkFail: (scenario: string, file: string, kase: number, where: string, metric: string, simulated: string, exact: string, z: string, zLimit: number, n: string) =>
    `FAIL  ${scenario} (${file}) case ${kase}${where ? ` (${where})` : ''}: ${metric} simulated ${simulated}, exact ${exact}, z = ${z}, |z| over the limit ${zLimit} (${n} observations)`,
  /** The z of a check FAIL whose exact answer has no value (the event never happens) while trials gave the mean one. */
  checkExactUndefined: (n: string) => `n/a (the exact answer has no value, but ${n} trials gave this one)`,
  /** Under the first failures listed again. */
  checkMoreFails: (n: number, json: boolean) => `... and ${n} more FAIL rows (${json ? 'the JSON on stdout' : 'the table above, or --json,'} lists every one)`,
  /** `diff`, when both runs' scenario settings are the same (seed and trials included). */
  diffSettingsSame: () => 'settings that differ: none (the two scenarios are set alike, seed and trials included)',
  /** `diff` of two runs of one rules system whose scenarios are named differently (neither is the other's workbench copy). */
  diffDifferentScenarios: (before: string, after: string) => `different scenarios: "${before}" before, "${after}" after (--ignore-name compares them anyway)`,
  /**
   * `diff` of two runs of different rules systems: their metrics and cases are not the same
   * things, so nothing (no flag) compares them.
   */
  diffDifferentSystems: (before: string, beforeSystem: string, after: string, afterSystem: string) =>
    before === after
      ? `different rules systems: "${before}" is a ${beforeSystem} scenario before and a ${afterSystem} one after; runs of different rules systems cannot be compared`
      : `different rules systems: "${before}" before is a ${beforeSystem} scenario, "${after}" after a ${afterSystem} one; runs of different rules systems cannot be compared`,
  /** `serve --open` when no browser could be opened (`why`: no opener, or the opener's failure). */
  serveNoBrowser: (url: string, why: string) => `--open: no browser could be opened (${why}); the workbench is at ${url}: open it in a browser`,
  /** `diff`, when a run's report has no scenario copy beside its summary.json to read the settings from. */
  diffSettingsUnknown: (why: readonly string[]) =>
    `settings that differ: not known (${why.length > 0 ? why.join('; ') : 'a run has no readable scenario.yaml beside its summary.json, as every report folder has'})`,
  /** `test`'s `exact: true` on a mean no trial gave a value: there is no z to judge. */
  testExactNoZ: (exact: string, observations: number, trials: string) =>
    `has no z against the exact answer ${exact}: ${observations} of ${trials} trials gave it a value`,
} as const;
