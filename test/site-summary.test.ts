/**
 * The static site's run (src/site/summary.ts, what the page's run worker calls) gives the
 * command line's numbers: for a case of every system, its summary.json is byte for byte the file
 * `siegesim run` writes (and `--json` prints), but for what is measured where it ran (threads,
 * seconds, trials/s) and where the scenario was read from (`scenario.source`, a path from the
 * report folder on the command line, the scenario's address on the site).
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, ROOT } from './cli-child.js';
import { runSiteScenario, summaryText } from '../src/site/summary.js';
import { reportOverrides } from '../src/report/summary-json.js';
import { sha256Hex } from '../src/site/sha256.js';

type Summary = { provenance: Record<string, unknown> & { scenario: Record<string, unknown> } };

/** The site's summary with the CLI's measured and where-read keys, so every other byte can be compared. */
function withMeasuredOf(site: Summary, cli: Summary): Summary {
  const copy = JSON.parse(JSON.stringify(site)) as Summary;
  for (const k of ['threads', 'seconds', 'trials_per_second']) copy.provenance[k] = cli.provenance[k];
  copy.provenance.scenario.source = cli.provenance.scenario.source;
  return copy;
}

describe('provenance.overrides', () => {
  it("records a --trials or --seed only where it differs from the file's own (as merge does: the new-user audit found run's {trials} beside merge's {})", () => {
    const file = { trials: 200_000, seed: 7 };
    expect(reportOverrides({ trials: 200_000, seed: 7 }, file)).toEqual({});
    expect(reportOverrides({ trials: 4000, seed: 7 }, file)).toEqual({ trials: 4000 });
    expect(reportOverrides({ trials: 200_000, precision: 0.01, maxTrials: 400_000 }, file)).toEqual({ precision: 0.01, max_trials: 400_000 });
    expect(reportOverrides({ trials: 200_000 })).toEqual({ trials: 200_000 }); // no file to compare with: as given
  });
});

describe('sha256Hex', () => {
  it('is node:crypto\'s SHA-256 at every padding edge and for non-ASCII text', () => {
    for (const s of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(63), 'a'.repeat(64), 'a'.repeat(1000), 'siège: «Jérusalem» ⚔ 🏰\n']) {
      expect(sha256Hex(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
    }
  });
});

// one case of each system: variants (paired differences), a sweep (fantasy), several chunks each, a seed override
const CASES: { file: string; trials: number; seed?: string }[] = [
  { file: 'scenarios/surrender/town-basic.yaml', trials: 600_000 },
  { file: 'scenarios/crusader-rex/case-a-new-siege.yaml', trials: 40_000, seed: 'site-check' },
  { file: 'scenarios/fantasy/climbers-dc.yaml', trials: 9_000 },
  { file: 'scenarios/cry-havoc/melee-unhorse-the-knight.yaml', trials: 140_000 },
];

describe('the site\'s summary.json is the command line\'s', () => {
  for (const c of CASES) {
    it(`${c.file} at ${c.trials} trials${c.seed ? `, seed ${c.seed}` : ''}`, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'siegesim-site-summary-'));
      try {
        const out = path.join(dir, 'report');
        const args = ['run', c.file, '--trials', String(c.trials), ...(c.seed ? ['--seed', c.seed] : []), '--json', '--no-progress', '--no-charts', '--out', out]; // summary.json is what is compared
        const r = await runCli(args);
        expect(r.stderr).not.toMatch(/error/i);
        expect(r.code).toBe(0);
        const written = readFileSync(path.join(out, 'summary.json'), 'utf8');
        const printed = (JSON.parse(r.stdout) as Summary[])[0];
        expect(summaryText(printed)).toBe(written);

        const text = readFileSync(path.join(ROOT, c.file), 'utf8');
        const site = await runSiteScenario(c.file, text, { trials: c.trials, seed: c.seed, source: c.file });
        if (!site.ok) throw new Error(site.issues.map((i) => i.message).join('\n'));
        const s = site.summary as Summary;
        expect(s.provenance.scenario.source).toBe(c.file);
        expect(s.provenance.overrides).toEqual({ trials: c.trials, ...(c.seed ? { seed: c.seed } : {}) });
        expect(summaryText(withMeasuredOf(s, printed))).toBe(written);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 300_000);
  }
});

it('a scenario with an error is its issues, with file:line:col and the CLI\'s message', async () => {
  const text = readFileSync(path.join(ROOT, 'scenarios/surrender/town-basic.yaml'), 'utf8').replace(/^trials:/m, 'trails:');
  const r = await runSiteScenario('pasted.yaml', text, { source: 'pasted' });
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.issues.some((i) => i.file === 'pasted.yaml' && i.line > 0 && /did you mean "trials"/.test(i.message))).toBe(true);
});
