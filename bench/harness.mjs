// The benchmark runner's arguments and verdicts (bench/run.mjs), kept apart so tests hold them:
// a misspelt benchmark name is a usage error (exit 2, nothing run or written), never an empty
// run that passes; a missed target is named on stderr, not only in the JSON.
import { suggest } from '../dist/src/text/suggest.js';

/** A bad command line: bench/run.mjs prints the message and exits 2. */
export class BenchUsageError extends Error {}

/**
 * Benchmark names, `--seconds S`, `--check`, and the baseline options `--save FILE`,
 * `--baseline FILE` and `--tolerance T` (bench/baseline.mjs), checked against the benchmarks
 * there are. The baseline options are in the result only when given.
 * @example parseBenchArgs(['surrender', '--seconds', '3'], ['dice', 'surrender']) // { only: ['surrender'], seconds: 3, check: false }
 */
export function parseBenchArgs(argv, names) {
  const only = [];
  let seconds = 2;
  let check = false;
  const extra = {};
  const fileAfter = (flag, i) => {
    const f = argv[i];
    if (f === undefined || f.startsWith('-')) throw new BenchUsageError(`${flag} needs a file`);
    return f;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--check') check = true;
    else if (a === '--seconds') {
      seconds = Number(argv[++i]);
      if (!(seconds > 0) || !Number.isFinite(seconds)) throw new BenchUsageError('--seconds needs a positive number of seconds');
    } else if (a === '--save') extra.save = fileAfter(a, ++i);
    else if (a === '--baseline') extra.baseline = fileAfter(a, ++i);
    else if (a === '--tolerance') {
      extra.tolerance = Number(argv[++i]);
      if (!(extra.tolerance >= 0 && extra.tolerance < 1)) throw new BenchUsageError('--tolerance must be a fraction in [0, 1), e.g. 0.15');
    } else if (a.startsWith('-')) {
      throw new BenchUsageError(`unknown option ${a} (the options are --seconds S, --check, --save FILE, --baseline FILE and --tolerance T)`);
    } else only.push(a);
  }
  if (extra.tolerance !== undefined && extra.baseline === undefined) throw new BenchUsageError('--tolerance goes with --baseline FILE');
  const unknown = only.filter((n) => !names.includes(n));
  if (unknown.length > 0) {
    const what = unknown.map((n) => {
      const near = suggest(n, names);
      return `"${n}"${near ? ` (did you mean "${near}"?)` : ''}`;
    });
    throw new BenchUsageError(`unknown benchmark ${what.join(', ')}; the benchmarks are: ${names.join(', ')}`);
  }
  return { only, seconds, check, ...extra };
}

/** Each target whose metric was measured: its value and whether it was met. */
export function judgeTargets(results, targets) {
  const get = (key) => key.split('.').reduce((o, k) => (o == null ? undefined : o[k]), results);
  return Object.entries(targets)
    .filter(([k]) => get(k) !== undefined && get(k) !== null)
    .map(([k, t]) => {
      const v = get(k);
      const pass = typeof t === 'number' ? v >= t : v <= t.max;
      return { metric: k, value: v, target: typeof t === 'number' ? `>= ${t}` : `<= ${t.max}`, pass };
    });
}

/** One stderr line per missed target (none when all were met). */
export function missLines(judged) {
  return judged.filter((t) => !t.pass).map((t) => `bench: target missed: ${t.metric} = ${t.value} (target ${t.target})`);
}
