/**
 * A scenario's `headline:` (the metrics its answer leads with), end to end through the built CLI:
 * its validation (exit 2, file:line:col, no output), the printed answer of `run`, the report
 * page's Answer and lead chart, the index's answer cell, and the sweep's "where it reaches 0.5"
 * (about the first headline metric when it is a probability, left out when it is a mean).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli, tempDirs } from '../cli-child.js';
import { runCliBatch } from '../cli-batch.js';
import { writeIndex } from '../../src/report/write.js';

const tmp = tempDirs('siegesim-headline-');
const ENGINES = path.join(ROOT, 'scenarios/fantasy/engines-vs-wall.yaml');
const CLIMBERS = path.join(ROOT, 'scenarios/fantasy/climbers-dc.yaml');
const GRID = path.join(ROOT, 'scenarios/fantasy/wall-hp-dc-grid.yaml');

/** A copy of a bundled scenario in `dir` with its `headline:` line replaced by (or, without one, given) `line`. */
function withHeadline(dir: string, from: string, line: string, name = 'h.yaml'): string {
  const text = readFileSync(from, 'utf8');
  const out = /^headline:.*$/m.test(text) ? text.replace(/^headline:.*$/m, line) : text.replace(/^(trials: .*)$/m, `$1\n${line}`);
  const f = path.join(dir, name);
  writeFileSync(f, out);
  return f;
}

/** Where the `headline:` line is in a file (1-based), and its text. */
function lineOf(f: string): { n: number; text: string } {
  const lines = readFileSync(f, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.startsWith('headline:'));
  return { n: i + 1, text: lines[i] };
}

describe('headline: validation', () => {
  it('an unknown name (with a suggestion), a repeat, an empty list and a wrong type: exit 2 at file:line:col, nothing written', async () => {
    const dir = tmp();
    const cases: [string, (n: number, text: string) => RegExp][] = [
      ['headline: [mean_breach_rnd, p_breach]', (n) => new RegExp(`h\\.yaml:${n}:12 {2}headline\\[0\\] {2}unknown metric "mean_breach_rnd" \\(did you mean "mean_breach_round"\\?\\)`)],
      ['headline: p_dragon_wins', (n) => new RegExp(`h\\.yaml:${n}:11 {2}headline {2}unknown metric "p_dragon_wins" \\(this scenario's metrics: p_attacker_wins, .*mean_breach_round.*\\)`)],
      ['headline: [p_breach, mean_breach_round, p_breach]', (n) => new RegExp(`h\\.yaml:${n}:41 {2}headline\\[2\\] {2}metric "p_breach" is listed twice \\(items 1 and 3\\): list each metric once`)],
      ['headline: []', (n) => new RegExp(`h\\.yaml:${n}:11 {2}headline {2}list at least one metric`)],
      ['headline: 5', (n) => new RegExp(`h\\.yaml:${n}:11 {2}headline {2}a metric name, or a list of metric names`)],
      ['headline: [p_breach, 3]', (n) => new RegExp(`h\\.yaml:${n}:22 {2}headline\\[1\\] {2}expected text, got 3`)],
      ['headline: { metric: p_breach }', (n) => new RegExp(`h\\.yaml:${n}:11 {2}headline {2}a metric name, or a list of metric names`)],
    ];
    // one file a case, all in one run: run checks every file before anything runs and says every
    // problem at once, each at its own file:line:col (one hiding another's fails here)
    const files = cases.map(([line], i) => withHeadline(dir, ENGINES, line, `h${i + 1}.yaml`));
    const out = path.join(dir, 'out');
    const r = await runCli(['run', ...files, '--trials', '100', '--no-progress', '--out', out]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    const said = r.stderr.trimEnd().split('\n');
    expect(said.at(-1)).toBe(`siegesim: ${cases.length} problems found; nothing was run or written`);
    cases.forEach(([line, want], i) => {
      const { n } = lineOf(files[i]);
      const mine = said.filter((l) => l.includes(`h${i + 1}.yaml:`));
      expect(mine, line).toHaveLength(1);
      expect(mine[0].replace(`h${i + 1}.yaml:`, 'h.yaml:'), line).toMatch(want(n, line));
    });
    // one name written alone is a list of one; a name the system cannot produce here (a siege's metric in an open field) is not one of this scenario's
    // (both through one child: test/cli-batch.ts)
    const [one, field] = await runCliBatch([
      ['validate', withHeadline(dir, ENGINES, 'headline: mean_breach_round', 'one.yaml')],
      ['validate', withHeadline(dir, path.join(ROOT, 'scenarios/fantasy/open-field-volley.yaml'), 'headline: [mean_breach_round]', 'field.yaml')],
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(field.code).toBe(2);
    expect(field.stderr).toMatch(/headline\[0\] {2}unknown metric "mean_breach_round"/);
  }, 120_000);
});

describe('headline: the answer', () => {
  it('engines-vs-wall answers "when does the wall fall?": its headline metrics in order, in the printed answer, the page and the index; no 0.5 answer for a mean', async () => {
    const dir = tmp();
    const out = path.join(dir, 'engines');
    const r = await runCli(['run', ENGINES, '--trials', '2000', '--threads', '1', '--no-progress', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    // the numbers: after the head line and who the sides are (a fantasy siege's armies)
    const lines = r.stdout.split('\n').filter((l) => !/^(?: {2}sides: | {4}\S)/.test(l));
    expect(r.stdout.split('\n')[1]).toMatch(/^ {2}sides: attacker = the army outside the wall \(/);
    expect(lines[1]).toMatch(/^ {2}case {2}hp {2}mean_breach_round {2}p_breach$/);
    // the round of the breach grows with the wall's HP (3 engines, 2d6 each a round: 15 HP falls in round 1 or 2)
    const rounds = lines.slice(2, 6).map((l) => Number(l.trim().split(/\s+/)[2]));
    expect(rounds[0]).toBeGreaterThan(1);
    expect(rounds[0]).toBeLessThan(1.2);
    expect(rounds).toEqual([...rounds].sort((a, b) => a - b));
    expect(r.stdout).not.toContain('p_attacker_wins');
    expect(r.stdout).not.toContain('reaches');
    // a mean's answer: its lowest and highest over the sweep, with intervals and where
    expect(r.stdout).toContain('mean_breach_round over the swept values (a mean: no target is read):');
    const [first, last] = [lines[2], lines[5]].map((l) => l.trim().split(/\s+/)[2]);
    expect(r.stdout).toMatch(new RegExp(`^ {2}${first} \\[[\\d., ]+\\] {2}at hp=15 {2}${last} \\[[\\d., ]+\\] {2}at hp=80$`, 'm'));

    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    expect(summary.headline).toEqual(['mean_breach_round', 'p_breach']);
    // the lead chart is about the headline: a panel each, no target line on a mean
    const lead = JSON.parse(readFileSync(path.join(out, 'charts/mean_breach_round_sweep.vl.json'), 'utf8'));
    // a panel each, the conditional mean's saying over which trials it averages
    expect(lead.hconcat.map((p: { title: unknown }) => p.title)).toEqual([{ text: 'mean_breach_round', subtitle: ['only the trials', 'counted by p_breach'] }, 'p_breach']);
    expect(lead.title.subtitle).toBeUndefined();
    expect(readdirSync(path.join(out, 'charts')).filter((f) => f.startsWith('p_attacker_wins'))).toEqual([]);
    const page = readFileSync(path.join(out, 'index.html'), 'utf8');
    const answer = page.slice(page.indexOf('<h2>Answer'), page.indexOf('<h2>All metrics'));
    expect(answer).toContain('charts/mean_breach_round_sweep.svg');
    expect(answer).not.toContain('reaches');
    expect(answer).toContain('How <code>mean_breach_round</code> varies over the swept values');

    // merge prints the answer run prints, by the same rule
    // the shards (on one thread: their chunks do not depend on it) and the merge through one child (test/cli-batch.ts)
    const shards = [1, 2].map((k) => path.join(dir, `s${k}.json`));
    const [...made] = await runCliBatch([
      ...shards.map((s, i) => ['run', ENGINES, '--trials', '2000', '--threads', '1', '--shard', `${i + 1}/2`, '--no-progress', '--out', s]),
      ['merge', ENGINES, ...shards, '--out', path.join(dir, 'merged')],
    ]);
    const merged = made.pop()!;
    for (const sh of made) expect(sh.code, sh.stderr).toBe(0);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^ {2}sides: attacker = the army outside the wall \(/m);
    expect(merged.stdout).toMatch(/^ {2}case {2}hp {2}mean_breach_round {2}p_breach$/m);

    // sensitivity ranks by headline[0] unless --metric says otherwise
    const sens = await runCli(['sensitivity', ENGINES, '--params', 'wall.hp', '--trials', '1000', '--threads', '1', '--no-progress', '--out', path.join(dir, 'sens')]);
    expect(sens.code, sens.stderr).toBe(0);
    expect(sens.stdout).toMatch(/^rank {2}setting {2}change in mean_breach_round /m);

    await writeIndex(dir);
    const index = readFileSync(path.join(dir, 'index.html'), 'utf8');
    const row = index.split('\n').find((l) => l.includes('href="engines/index.html"'))!;
    const cell = row.split('<td class="l">')[1];
    expect([...cell.matchAll(/<code>([a-z_]+)<\/code>/g)].map((m) => m[1])).toEqual(['mean_breach_round', 'p_breach']);
  }, 120_000);

  it('a variants run shows the headline in its order, the way of ending it names with its whole partition, grouped; a sweep reads "where it reaches 0.5" on a probability headline[0]', async () => {
    const dir = tmp();
    const volley = await runCli(['run', path.join(ROOT, 'scenarios/fantasy/open-field-volley.yaml'), '--trials', '500', '--threads', '1', '--no-progress', '--out', path.join(dir, 'volley'), '--no-charts']);
    expect(volley.code, volley.stderr).toBe(0);
    // headline: [mean_volley_a_damage, p_attacker_wins]: p_attacker_wins brings p_defender_wins and p_undecided, which sum to 1 with it
    const shown = ['mean_volley_a_damage', 'p_attacker_wins', 'p_defender_wins', 'p_undecided'];
    const names = volley.stdout.split('what these metrics count:')[0].split('\n').slice(1).map((l) => l.match(/^ {2}([a-z_]+) /)?.[1]).filter(Boolean);
    expect(names).toEqual(shown);
    const page = readFileSync(path.join(dir, 'volley/index.html'), 'utf8');
    const answer = page.slice(page.indexOf('<table class="answer">'), page.indexOf('</table>', page.indexOf('<table class="answer">')));
    expect([...answer.matchAll(/<th(?: class="sep")?(?: rowspan="2")?>([a-z_]+)<\/th>/g)].map((m) => m[1])).toEqual(shown);
    expect(answer).toContain('<th rowspan="2">mean_volley_a_damage</th><th colspan="3" class="group sep">how each trial ends (one of these, so they sum to 1)</th>');

    const f = withHeadline(dir, CLIMBERS, 'headline: [p_breach, p_attacker_wins]');
    const climb = await runCli(['run', f, '--trials', '1000', '--threads', '1', '--no-progress', '--out', path.join(dir, 'climb'), '--no-charts']);
    expect(climb.code, climb.stderr).toBe(0);
    // a sweep with variants prints a block per metric, in the headline's order
    expect(climb.stdout).toMatch(/^ {2}metric {11}dc {2}at-least-dc {2}above-dc {2}Δ above-dc$/m);
    expect([...climb.stdout.matchAll(/^ {2}(p_[a-z_]+) +8 /gm)].map((m) => m[1])).toEqual(['p_breach', 'p_attacker_wins', 'p_defender_wins', 'p_undecided']);
    expect(climb.stdout).toContain('where p_breach reaches 0.5 among the swept values');
    expect(climb.stdout).not.toContain('where p_attacker_wins reaches');
    const lead = JSON.parse(readFileSync(path.join(dir, 'climb/charts/p_breach_sweep.vl.json'), 'utf8'));
    expect(lead.title.subtitle).toContain('target 0.5 on p_breach');
  }, 120_000);

  it('a 2-D sweep led by a mean: its heatmap on its own scale, without the 50% contour or a 0.5 answer', async () => {
    const dir = tmp();
    const f = withHeadline(dir, GRID, 'headline: [mean_breach_round, p_breach]');
    const r = await runCli(['run', f, '--trials', '200', '--threads', '1', '--no-progress', '--out', path.join(dir, 'grid'), '--no-charts']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('reaches');
    // at 200 trials an end is told from few other cases: those its interval cannot part are counted
    expect(r.stdout).toMatch(/^ {2}[\d.]+ \[[\d., ]+\] {2}at hp=\d+, dc=\d+(?: and \d+ more)?(?: \(\d+ overlaps?\))? {2}[\d.]+ \[[\d., ]+\] {2}at hp=\d+, dc=\d+/m);
    const heat = JSON.parse(readFileSync(path.join(dir, 'grid/charts/mean_breach_round_heatmap.vl.json'), 'utf8'));
    expect(heat.title).toEqual({ text: 'mean_breach_round over hp x dc' });
    expect(heat.data.values.filter((v: { kind: string }) => v.kind === 'edge')).toEqual([]);
    const domain = heat.layer[0].encoding.color.scale.domain;
    expect(domain[0]).toBe(0);
    expect(domain[1]).toBeGreaterThan(1); // rounds, not [0, 1]
  }, 120_000);
});
