/**
 * `siegesim init [dir] [--system ...]`: start a game's repository (src/api/init.ts plans the
 * files). Writes each file only where none is: an existing file is kept and named, as git keeps
 * an untracked file; package.json gains only the scripts it does not have.
 */
import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatIssue, GITIGNORE_LINES, INIT_SCRIPTS, initPlan, initSystems, InitInputError, mergeScripts, newPackageJson, STARTERS, validateText } from '../../api.js';
import { VERSION } from '../../version.js';
import { packageFile } from '../../paths.js';
import { writeFileAtomic } from '../../report/write.js';
import { UserError } from '../common.js';

interface InitFlags {
  system?: string[];
}

/** Create a file only if it is not there (the `wx` flag: not even a file made a moment ago is replaced). */
function createOnly(file: string, text: string): boolean {
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UserError(`cannot write ${file}: ${(e as Error).message}`);
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
  if (existsSync(root) && !statSync(root).isDirectory()) throw new UserError(`${dir} is a file, not a folder: name the repository's folder`);
  // package.json first: one init refuses is refused before anything is written
  const pkgFile = path.join(root, 'package.json');
  const pkgText = existsSync(pkgFile) ? readFileSync(pkgFile, 'utf8') : undefined;
  let merged;
  try {
    merged = pkgText === undefined ? undefined : mergeScripts(pkgText, path.relative(process.cwd(), pkgFile) || 'package.json');
  } catch (e) {
    if (e instanceof InitInputError) throw new UserError(e.message);
    throw e;
  }
  /** init's scripts package.json has its own (other) command for: the starters and the next steps say siegesim's command instead. */
  const own = new Set<string>();
  if (pkgText !== undefined && merged !== undefined) {
    const scripts = (JSON.parse(pkgText) as { scripts?: Record<string, unknown> }).scripts;
    for (const k of merged.kept) if (scripts?.[k] !== INIT_SCRIPTS[k]) own.add(k);
  }
  const plan = initPlan(systems, (rel) => readFileSync(packageFile(rel), 'utf8'), own.has('balance'));
  const lines: string[] = [];
  const warnings: string[] = [];
  let wrote = 0;
  const kept: string[] = [];
  for (const f of plan.files) {
    const target = path.join(root, ...f.path.split('/'));
    if (createOnly(target, f.text)) {
      wrote++;
      lines.push(`  wrote ${f.path}  (${f.what})`);
    } else {
      kept.push(f.path);
      if (f.scenario) {
        // the user's own file where a starter would go: kept, but test reads every file in scenarios/
        const v = validateText(f.path, readFileSync(target, 'utf8'));
        if (!v.ok) warnings.push(`${f.path} was already there and is not a valid scenario (${formatIssue(v.issues[0]).trim()}): siegesim test scenarios, as the balance workflow runs it, will refuse it; fix it, or move it out of scenarios/`);
      }
      if (f.path === '.gitignore') {
        const missing = missingIgnores(readFileSync(target, 'utf8'));
        if (missing.length > 0) warnings.push(`.gitignore does not ignore ${missing.join(', ')} (what siegesim and npm write): add ${missing.length === 1 ? 'it' : 'them'} before committing with git add .`);
      }
    }
  }
  let hasSiegesim = false;
  if (pkgText !== undefined && merged !== undefined) {
    if (merged.text !== undefined) {
      await writeFileAtomic(pkgFile, merged.text);
      lines.push(`  package.json: added the scripts ${merged.added.join(', ')}`);
    }
    for (const k of merged.kept) lines.push(`  package.json: kept its own "${k}" script (not changed)`);
    const pkg = JSON.parse(merged.text ?? pkgText) as { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
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
