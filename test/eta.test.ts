/** The long-run line (src/cli/eta.ts): its decision and its wording, on a clock driven by hand (no timing). */
import { describe, expect, it } from 'vitest';
import { ETA_NOTICE_S, ETA_SETTLE_S, etaNotice, etaWatch, showDuration, showRate } from '../src/cli/eta.js';

describe('the long-run line', () => {
  it('writes durations and rates as a person reads them', () => {
    expect(showDuration(45)).toBe('45 s');
    expect(showDuration(61)).toBe('1 min');
    expect(showDuration(12.4 * 60)).toBe('12 min');
    expect(showDuration(15000)).toBe('4 h 10 min');
    expect(showDuration(3 * 3600)).toBe('3 h');
    expect(showDuration(3 * 86400 + 5 * 3600)).toBe('3 days 5 h');
    expect(showDuration(1e8)).toBe('1,157 days');
    expect(showRate(2_134_000)).toBe('2.1 M');
    expect(showRate(12_340_000)).toBe('12 M');
    expect(showRate(850_400)).toBe('850 k');
    expect(showRate(120.4)).toBe('120');
  });

  it('decides from the rate after the first results, once they have settled: long runs get the line, short ones nothing', () => {
    const first = { seconds: 1.5, done: 4096 }; // the first results, slow (the kernel not yet compiled)
    // not settled yet: no decision
    expect(etaNotice(first, { seconds: 1.5 + ETA_SETTLE_S / 2, done: 1e6 }, 1e10, 2)).toBeUndefined();
    expect(etaNotice(first, { seconds: 1.5 + ETA_SETTLE_S, done: 4096 }, 1e10, 2)).toBeUndefined(); // nothing new
    // 2.1 M trials/s after the first results; 1e10 trials planned: about 4,760 s in all
    const at = { seconds: 1.5 + ETA_SETTLE_S, done: 4096 + 2.1e6 * ETA_SETTLE_S };
    expect(etaNotice(first, at, 1e10, 2)).toBe('this run will take about 1 h 19 min in all, at 2.1 M trials/s on 2 threads (Ctrl-C stops it; nothing is written)');
    expect(etaNotice(first, at, 3e10, 1)).toMatch(/^this run will take about 3 h 58 min in all, at 2\.1 M trials\/s on 1 thread \(/);
    // short: decided, nothing said (just under and just over the threshold)
    const rate = 2.1e6;
    const planned = (s: number) => at.done + (s - at.seconds) * rate;
    expect(etaNotice(first, at, planned(ETA_NOTICE_S - 1), 2)).toBe('');
    expect(etaNotice(first, at, planned(ETA_NOTICE_S + 1), 2)).toMatch(/^this run will take about 1 min in all/);
  });

  it('says the line at most once, and only after the rate is known', () => {
    let t = 0;
    const said: string[] = [];
    const watch = etaWatch(() => t, 2, (l) => said.push(l));
    t = 1;
    watch(1000, 1e10); // the first results
    t = 2;
    watch(2e6, 1e10); // too soon to trust
    expect(said).toEqual([]);
    t = 1 + ETA_SETTLE_S;
    watch(1000 + 2e6 * ETA_SETTLE_S, 1e10);
    expect(said).toHaveLength(1);
    t = 10;
    watch(2e7, 1e10);
    expect(said).toHaveLength(1);
    // a short run: never a line
    const quiet: string[] = [];
    const w2 = etaWatch(() => t, 2, (l) => quiet.push(l));
    t = 0.2;
    w2(4096, 40960);
    t = 0.2 + ETA_SETTLE_S;
    w2(40960, 40960);
    expect(quiet).toEqual([]);
  });
});
