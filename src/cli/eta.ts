/**
 * The one line a long run says on stderr once its speed is known: how long it will take in all,
 * at what rate, and how to stop it. Decided once, from the progress the engine reports (trials
 * done, trials planned); the clock is given (`now`), so tests drive it by hand.
 */
import { showCount } from '../report/format.js';

/**
 * Seconds of progress, counted from the first results, before the rate is measured: the first
 * chunks run before V8 has compiled the kernel (~20x slower, engine/run.ts), and the threads
 * start one after the other, so a rate that counts them is too low.
 */
export const ETA_SETTLE_S = 2;
/** Seconds the rate is then measured over (all threads together): from the first progress after ETA_SETTLE_S to now. */
export const ETA_MEASURE_S = 2;
/** A run estimated to take longer than this in all gets the line. */
export const ETA_NOTICE_S = 60;

/** Progress at one moment: seconds since the run started, trials done by then. */
export interface EtaSample {
  seconds: number;
  done: number;
}

/** What the line says of the run besides its progress. */
export interface EtaRun {
  /** Threads running it (the line names them). */
  threads: number;
  /**
   * Cases each trial of the progress counts: the engine counts a sweep point's trials once for
   * all its variants, which roll the same dice, while the run's own line ("3 case(s) x 3,000,000
   * trials ... trials/s") counts every case's. The line counts as the run's line does.
   */
  cases: number;
}

/**
 * The decision, from the progress once warm (`warm`) and now: undefined while the rate is not
 * yet known (less than ETA_MEASURE_S since `warm`, or nothing new done), '' when the run will not
 * be long, else the line's text (without the scenario's name). Its numbers multiply out: the
 * trials in all over the rate are the time in all, less the few seconds before the kernels were warm.
 */
export function etaNotice(warm: EtaSample, now: EtaSample, planned: number, run: EtaRun): string | undefined {
  const dt = now.seconds - warm.seconds;
  const dn = now.done - warm.done;
  if (!(dt >= ETA_MEASURE_S) || !(dn > 0)) return undefined;
  const rate = dn / dt;
  const total = now.seconds + Math.max(0, planned - now.done) / rate;
  if (!(total > ETA_NOTICE_S)) return '';
  const { threads, cases } = run;
  return (
    `this run of ${showCount(planned * cases)} trials will take about ${showDuration(total)} in all, ` +
    `at ${showRate(rate * cases)} trials/s on ${threads} thread${threads === 1 ? '' : 's'} (Ctrl-C stops it; nothing is written)`
  );
}

/**
 * Feed it every progress report (`onProgress`: a sweep point's trials done and planned, as the
 * engine counts them); it says the line (through `say`) at most once, when etaNotice has
 * decided, and does nothing after that. The rate is measured from the first report at least
 * ETA_SETTLE_S after the first results, never over those cold seconds.
 */
export function etaWatch(now: () => number, run: EtaRun, say: (line: string) => void): (done: number, planned: number) => void {
  let first: number | undefined;
  let warm: EtaSample | undefined;
  let decided = false;
  return (done, planned) => {
    if (decided) return;
    const t = now();
    if (first === undefined) first = t;
    if (!warm) {
      if (t - first >= ETA_SETTLE_S) warm = { seconds: t, done };
      return;
    }
    const line = etaNotice(warm, { seconds: t, done }, planned, run);
    if (line === undefined) return;
    decided = true;
    if (line !== '') say(line);
  };
}

/**
 * A duration as a person reads it: `45 s`, `12 min`, `4 h 10 min`, `3 days 5 h`, `1,157 days`.
 * @example showDuration(15000) // '4 h 10 min'
 */
export function showDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'forever';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
  const days = Math.floor(h / 24);
  if (days < 10) return `${days} days${h % 24 ? ` ${h % 24} h` : ''}`;
  return `${showCount(Math.round(h / 24))} days`;
}

/**
 * A rate with two significant digits and a unit: `2.1 M`, `850 k`, `120`.
 * @example showRate(2_134_000) // '2.1 M'
 */
export function showRate(perSecond: number): string {
  if (perSecond >= 1e6) return `${showCount(Number((perSecond / 1e6).toPrecision(2)))} M`;
  if (perSecond >= 1e3) return `${Number((perSecond / 1e3).toPrecision(2))} k`;
  return String(Math.round(perSecond));
}
