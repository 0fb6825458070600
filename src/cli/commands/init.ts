/**
 * `siegesim init [dir] [--system ...]`: start a game's repository (src/api/init.ts plans the
 * files). Writes each file only where none is: an existing file is kept and named, as git keeps
 * an untracked file; package.json gains only the scripts it does not have.
 */
import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { initPlan, initSystems, InitInputError, mergeScripts, newPackageJson, STARTERS } from '../../api.js';
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
  const plan = initPlan(systems, (rel) => readFileSync(packageFile(rel), 'utf8'));
  const lines: string[] = [];
  let wrote = 0;
  const kept: string[] = [];
  for (const f of plan.files) {
    const target = path.join(root, ...f.path.split('/'));
    if (createOnly(target, f.text)) {
      wrote++;
      lines.push(`  wrote ${f.path}  (${f.what})`);
    } else kept.push(f.path);
  }
  const pkgFile = path.join(root, 'package.json');
  let hasSiegesim = false;
  if (existsSync(pkgFile)) {
    const text = readFileSync(pkgFile, 'utf8');
    let merged;
    try {
      merged = mergeScripts(text, path.relative(process.cwd(), pkgFile) || 'package.json');
    } catch (e) {
      if (e instanceof InitInputError) throw new UserError(e.message);
      throw e;
    }
    if (merged.text !== undefined) {
      await writeFileAtomic(pkgFile, merged.text);
      lines.push(`  package.json: added the scripts ${merged.added.join(', ')}`);
    }
    for (const k of merged.kept) lines.push(`  package.json: kept its own "${k}" script (not changed)`);
    const pkg = JSON.parse(merged.text ?? text) as { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
    hasSiegesim = Object.hasOwn(pkg.devDependencies ?? {}, 'siegesim') || Object.hasOwn(pkg.dependencies ?? {}, 'siegesim');
  } else {
    createOnly(pkgFile, newPackageJson(path.basename(root)));
    wrote++;
    lines.push('  wrote package.json  (private, with the scripts balance and balance:serve)');
  }
  for (const k of kept) lines.push(`  kept ${k}  (already there; not changed)`);
  const where = path.relative(process.cwd(), root) || '.';
  process.stdout.write(`siegesim init: ${wrote} file${wrote === 1 ? '' : 's'} written in ${where} (${plan.systems.join(', ')})\n${lines.join('\n')}\n`);
  const next = [
    ...(where === '.' ? [] : [`cd ${where}`]),
    ...(hasSiegesim ? [] : ['npm install -D siegesim      # or the tarball / git URL you install it from']),
    'npm run balance              # judges every expect: assertion in scenarios/ (exit 1 on a FAIL)',
    'npm run balance:serve        # the workbench on scenarios/',
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
