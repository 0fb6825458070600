/**
 * The manifest (src/report/manifest.ts) decides what siegesim may replace or delete, so a manifest
 * it did not write must not widen that: only plain names one or two levels deep, inside the
 * folder, never through a link, and only files that are there.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { MANIFEST, MANIFEST_FORMAT, manifestText, ownershipOf, someNames } from '../src/report/manifest.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const folder = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'siegesim-manifest-'));
  dirs.push(d);
  return d;
};

describe('ownershipOf', () => {
  it("counts as siegesim's only the listed files that are there, as plain files inside the folder", () => {
    const outside = folder();
    writeFileSync(path.join(outside, 'precious.txt'), 'x');
    const d = folder();
    writeFileSync(path.join(d, 'summary.csv'), 'a\n');
    writeFileSync(path.join(d, 'notes.txt'), 'mine\n');
    symlinkSync(outside, path.join(d, 'charts')); // a link where siegesim writes its charts
    const listed = ['summary.csv', 'gone.csv', '../precious.txt', '/etc/passwd', 'charts/precious.txt', 'a/b/c.svg', '.', 'notes.txt/..'];
    writeFileSync(path.join(d, MANIFEST), JSON.stringify({ format: MANIFEST_FORMAT, version: '0', kind: 'run', files: listed }));
    const own = ownershipOf(d);
    expect(own.kind).toBe('run');
    expect([...own.ours].sort()).toEqual([MANIFEST, 'summary.csv']);
    expect(own.foreign).toEqual(['charts', 'notes.txt']);
  });

  it('a folder without a manifest: a report by the legacy rule only when its summary.json is siegesim\'s', () => {
    const d = folder();
    writeFileSync(path.join(d, 'summary.json'), '{"total":3}');
    writeFileSync(path.join(d, 'index.html'), '<p>mine</p>');
    expect(ownershipOf(d)).toMatchObject({ kind: undefined, foreign: ['index.html', 'summary.json'] });
    writeFileSync(path.join(d, 'summary.json'), JSON.stringify({ name: 'x', system: 'surrender', cases: [], provenance: { version: '0.0.1' } }));
    mkdirSync(path.join(d, 'charts'));
    writeFileSync(path.join(d, 'charts', 'a.svg'), '<svg/>');
    writeFileSync(path.join(d, 'charts', 'a.png'), 'png');
    writeFileSync(path.join(d, 'surrender_by_turn.csv'), 'turn\n');
    writeFileSync(path.join(d, 'mine.csv'), 'x\n');
    mkdirSync(path.join(d, 'src', 'deep'), { recursive: true });
    writeFileSync(path.join(d, 'src', 'deep', 'main.c'), 'int main(){}');
    const own = ownershipOf(d);
    expect(own).toMatchObject({ kind: 'run', legacy: true, foreign: ['charts/a.png', 'mine.csv', 'src/'] });
    expect([...own.ours].sort()).toEqual(['charts/a.svg', 'index.html', 'summary.json', 'surrender_by_turn.csv']);
  });

  it('writes a manifest that lists each file once, sorted, without itself', () => {
    expect(JSON.parse(manifestText('tune', ['index.html', 'tune.json', MANIFEST, 'index.html', 'charts/x.svg']))).toEqual({
      format: MANIFEST_FORMAT,
      version: expect.any(String),
      kind: 'tune',
      files: ['charts/x.svg', 'index.html', 'tune.json'],
    });
    expect(someNames(['a', 'b', 'c'], 2)).toBe('a, b and 1 more');
  });
});

describe('the scenario walkers leave out what siegesim wrote', () => {
  it("run/validate/test's and serve's walks skip a manifest's files (beside the user's scenarios too) and reports from before manifests whole", async () => {
    const { expandScenarioArgs } = await import('../src/cli/files.js');
    const { listEntries, rootsOf } = await import('../src/serve/catalogue.js');
    const d = folder();
    const put = (f: string, text = 'name: x\n') => {
      mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
      writeFileSync(path.join(d, f), text);
    };
    // a run report written into the user's folder of scenarios (--out . --force)
    put('mine.yaml');
    put('scenario.yaml');
    put('summary.json', '{}\n');
    put(MANIFEST, manifestText('run', ['scenario.yaml', 'summary.json']));
    // a static site's scenario copies, one level down from its manifest
    put('site/scenarios/a.yaml');
    put('site/scenarios/b.yml');
    put('site/' + MANIFEST, manifestText('site', ['scenarios/a.yaml', 'scenarios/b.yml']));
    put('site/scenarios/user.yaml'); // not listed: the user's
    // a report from before manifests: its folder whole
    put('old/summary.json', '{}\n');
    put('old/scenario.yaml');
    put('old/notes.yaml');
    // a report folder with a manifest, beside a scenario folder of the user's below it
    put('rep/scenario.yaml');
    put('rep/' + MANIFEST, manifestText('run', ['scenario.yaml']));
    put('rep/more/deep.yaml');
    const want = ['mine.yaml', 'rep/more/deep.yaml', 'site/scenarios/user.yaml'];
    const rel = (fs: string[]) => fs.map((f) => path.relative(d, f).split(path.sep).join('/')).sort();
    const cli = expandScenarioArgs([d]);
    expect(cli.issues).toEqual([]);
    expect(rel(cli.files)).toEqual(want);
    expect(rel(listEntries(rootsOf([d]).roots).map((e) => e.abs))).toEqual(want);
    // a file named on the command line is read whatever wrote it
    expect(rel(expandScenarioArgs([path.join(d, 'scenario.yaml')]).files)).toEqual(['scenario.yaml']);
  });
  it("pass over hidden entries and node_modules (a game's repository: its CI's YAML and installed packages beside its scenarios), unless named", async () => {
    const { expandScenarioArgs } = await import('../src/cli/files.js');
    const { listEntries, rootsOf } = await import('../src/serve/catalogue.js');
    const d = folder();
    const put = (f: string) => {
      mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
      writeFileSync(path.join(d, f), 'name: x\n');
    };
    put('balance/keep.yaml');
    put('.github/workflows/balance.yml');
    put('.gitlab-ci.yml');
    put('node_modules/siegesim/scenarios/surrender/town-basic.yaml');
    put('node_modules/siegesim/templates/balance.yml');
    put('tools/node_modules/x/.travis.yml');
    put('tools/gen.yaml');
    const rel = (fs: string[]) => fs.map((f) => path.relative(d, f).split(path.sep).join('/')).sort();
    const want = ['balance/keep.yaml', 'tools/gen.yaml'];
    const cli = expandScenarioArgs([d]);
    expect(cli.issues).toEqual([]);
    expect(rel(cli.files)).toEqual(want);
    expect(rel(listEntries(rootsOf([d]).roots).map((e) => e.abs))).toEqual(want);
    // named on the command line: read
    expect(rel(expandScenarioArgs([path.join(d, 'node_modules/siegesim/scenarios')]).files)).toEqual(['node_modules/siegesim/scenarios/surrender/town-basic.yaml']);
    expect(rel(expandScenarioArgs([path.join(d, '.gitlab-ci.yml')]).files)).toEqual(['.gitlab-ci.yml']);
  });
});
