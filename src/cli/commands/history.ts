/**
 * `siegesim history`: results kept per commit in a store folder (api/history.ts), a trend page
 * drawn from it, and a check that exits 1 when a metric moved between the last commits.
 *
 *   siegesim history add test.json bench.json [--commit SHA] [--store DIR]
 *   siegesim history show [--store DIR] [--out DIR]
 *   siegesim history check [--last N] [--store DIR]
 */
import { MSG } from '../../scenario/messages.js';
import { InvalidArgumentError, type Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  addRecord,
  analyzeHistory,
  BENCH_TOLERANCE,
  checkMarker,
  HISTORY_LOG,
  HISTORY_MARKER,
  HISTORY_MARKER_DOC,
  HistoryError,
  parseStore,
  readResult,
  storeText,
  type CommitInfo,
  type HistoryAnalysis,
  type HistoryRecord,
  DIFF_ALPHA,
} from '../../api.js';
import { historyPage } from '../../report/history-page.js';
import { conditionalText, pText, show } from '../../report/format.js';
import { checkReportDir, HOST, pidAlive, writeFileAtomic, writeFolder } from '../../report/write.js';
import { positiveInt, probabilityArg, UserError } from '../common.js';

/** Where the store is when --store is not given. */
export const DEFAULT_STORE = 'siegesim-history';
/** Where `show` writes the page when --out is not given. */
export const DEFAULT_PAGE = 'reports/history';

/** A history error is bad input: one line, exit 2. */
function userError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof HistoryError) throw new UserError(e.message);
    throw e;
  }
}

/** The store's records; a missing store is empty when `create`, else refused, as is a foreign or damaged one. */
function readStore(dir: string, create: boolean): HistoryRecord[] {
  let st;
  try {
    st = statSync(dir);
  } catch {
    if (create) return [];
    throw new UserError(`no history store at ${dir} (record one with \`siegesim history add <results> --store ${dir}\`)`);
  }
  if (!st.isDirectory()) throw new UserError(`${dir} is a file, not a history store (a folder)`);
  const marker = path.join(dir, HISTORY_MARKER);
  if (!existsSync(marker)) {
    // an empty folder (or a fresh checkout of an empty branch: only .git) becomes a store; anything else is someone else's
    const others = readdirSync(dir).filter((n) => n !== '.git' && n !== STORE_LOCK);
    if (others.length === 0 && create) return [];
    if (others.length === 0) throw new UserError(`${dir} holds no history yet (record one with \`siegesim history add <results> --store ${dir}\`)`);
    throw new UserError(`${dir} is not a siegesim history store (no ${HISTORY_MARKER}, and it holds other files: ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}); refused, nothing written`);
  }
  return userError(() => {
    checkMarker(readStoreFile(marker), dir);
    const log = path.join(dir, HISTORY_LOG);
    return existsSync(log) ? parseStore(readStoreFile(log), log) : [];
  });
}

/** A store file's text; one that cannot be read (a folder in its place, no permission) refused as the user's problem, nothing written. */
function readStoreFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${file} cannot be read (${code ? MSG.fileUnreadable(code) : String(e)}): not a history store siegesim can use; refused, nothing written`);
  }
}

function git(args: string[]): string | undefined {
  const r = spawnSync('git', args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The commit's sha, date and subject from git, and its branch (--branch, CI's GITHUB_REF_NAME, or git's). */
function commitInfo(rev: string | undefined, branch: string | undefined): CommitInfo {
  const out = git(['log', '-1', '--format=%H%x00%cI%x00%s', rev ?? 'HEAD', '--']);
  const b = branch ?? (process.env.GITHUB_REF_NAME || git(['rev-parse', '--abbrev-ref', 'HEAD'])) ?? '';
  if (out) {
    const [sha, date, subject] = out.split('\0');
    return { sha, date, subject, branch: b === 'HEAD' ? '' : b };
  }
  if (rev === undefined) throw new UserError('not in a git repository (or git is missing): give the commit with --commit SHA');
  // Inside a repository a commit git does not know is a typo or an unset variable (--commit
  // "$GITHUB_SHA" with none): recorded, it would be a phantom commit dated today, the newest, and
  // `history check` would compare the real last commit against it.
  const top = git(['rev-parse', '--show-toplevel']);
  if (top !== undefined) {
    const shallow = git(['rev-parse', '--is-shallow-repository']) === 'true';
    throw new UserError(
      `--commit ${JSON.stringify(rev)}: no such commit in the git repository ${top}; give one it holds (a sha, a branch, HEAD~1), or leave --commit out for HEAD` +
        (shallow ? ` (this clone is shallow: a commit outside its depth needs \`git fetch --deepen=N\` or \`--unshallow\` first)` : ''),
    );
  }
  if (!/^[0-9a-f]{7,64}$/i.test(rev)) throw new UserError(`--commit ${rev}: not a commit git knows here, nor a hex sha`);
  process.stderr.write(`siegesim: commit ${rev}: not in a git repository here (or git is missing), so recorded with today's date and no subject\n`);
  return { sha: rev.toLowerCase(), date: new Date().toISOString(), subject: '', branch: b === 'HEAD' ? '' : b };
}

/** The lock file `history add` holds in its store while it reads, changes and writes the log. */
export const STORE_LOCK = '.siegesim-history.lock';
/** How long `history add` waits for another one writing the same store before it gives up. */
const LOCK_WAIT_MS = 60_000;

/**
 * fn() holding the store's lock: `history add` reads the log, adds a commit and writes the log
 * whole, so two at once (a local backfill in parallel) each wrote the log it had read plus its
 * own commit and one commit was lost, both saying "recorded". The lock is a file made only if
 * absent (O_EXCL), holding `pid@host`; one whose process of this host is gone (killed) is taken
 * over. A store folder made here for the lock is removed again when nothing was written to it.
 */
async function withStoreLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const made = !existsSync(dir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UserError(`cannot write to ${dir} (${(e as NodeJS.ErrnoException).code ?? String(e)}); nothing written`);
  }
  const lock = path.join(dir, STORE_LOCK);
  const t0 = Date.now();
  let said = false;
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}@${HOST}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new UserError(`cannot write to ${dir} (${code ?? String(e)}); nothing written`);
    }
    let holder = '';
    try {
      holder = readFileSync(lock, 'utf8').trim();
    } catch {
      continue; // released meanwhile
    }
    const m = /^(\d+)@(.+)$/.exec(holder);
    if (m !== null && m[2] === HOST && !pidAlive(Number(m[1]))) {
      rmSync(lock, { force: true }); // its process was killed: taken over
      continue;
    }
    if (Date.now() - t0 > LOCK_WAIT_MS) {
      throw new UserError(`${dir} is being written by another siegesim history add (${holder || 'unknown'}) for over ${LOCK_WAIT_MS / 1000} s; nothing written (remove ${lock} if no such process runs)`);
    }
    if (!said) process.stderr.write(`siegesim: history: waiting for another history add writing ${dir} (${holder || 'unknown'})\n`);
    said = true;
    await new Promise((r) => setTimeout(r, 50));
  }
  // a signal ends the process by process.exit (program.ts): the lock goes with it, not left for the pid check
  const release = () => rmSync(lock, { force: true });
  process.once('exit', release);
  try {
    return await fn();
  } finally {
    process.removeListener('exit', release);
    release();
    if (made) {
      try {
        rmdirSync(dir); // only when empty: nothing was recorded
      } catch {
        // it holds the store now
      }
    }
  }
}

async function addCommand(files: string[], flags: { commit?: string; store: string; branch?: string }): Promise<void> {
  readStore(flags.store, true); // a file, a foreign folder, a damaged store: refused first, before the lock is made in it
  // every file read and understood before the store is touched
  const inputs = files.map((f) => {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch (e) {
      throw new UserError(`${f}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      const xml = text.trimStart().startsWith('<');
      throw new UserError(
        xml
          ? `${f}: a JUnit file carries verdicts, not the estimates history draws; record \`siegesim test --json\`'s output instead`
          : `${f}: not JSON (history records \`siegesim test --json\`, \`siegesim bench\` and a run's summary.json)`,
      );
    }
    return { file: path.basename(f), ...userError(() => readResult(doc, f)) };
  });
  const commit = commitInfo(flags.commit, flags.branch);
  // the store as it stands once no other history add writes it (read, changed and written under its lock)
  const { next, replaced } = await withStoreLock(flags.store, async () => {
    const records = readStore(flags.store, true);
    // a commit of the same date it is an ancestor of stays after it (git merge-base --is-ancestor)
    const isAncestorOf = (sha: string) => spawnSync('git', ['merge-base', '--is-ancestor', commit.sha, sha], { encoding: 'utf8' }).status === 0;
    const added = addRecord(records, commit, inputs, undefined, isAncestorOf);
    const marker = path.join(flags.store, HISTORY_MARKER);
    if (!existsSync(marker)) await writeFileAtomic(marker, JSON.stringify(HISTORY_MARKER_DOC, null, 2) + '\n');
    await writeFileAtomic(path.join(flags.store, HISTORY_LOG), storeText(added.records));
    return { next: added.records, replaced: added.replaced };
  });
  const n = inputs.reduce((s, i) => s + Object.keys(i.metrics).length, 0);
  process.stdout.write(
    `history: ${replaced ? 'replaced' : 'recorded'} ${commit.sha.slice(0, 7)} "${commit.subject}" (${inputs.map((i) => i.source).join(', ')}: ${n} metric${n === 1 ? '' : 's'}) in ${flags.store}; ${next.length} commit${next.length === 1 ? '' : 's'} kept\n`,
  );
}

function movesText(a: HistoryAnalysis): string[] {
  return a.moves.map((m) => {
    const c = a.commits[m.at];
    const how = m.ratio !== undefined ? `×${m.ratio.toFixed(3)}, beyond ±${Math.round(a.tolerance * 100)}%` : `z = ${m.z!.toFixed(2)}, Holm p ${pEquals(m.p_holm!)}`;
    // a mean over the trials of an event says which, as run's answer does
    const on = a.series.find((s) => s.key === m.key)?.conditionalOn;
    // written as run's answer and the report write them (4 decimals, or the digits that tell a value from 0 or 1): not 8 digits of a mean beside 4 of a probability
    return `  moved at ${c.sha.slice(0, 7)} "${c.subject}" (from ${a.commits[m.from].sha.slice(0, 7)}): ${m.key}${on ? ` (${conditionalText(on)})` : ''} ${show(m.before)} -> ${show(m.after)} (${how})`;
  });
}

async function showCommand(flags: { store: string; out: string; alpha: number; tolerance: number; force?: boolean }): Promise<void> {
  const t0 = performance.now();
  const records = readStore(flags.store, false);
  const a = analyzeHistory(records, { alpha: flags.alpha, tolerance: flags.tolerance });
  checkReportDir(flags.out, 'history', { force: flags.force });
  const page = historyPage(a, { store: flags.store });
  const data = {
    store: flags.store,
    alpha: a.alpha,
    tolerance: a.tolerance,
    commits: a.commits,
    series: a.series.map((s) => ({ key: s.key, kind: s.kind, bound: s.bound ?? null, first_moved: s.firstMoved === null ? null : a.commits[s.firstMoved].sha, moved: s.moved.map((i) => a.commits[i].sha) })),
    moves: a.moves.map((m) => ({ ...m, at: a.commits[m.at].sha, from: a.commits[m.from].sha })),
  };
  await writeFolder(
    flags.out,
    async (put) => {
      await put('index.html', page);
      await put('history.json', JSON.stringify(data, null, 1) + '\n');
    },
    'history',
  );
  const moved = a.series.filter((s) => s.firstMoved !== null).length;
  process.stdout.write(
    `history: ${a.commits.length} commit${a.commits.length === 1 ? '' : 's'}, ${a.series.length} metric${a.series.length === 1 ? '' : 's'}, ${moved} moved at some commit -> ${path.join(flags.out, 'index.html')} (${((performance.now() - t0) / 1000).toFixed(2)} s)\n`,
  );
}

/** `= 0.0012`, or `< 1e-300` where the tail underflows (diff's wording, format.ts pText). */
const pEquals = (p: number) => {
  const t = pText(p);
  return t.startsWith('<') ? t : `= ${t}`;
};

/**
 * How many metrics were compared, and why the others were not: `2 metrics compared (9 recorded
 * at only one of these commits)`. A metric compared nowhere cannot move, so a count of
 * all the metrics would overstate what "nothing moved" covers.
 */
function comparedText(a: HistoryAnalysis): string {
  const metrics = (n: number) => `${n} metric${n === 1 ? '' : 's'}`;
  const once = a.series.filter((s) => s.points.filter((p) => p !== null).length < 2).length;
  const untestable = a.series.length - a.compared - once;
  const why = [
    ...(once > 0 ? [`${once} recorded at only one of these commits`] : []),
    ...(untestable > 0 ? [`${untestable} without an estimate and interval to test`] : []),
  ];
  return `${metrics(a.compared)} compared${why.length > 0 ? ` (${why.join('; ')})` : ''}`;
}

function checkCommand(flags: { store: string; last: number; alpha: number; tolerance: number }): void {
  if (flags.last < 2) throw new UserError('--last must be at least 2 (a move is between two commits)');
  const records = readStore(flags.store, false);
  const window = records.slice(-flags.last);
  if (window.length < 2) {
    process.stdout.write(`history check: ${window.length} commit recorded in ${flags.store}: nothing to compare yet\n`);
    return;
  }
  const a = analyzeHistory(window, { alpha: flags.alpha, tolerance: flags.tolerance });
  const span = `${window[0].sha.slice(0, 7)}..${window[window.length - 1].sha.slice(0, 7)}`;
  if (a.moves.length === 0) {
    process.stdout.write(`history check: nothing moved over the last ${window.length} commits (${span}), ${comparedText(a)}\n`);
    return;
  }
  process.stdout.write([`history check: ${a.moves.length} move${a.moves.length === 1 ? '' : 's'} over the last ${window.length} commits (${span}), ${comparedText(a)}:`, ...movesText(a)].join('\n') + '\n');
  process.exitCode = 1;
}

const fraction = (v: string) => {
  const x = Number(v);
  if (!(x > 0 && x < 1)) throw new InvalidArgumentError('--tolerance must be a fraction in (0, 1), e.g. 0.15');
  return x;
};

export function register(program: Command): void {
  const history = program.command('history').description('keep results per commit (test --json, bench, summary.json), draw their trend page, and check what moved');
  const storeOpt = ['--store <DIR>', 'the history store: a folder of JSON lines, one per commit', DEFAULT_STORE] as const;
  const alphaOpt = ['--alpha <A>', "family-wise false-alarm rate of each commit's test (diff's)", probabilityArg('--alpha', '0.001'), DIFF_ALPHA] as const;
  const tolOpt = ['--tolerance <T>', 'a bench rate moved when it changed by more than this fraction', fraction, BENCH_TOLERANCE] as const;
  history
    .command('add')
    .description("record result files for a commit (a rerun for the same commit replaces that commit's results of the same kind)")
    .argument('<files...>', '`siegesim test --json` output, `siegesim bench` JSON, a run\'s summary.json')
    .option('--commit <SHA>', 'the commit (default: HEAD); its date and subject are read from git')
    .option('--branch <NAME>', 'the branch recorded (default: $GITHUB_REF_NAME, else git\'s current branch)')
    .option(...storeOpt)
    .action((files: string[], flags: { commit?: string; store: string; branch?: string }) => addCommand(files, flags));
  history
    .command('show')
    .description('write the trend page: one chart per metric over the commits, intervals, bounds, the first commit each moved at')
    .option(...storeOpt)
    .option('--out <DIR>', "the page's folder", DEFAULT_PAGE)
    .option(...alphaOpt)
    .option(...tolOpt)
    .option('--force', 'write the page into a folder that holds files siegesim did not write (they are kept)')
    .action((flags: { store: string; out: string; alpha: number; tolerance: number; force?: boolean }) => showCommand(flags));
  history
    .command('check')
    .description('exit 1 when a metric moved between consecutive commits among the last N (default 2: the last two)')
    .option('--last <N>', 'how many of the latest commits to look at', positiveInt('--last'), 2)
    .option(...storeOpt)
    .option(...alphaOpt)
    .option(...tolOpt)
    .action((flags: { store: string; last: number; alpha: number; tolerance: number }) => checkCommand(flags));
}
