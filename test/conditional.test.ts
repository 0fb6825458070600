/**
 * Conditional metrics: a mean over the trials in which an event happened
 * names its event (RulesSystem.conditionalOn: metric_docs, summary.json's conditional_on), and
 * every comparison of two of them says where the event itself moved ("over different trials:
 * p_breach 0.9918 → 0.8367"): a variant's difference (printed answer, report page, summary.json),
 * `diff`, the workbench's wire (its page: test/serve-browser.test.ts) and `sensitivity`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { diffSummaries, sensitivityScenario, validateText, type SummaryDoc } from '../src/api.js';
import { answerText } from '../src/report/answer-text.js';
import { diffText } from '../src/report/diff-report.js';
import { scenarioPage } from '../src/report/html.js';
import { summaryJson } from '../src/report/tables.js';
import { rankingText } from '../src/cli/commands/sensitivity.js';
import { conditionOf, eventShift } from '../src/systems/conditional.js';
import { systemById } from '../src/systems/registry.js';
import type { ScenarioResult } from '../src/systems/types.js';
import { wireCase } from '../src/serve/jobs.js';
import { ROOT, runFile } from './helpers.js';
import { readFileSync } from 'node:fs';

const FIXTURE = 'test/fixtures/conditional-breach.yaml';

describe('conditional metrics', () => {
  let r: ScenarioResult;
  beforeAll(async () => {
    r = await runFile(FIXTURE, 4000);
  });

  it('every bundled mean over fewer observations than trials names its event, whose count is its n', async () => {
    const dir = path.join(ROOT, 'scenarios');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    const found = new Set<string>();
    for (const f of files) {
      const res = await runFile(path.join('scenarios', f), 300);
      const sys = systemById(res.system)!;
      for (const c of res.cases)
        for (const [m, x] of Object.entries(c.metrics)) {
          const event = conditionOf(sys, m);
          if (event === undefined) {
            expect(x.kind === 'mean' && x.n !== c.trials, `${f} ${m}: a mean over ${x.n} of ${c.trials} trials names no event (conditionalOn of ${sys.id})`).toBe(false);
            continue;
          }
          expect(x.kind, `${f} ${m}`).toBe('mean');
          const count = event!.split(' + ').reduce((s, e) => s + c.metrics[e].k!, 0);
          expect(count, `${f} ${m}: its event ${event} counts ${count}, its n is ${x.n}`).toBe(x.n);
          found.add(`${sys.id} ${m}`);
        }
    }
    expect([...found].sort()).toEqual(
      ['cry-havoc mean_days', 'cry-havoc mean_days_to_heal', 'cry-havoc mean_turns', 'cry-havoc mean_turns_to_kill', 'fantasy mean_breach_round', 'surrender mean_turns'].sort(),
    );
  }, 120_000);

  it('metric_docs and summary.json name the event; the difference carries the event\'s shift', () => {
    expect(r.metricDocs!.mean_breach_round).toMatch(/over the trials that had one \(conditional on p_breach: where p_breach differs, two values average different trials\)$/);
    const j = summaryJson(r) as { conditional_on: Record<string, string>; cases: { metrics: Record<string, { conditional_on?: string }>; differences?: Record<string, { over_different_trials?: unknown }> }[] };
    expect(j.conditional_on).toEqual({ mean_breach_round: 'p_breach' });
    expect(j.cases[0].metrics.mean_breach_round.conditional_on).toBe('p_breach');
    expect(j.cases[0].metrics.p_breach.conditional_on).toBeUndefined();
    const d = r.cases[1].differences;
    expect(d.mean_breach_round.overDifferentTrials).toEqual({ event: 'p_breach', from: r.cases[0].metrics.p_breach.value, to: r.cases[1].metrics.p_breach.value });
    expect(d.p_breach.ci_high).toBeLessThan(0);
    expect(j.cases[1].differences!.mean_breach_round.over_different_trials).toEqual({ event: 'p_breach', baseline: r.cases[0].metrics.p_breach.value, variant: r.cases[1].metrics.p_breach.value });
    expect(j.cases[1].differences!.p_breach.over_different_trials).toBeUndefined();
  });

  it('the printed answer and the report page say it next to the difference', () => {
    const sys = systemById('fantasy')!;
    const text = answerText(r, { headline: sys.headline, outcomes: sys.outcomes, charts: sys.charts(r) });
    // a mean over the trials with a breach: its interval Welch's, marked, and said under the table
    expect(text).toMatch(/^ +shields-vs-wall +\S+ \[.*\] +Δ \S+ \[.*\] \(Welch\) \(over different trials: p_breach 0\.99\d+ → 0\.8\d+\)$/m);
    expect(text).toContain("  Variants share dice (common random numbers): a difference's 95% interval is paired");
    expect(text.replace(/\s+/g, ' ')).toContain("Welch's, marked (Welch), for mean_breach_round (a mean over the trials with p_breach): the two sides average different trials");
    expect(text).not.toMatch(/p_breach +as-written.*\n.*Δ.*over different/);
    // the Answer (the headline's metrics by variant) and the table of every metric
    const page = scenarioPage(r, sys.charts(r), []);
    expect(page.match(/<span class="over">over different trials: p_breach 0\.99\d+ → 0\.8\d+<\/span>/g)).toHaveLength(2);
    expect(page.match(/<\/span> <span class="muted">\(Welch\)<\/span><br><span class="over">/g)).toHaveLength(2);
    expect(page).toContain("Welch's, marked (Welch), for <code>mean_breach_round</code> (a mean over the trials with p_breach)");
    expect(page).not.toContain('Welch otherwise');
  });

  it('is not said where the event did not move', () => {
    expect(eventShift('p_breach', { n: 500 }, 1000, { n: 510 }, 1000)).toBeUndefined();
    expect(eventShift('p_breach', { n: 872 }, 1000, { n: 96 }, 1000)).toEqual({ event: 'p_breach', from: 0.872, to: 0.096 });
    // the event's own paired interval decides where there is one
    expect(eventShift('p_breach', { n: 500 }, 1000, { n: 510 }, 1000, { value: 0.01, ci_low: 0.005, ci_high: 0.015 })).toEqual({ event: 'p_breach', from: 0.5, to: 0.51 });
  });

  it('diff says it beside a conditional mean that moved with its event (text and JSON)', () => {
    const doc = (breaches: number, mean: number): SummaryDoc => ({
      name: 'shields',
      system: 'fantasy',
      params: [],
      variants: ['as-written'],
      cases: [
        {
          case: 1,
          variant: 'as-written',
          params: {},
          trials: 10_000,
          metrics: {
            p_breach: { value: breaches / 10_000, ci_low: breaches / 10_000 - 0.005, ci_high: breaches / 10_000 + 0.005, n: 10_000, kind: 'probability' },
            mean_breach_round: { value: mean, ci_low: mean - 0.05, ci_high: mean + 0.05, n: breaches, kind: 'mean' },
          },
        },
      ],
    });
    const d = diffSummaries(doc(8720, 3.1), doc(960, 2.45));
    const row = d.rows.find((x) => x.metric === 'mean_breach_round')!;
    expect(row.over_different_trials).toEqual({ event: 'p_breach', before: 0.872, after: 0.096 });
    expect(d.rows.find((x) => x.metric === 'p_breach')!.over_different_trials).toBeUndefined();
    expect(diffText(d)).toMatch(/mean_breach_round .*\(over different trials: p_breach 0\.8720 → 0\.0960\)/);
  });

  it('the workbench gets it with the tuned case\'s difference', () => {
    const w = wireCase(r.cases[1]) as { differences: Record<string, { over_different_trials?: unknown; paired?: boolean }> };
    // the workbench marks a Welch difference (a mean over the trials of an event); every other is paired
    expect([w.differences.mean_breach_round.paired, w.differences.p_breach.paired, w.differences.mean_rounds.paired]).toEqual([false, true, true]);
    expect(w.differences.mean_breach_round.over_different_trials).toEqual({ event: 'p_breach', from: r.cases[0].metrics.p_breach.value, to: r.cases[1].metrics.p_breach.value });
  });

  it('sensitivity says it beside a step that moved the event', async () => {
    const file = path.join(ROOT, FIXTURE);
    const v = validateText(file, readFileSync(file, 'utf8'));
    if (!v.ok) throw new Error('invalid');
    const s = await sensitivityScenario(v.value, { metric: 'mean_breach_round', params: ['rules.shields_vs_wall', 'wall.hp'], trials: 4000 });
    const row = s.rows.find((x) => x.param === 'rules.shields_vs_wall')!;
    expect(row.over_different_trials).toMatchObject({ event: 'p_breach' });
    expect(row.over_different_trials!.to).toBeLessThan(row.over_different_trials!.from);
    expect(rankingText(s, 5)).toMatch(/false→true \S+ \[.*\]( \(Welch\))? \(over different trials: p_breach 0\.99\d+ → 0\.8\d+\)/);
    // the head says which intervals its rows are: every row here a mean over the trials with a breach, Welch's (it said "paired")
    expect(s.rows.every((x) => !x.paired)).toBe(true);
    expect(rankingText(s, 5)).toContain("change in mean_breach_round (95% interval, Welch's: the cases average different trials)");
    expect(rankingText(s, 5)).not.toContain('paired interval');
  }, 60_000);
});
