/**
 * `siegesim init [dir] [--system ...]`: start a game's repository (src/api/init.ts plans the
 * files). Writes each file only where none is: an existing file is kept and named, as git keeps
 * an untracked file; package.json gains only the scripts it does not have.
 */
import type { Command } from 'commander';
import { lstatSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatIssue, GITIGNORE_LINES, INIT_SCRIPTS, initPlan, initSystems, InitInputError, mergeScripts, newPackageJson, NotAFile, readRegularFile, STARTERS, TooLarge, validateText } from '../../api.js';
import { VERSION } from '../../version.js';
import { packageFile } from '../../paths.js';
import { checkWritableFolder, makeFolders, reasonOf, writeFileAtomic } from '../../report/write.js';
import { UserError } from '../common.js';

interface InitFlags {
  system?: string[];
}

/** The most init reads of a file of the repository's own (package.json, .gitignore, a scenario where a starter goes). */
const READ_MAX = 16 * 1024 * 1024;

/**
 * What is at `target`, a file init would write: undefined when nothing is (init writes it), else
 * the text of the repository's own file there (kept). Anything else there (a folder, a pipe, a
 * device, a symbolic link to nowhere) is refused before anything is written: init never writes
 * around it, and never waits on a pipe.
 */
function existingText(target: string, shown: string): string | undefined {
  let link;
  try {
    link = lstatSync(target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOTDIR: a file where a folder on the path should be, named by the folder check
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UserError(`cannot read ${shown}: ${reasonOf(e)}`);
  }
  const refuse = (what: string) => new UserError(`${shown} is ${what}, where init writes a file: move it and run init again (nothing was written)`);
  try {
    return readRegularFile(target, READ_MAX).toString('utf8');
  } catch (e) {
    if (link.isSymbolicLink() && (e as NodeJS.ErrnoException).code === 'ENOENT') throw refuse('a symbolic link to nowhere');
    if (e instanceof NotAFile) throw refuse(statSync(target).isDirectory() ? 'a folder' : 'not a regular file (a pipe or a device)');
    if (e instanceof TooLarge) throw new UserError(`${shown} is ${e.bytes} bytes, over the ${READ_MAX} init reads: is it the file it should be? (nothing was written)`);
    throw new UserError(`cannot read ${shown}: ${reasonOf(e)}`);
  }
}

function lstatOrNone(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function statOrNone(p: string) {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

/** Create a file only if it is not there (the `wx` flag: not even a file made a moment ago is replaced). */
function createOnly(file: string, text: string): boolean {
  try {
    makeFolders(path.dirname(file));
    writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UserError(`cannot write ${file}: ${reasonOf(e)}`);
  }
}

/** Lines init's .gitignore has that an existing one lacks (a line ignoring the same folder counts). */
function missingIgnores(text: string): string[] {
  const have = new Set(text.split(/\r?\n/).map((l) => l.trim().replace(/^\//, '').replace(/\/$/, '')));
  return GITIGNORE_LINES.filter((l) => !have.has(l.replace(/\/$/, '')));
}

/**
 * package.json's siegesim, when it is installed from a path outside the repository
 * (`file:../siegesim`, `file:/abs/siegesim-0.1.0.tgz`): CI's clean `npm ci` will not find it.
 */
function outsideSpec(pkg: { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> }, root: string): string | undefined {
  const spec = pkg.devDependencies?.siegesim ?? pkg.dependencies?.siegesim;
  if (typeof spec !== 'string' || !spec.startsWith('file:')) return undefined;
  const rel = path.relative(root, path.resolve(root, spec.slice('file:'.length)));
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) ? spec : undefined;
}

async function initCommand(dir: string | undefined, flags: InitFlags): Promise<void> {
  const root = path.resolve(dir ?? '.');
  let systems: string[];
  try {
    systems = initSystems(flags.system);
  } catch (e) {
    if (e instanceof InitInputError) throw new UserError(e.message);
    throw e;
  }
  const shown = (abs: string) => ((rel) => (rel.startsWith('..') ? abs : rel || '.'))(path.relative(process.cwd(), abs));
  let rootStat;
  try {
    rootStat = statSync(root);
  } catch {
    // not there (init makes it), or a file on the way to it (the folder check names it)
  }
  if (rootStat && !rootStat.isDirectory()) throw new UserError(`${dir} is a file, not a folder: name the repository's folder`);
  // Everything is checked before anything is written: package.json (one init refuses is refused
  // first), every file of the plan (a file of the repository's own is kept and read; a folder, a
  // pipe or a dangling link where a file goes is refused) and every folder a file goes in.
  const pkgFile = path.join(root, 'package.json');
  const pkgText = existingText(pkgFile, shown(pkgFile));
  let merged;
  try {
    merged = pkgText === undefined ? undefined : mergeScripts(pkgText, shown(pkgFile));
  } catch (e) {
    if (e instanceof InitInputError) throw new UserError(e.message);
    throw e;
  }
  /** init's scripts package.json has its own (other) command for: the starters and the next steps say siegesim's command instead. */
  const own = new Set<string>();
  /** Scripts of init's names whose value is no command (npm takes such a script as missing): kept, as every script is, and said so. */
  const notCommands = new Map<string, string>();
  if (pkgText !== undefined && merged !== undefined) {
    const scripts = (JSON.parse(pkgText.replace(/^\uFEFF/, '')) as { scripts?: Record<string, unknown> }).scripts;
    for (const k of merged.kept) {
      const value = scripts?.[k];
      if (value !== INIT_SCRIPTS[k]) own.add(k);
      if (typeof value !== 'string') notCommands.set(k, Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`);
    }
  }
  const plan = initPlan(systems, (rel) => readFileSync(packageFile(rel), 'utf8'), own.has('balance'));
  const files = plan.files.map((f) => {
    const target = path.join(root, ...f.path.split('/'));
    return { ...f, target, existing: existingText(target, shown(target)) };
  });
  const toWrite = [...files.filter((f) => f.existing === undefined).map((f) => f.target), ...(pkgText === undefined || merged?.text !== undefined ? [pkgFile] : [])];
  for (const folder of new Set(toWrite.map((t) => path.dirname(t)))) {
    // a folder on the way that is a symbolic link to nowhere: the write would fail there, after others
    for (let d = folder; d.length > root.length && d.startsWith(root); d = path.dirname(d)) {
      if (lstatOrNone(d)?.isSymbolicLink() && statOrNone(d) === undefined) throw new UserError(`${shown(d)} is a symbolic link to nowhere, where init makes a folder: remove it or make it point to a folder, and run init again (nothing was written)`);
    }
    try {
      checkWritableFolder(folder, shown(folder));
    } catch (e) {
      throw new UserError(`${(e as Error).message} (nothing was written)`);
    }
  }
  // package.json first: the one file init changes rather than makes; if that write fails, nothing
  // else was written. A package.json that is a symbolic link is written where it points.
  if (merged?.text !== undefined) await writeFileAtomic(statOrNone(pkgFile) && lstatOrNone(pkgFile)?.isSymbolicLink() ? realpathSync(pkgFile) : pkgFile, merged.text);
  const lines: string[] = [];
  const warnings: string[] = [];
  let wrote = 0;
  const kept: string[] = [];
  for (const f of files) {
    if (f.existing === undefined && createOnly(f.target, f.text)) {
      wrote++;
      lines.push(`  wrote ${f.path}  (${f.what})`);
      continue;
    }
    kept.push(f.path);
    // (made a moment ago by someone else: read now)
    const text = f.existing ?? existingText(f.target, shown(f.target)) ?? '';
    if (f.scenario) {
      // the user's own file where a starter would go: kept, but test reads every file in scenarios/
      const v = validateText(f.path, text);
      if (!v.ok) warnings.push(`${f.path} was already there and is not a valid scenario (${formatIssue(v.issues[0]).trim()}): siegesim test scenarios, as the balance workflow runs it, will refuse it; fix it, or move it out of scenarios/`);
    }
    if (f.path === '.gitignore') {
      const missing = missingIgnores(text);
      if (missing.length > 0) warnings.push(`.gitignore does not ignore ${missing.join(', ')} (what siegesim and npm write): add ${missing.length === 1 ? 'it' : 'them'} before committing with git add .`);
    }
  }
  let hasSiegesim = false;
  if (pkgText !== undefined && merged !== undefined) {
    if (merged.text !== undefined) lines.push(`  package.json: added the script${merged.added.length === 1 ? '' : 's'} ${merged.added.join(', ')}`);
    // a script of init's name: the repository's own command, or init's own from an earlier init
    for (const k of merged.kept) {
      const what = notCommands.get(k);
      if (what !== undefined) {
        lines.push(`  package.json: kept its "${k}" script (not changed), which is ${what}, not a command`);
        warnings.push(`package.json's "${k}" script is ${what}, not a command: npm takes it as missing (npm run ${k} says Missing script); make it ${JSON.stringify(INIT_SCRIPTS[k])} to run siegesim`);
      } else lines.push(own.has(k) ? `  package.json: kept its own "${k}" script (not changed)` : `  package.json: already has siegesim's "${k}" script (not changed)`);
    }
    const pkg = JSON.parse((merged.text ?? pkgText).replace(/^\uFEFF/, '')) as { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
    hasSiegesim = Object.hasOwn(pkg.devDependencies ?? {}, 'siegesim') || Object.hasOwn(pkg.dependencies ?? {}, 'siegesim');
    const outside = outsideSpec(pkg, root);
    if (outside !== undefined) warnings.push(`package.json installs siegesim from "${outside}", outside this repository: CI's npm ci on a clean machine will not find it; commit the tarball in the repository and install it from there (docs/your-repository.md, "Install")`);
  } else {
    createOnly(pkgFile, newPackageJson(path.basename(root)));
    wrote++;
    lines.push('  wrote package.json  (private, with the scripts balance and balance:serve)');
  }
  for (const k of kept) lines.push(`  kept ${k}  (already there; not changed)`);
  const where = path.relative(process.cwd(), root) || '.';
  process.stdout.write(`siegesim init: ${wrote} file${wrote === 1 ? '' : 's'} written in ${where} (${plan.systems.join(', ')})\n${lines.join('\n')}\n`);
  for (const w of warnings) process.stderr.write(`siegesim init: warning: ${w}\n`);
  const next = [
    ...(where === '.' ? [] : [`cd ${where}`]),
    // siegesim is not on the npm registry: a name there would be someone else's package
    ...(hasSiegesim ? [] : [`npm install -D ./siegesim-${VERSION}.tgz  # the tarball npm pack made, copied here and committed; or git+https://<host>/<owner>/siegesim.git (docs/your-repository.md)`]),
    // a script of the same name that is the repository's own does something else: siegesim's command itself, said so
    own.has('balance')
      ? `npx ${INIT_SCRIPTS.balance}  # judges every expect: assertion in scenarios/ (exit 1 on a FAIL); your own "balance" script was kept, so not npm run balance`
      : 'npm run balance              # judges every expect: assertion in scenarios/ (exit 1 on a FAIL)',
    own.has('balance:serve')
      ? `npx ${INIT_SCRIPTS['balance:serve']}  # the workbench on scenarios/; your own "balance:serve" script was kept`
      : 'npm run balance:serve        # the workbench on scenarios/',
    'git add . && git commit      # .github/workflows/balance.yml runs the same checks on every push',
  ];
  process.stdout.write(`next:\n${next.map((n) => `  ${n}`).join('\n')}\n`);
}

export function register(program: Command): void {
  program
    .command('init')
    .description("start a game's repository: starter scenarios with expect: assertions, package.json scripts, the balance workflow (never overwrites a file)")
    .argument('[dir]', 'the repository folder (default: the current folder)')
    .option('--system <names...>', `the rules systems to start with (default: all of ${Object.keys(STARTERS).join(', ')})`)
    .action((dir: string | undefined, flags: InitFlags) => initCommand(dir, flags));
}
