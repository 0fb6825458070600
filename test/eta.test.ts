/** The long-run line (src/cli/eta.ts): its decision and its wording, on a clock driven by hand (no timing). */
import { describe, expect, it } from 'vitest';
import { ETA_MEASURE_S, ETA_NOTICE_S, ETA_SETTLE_S, etaNotice, etaWatch, showDuration, showRate } from '../src/cli/eta.js';

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

  it('decides from the rate once warm: long runs get the line, short ones nothing', () => {
    const warm = { seconds: 3.5, done: 4096 }; // the first progress ETA_SETTLE_S after the first results
    const one = { threads: 2, cases: 1 };
    // not measured long enough yet: no decision
    expect(etaNotice(warm, { seconds: 3.5 + ETA_MEASURE_S / 2, done: 1e6 }, 1e10, one)).toBeUndefined();
    expect(etaNotice(warm, { seconds: 3.5 + ETA_MEASURE_S, done: 4096 }, 1e10, one)).toBeUndefined(); // nothing new
    // 2.1 M trials/s once warm; 1e10 trials planned: about 4,760 s in all
    const at = { seconds: 3.5 + ETA_MEASURE_S, done: 4096 + 2.1e6 * ETA_MEASURE_S };
    expect(etaNotice(warm, at, 1e10, one)).toBe(
      'this run of 10,000,000,000 trials will take about 1 h 19 min in all, at 2.1 M trials/s on 2 threads (Ctrl-C stops it; nothing is written)',
    );
    expect(etaNotice(warm, at, 3e10, { threads: 1, cases: 1 })).toMatch(/^this run of 30,000,000,000 trials will take about 3 h 58 min in all, at 2\.1 M trials\/s on 1 thread \(/);
    // three variants roll each trial's dice: three times the trials, at three times the rate, in the same time
    expect(etaNotice(warm, at, 1e10, { threads: 2, cases: 3 })).toMatch(/^this run of 30,000,000,000 trials will take about 1 h 19 min in all, at 6\.3 M trials\/s on 2 threads/);
    // short: decided, nothing said (just under and just over the threshold)
    const rate = 2.1e6;
    const planned = (s: number) => at.done + (s - at.seconds) * rate;
    expect(etaNotice(warm, at, planned(ETA_NOTICE_S - 1), one)).toBe('');
    expect(etaNotice(warm, at, planned(ETA_NOTICE_S + 1), one)).toMatch(/^this run of [\d,]+ trials will take about 1 min in all/);
  });

  it('measures the rate once warm, over all the cases, so the numbers in the line multiply out', () => {
    // The trial's run (stone-wall-siege, 3 variants, --trials 3000000, 2 threads): the first
    // results at 1.4 s, the kernels compiling until 3.4 s (10 k sweep-point trials/s), then
    // 50 k/s (150 k trials/s over the 3 cases). It printed `about 1 min in all, at 36 k trials/s`:
    // the rate counted the cold seconds and one case's trials, so 9 M trials at it took 4 min.
    let t = 1.4;
    const said: string[] = [];
    const watch = etaWatch(() => t, { threads: 2, cases: 3 }, (l) => said.push(l));
    const planned = 3_000_000;
    for (let done = 4096; t < 15 && said.length === 0; done += 4096) {
      watch(done, planned); // a chunk merged
      t += 4096 / (t < 3.4 ? 10_000 : 50_000);
    }
    expect(said).toHaveLength(1);
    const m = /^this run of ([\d,]+) trials will take about (\d+) min in all, at (\d+) k trials\/s on 2 threads \(/.exec(said[0]);
    expect(m, said[0]).not.toBeNull();
    const [trials, minutes, rate] = [Number(m![1].replace(/,/g, '')), Number(m![2]), Number(m![3]) * 1000];
    expect(trials).toBe(9_000_000);
    expect(rate).toBe(150_000); // 3 x 50 k
    expect(minutes).toBe(1); // 3.4 s cold, then 60 s warm
    // the line's own numbers: its trials at its rate take its time, to within the rounding of a minute
    expect(Math.abs(trials / rate / 60 - minutes)).toBeLessThan(0.5);
  });

  it('names the threads running the run when it speaks: this one until a pool has loaded (run.ts reads them then)', () => {
    let t = 0;
    let threads = 1; // a cold pool: the run starts in this thread
    const said: string[] = [];
    const watch = etaWatch(() => t, { get threads() { return threads; }, cases: 1 }, (l) => said.push(l));
    t = 1;
    watch(1000, 1e10);
    t = 1 + ETA_SETTLE_S;
    watch(4e6, 1e10);
    threads = 2; // the pool has loaded since
    t = 1 + ETA_SETTLE_S + ETA_MEASURE_S;
    watch(4e6 + 2e6 * ETA_MEASURE_S, 1e10);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/ on 2 threads /);
  });

  it('says the line at most once, and only after the rate is known', () => {
    let t = 0;
    const said: string[] = [];
    const watch = etaWatch(() => t, { threads: 2, cases: 1 }, (l) => said.push(l));
    t = 1;
    watch(1000, 1e10); // the first results
    t = 2;
    watch(2e6, 1e10); // too soon to trust
    t = 1 + ETA_SETTLE_S;
    watch(4e6, 1e10); // warm: the rate is measured from here
    t = 2 + ETA_SETTLE_S;
    watch(6e6, 1e10); // not measured long enough
    expect(said).toEqual([]);
    t = 1 + ETA_SETTLE_S + ETA_MEASURE_S;
    watch(4e6 + 2e6 * ETA_MEASURE_S, 1e10);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/, at 2 M trials\/s on 2 threads /);
    t = 20;
    watch(2e7, 1e10);
    expect(said).toHaveLength(1);
    // a short run: never a line
    const quiet: string[] = [];
    const w2 = etaWatch(() => t, { threads: 2, cases: 1 }, (l) => quiet.push(l));
    t = 0.2;
    w2(4096, 40960);
    t = 0.2 + ETA_SETTLE_S;
    w2(20480, 40960);
    t = 0.2 + ETA_SETTLE_S + ETA_MEASURE_S;
    w2(40960, 40960);
    expect(quiet).toEqual([]);
  });
});
