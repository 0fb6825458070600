/** bench/run.mjs's command line and verdicts (bench/harness.mjs): what a CI owner relies on. */
import { describe, expect, it } from 'vitest';
import { BenchUsageError, judgeTargets, missLines, parseBenchArgs } from '../bench/harness.mjs';

const NAMES = ['dice', 'surrender', 'fantasy', 'crusader-rex', 'cry-havoc'];

describe('bench arguments', () => {
  it('takes names, --seconds and --check', () => {
    expect(parseBenchArgs(['surrender', '--seconds', '3', '--check', 'dice'], NAMES)).toEqual({ only: ['surrender', 'dice'], seconds: 3, check: true });
    expect(parseBenchArgs([], NAMES)).toEqual({ only: [], seconds: 2, check: false });
  });

  it('an unknown name is a usage error that suggests the near name and lists them all', () => {
    expect(() => parseBenchArgs(['surender', '--check'], NAMES)).toThrow(BenchUsageError);
    expect(() => parseBenchArgs(['surender'], NAMES)).toThrow(
      'unknown benchmark "surender" (did you mean "surrender"?); the benchmarks are: dice, surrender, fantasy, crusader-rex, cry-havoc',
    );
    expect(() => parseBenchArgs(['--sconds', '3'], NAMES)).toThrow('unknown option --sconds');
    expect(() => parseBenchArgs(['--seconds', 'x'], NAMES)).toThrow('--seconds needs a positive number');
  });
});

describe('bench targets', () => {
  const results = { k: { speed: 4, heap: 0.2 }, other: { speed: 9 } };
  const targets = { 'k.speed': 5, 'k.heap': { max: 0.05 }, 'other.speed': 5, 'absent.speed': 1 };

  it('judges only what was measured, and names every miss on its own line', () => {
    const judged = judgeTargets(results, targets);
    expect(judged.map((t) => [t.metric, t.pass])).toEqual([
      ['k.speed', false],
      ['k.heap', false],
      ['other.speed', true],
    ]);
    expect(missLines(judged)).toEqual(['bench: target missed: k.speed = 4 (target >= 5)', 'bench: target missed: k.heap = 0.2 (target <= 0.05)']);
    expect(missLines(judgeTargets({ k: { speed: 6, heap: 0 } }, targets))).toEqual([]);
  });
});
