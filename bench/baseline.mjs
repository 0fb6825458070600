// Benchmarks that travel between machines: every rate is also expressed relative to a fixed
// calibration loop measured in the same run, so a baseline saved on one machine can be
// compared on another (`--save FILE`, `--baseline FILE [--tolerance 0.15]` in bench/run.mjs).
//
// The calibration loop is frozen here on purpose: it imports nothing from the project, so a
// change that slows the project's generator or dice shows as a slower benchmark instead of
// moving the yardstick with it. It does what the kernels do — xoshiro128** on int32 state,
// unbiased d6 by multiply-high with rejection, typed-array accumulation, data-dependent
// branches — and nothing else.

/** Version of the baseline file format (and of the calibration loop: change it, bump this). */
export const BASELINE_FORMAT = 1;

const CAL_STATE = new Int32Array(4);
const CAL_ACC = new Float64Array(8);

/** One xoshiro128** step on CAL_STATE (Blackman & Vigna), as an unsigned 32-bit integer. */
function calNext() {
  const s = CAL_STATE;
  const r = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
  const t = s[1] << 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 11);
  return r;
}
function rotl(x, k) {
  return (x << k) | (x >>> (32 - k));
}
/** An unbiased d6 (Lemire's multiply-high with rejection). */
function calD6() {
  const threshold = 4294967296 % 6; // 2^32 mod 6 = 4
  for (;;) {
    const x = calNext();
    const lo = Math.imul(x, 6) >>> 0; // low 32 bits of x * 6
    if (lo >= threshold) return Math.floor((x * 6) / 4294967296) + 1;
  }
}

/** The calibration loop: n "battles" of 8 dice each, hits counted, a result accumulated. */
export function calibrationLoop(n) {
  CAL_STATE[0] = 0x9e3779b9 | 0;
  CAL_STATE[1] = 0x243f6a88 | 0;
  CAL_STATE[2] = 0xb7e15162 | 0;
  CAL_STATE[3] = 0x6a09e667 | 0;
  for (let i = 0; i < n; i++) {
    let hits = 0;
    for (let d = 0; d < 8; d++) if (calD6() <= 2) hits++;
    CAL_ACC[hits & 7] += 1;
  }
  return CAL_ACC[0];
}

export const CALIBRATION = 'xoshiro128** + 8 unbiased d6 + accumulate per iteration (bench/baseline.mjs, frozen)';

/** Median of a list of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The rates of a results tree, by dotted name: every `*_per_second_per_thread`, and every
 * `*_per_second` that has no per-thread sibling. `threads` is the thread count when the rate
 * is of a run on several (a `threads` sibling, or a `threads_N` parent): such rates depend on
 * the machine's cores and are compared only between machines with as many.
 */
export function ratesOf(results, prefix = '', threads = undefined) {
  const out = {};
  const here = typeof results?.threads === 'number' ? results.threads : threads;
  for (const [k, v] of Object.entries(results ?? {})) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, ratesOf(v, name, /^threads_(\d+)$/.test(k) ? Number(k.slice(8)) : here));
    else if (typeof v === 'number' && Number.isFinite(v) && v > 0) {
      const perThread = k.endsWith('_per_second_per_thread');
      const total = k.endsWith('_per_second') && !(`${k}_per_thread` in results);
      if (perThread || total) out[name] = { value: v, ...(here !== undefined ? { threads: here } : {}) };
    }
  }
  return out;
}

/**
 * The baseline document: each rate raw and relative to the calibration — for a benchmark
 * measured by rate() (run.mjs) the best of its CPU-time ratios to the calibration run paired
 * with each timed run, else its rate over the run's calibration.
 */
export function baselineDoc(doc, log = []) {
  const benchmarks = {};
  for (const [name, r] of Object.entries(ratesOf(doc.results))) {
    const m = pairedMeasurement(log, r.value);
    // paired: the best CPU-time ratio to the calibration run just before each timed run;
    // else (whole pipelines on every thread) the wall-clock rate over the run's wall-clock
    // calibration, meaningful on an otherwise idle machine only
    const relative = m ? m.relative : r.value / doc.calibration.wall_ops_per_second;
    benchmarks[name] = { ...r, relative: +relative.toPrecision(6) };
  }
  return {
    format: BASELINE_FORMAT,
    date: doc.date,
    node: doc.node,
    cpu: doc.cpu,
    cores: doc.cores,
    seconds_per_measure: doc.seconds_per_measure,
    calibration: doc.calibration,
    benchmarks,
  };
}

/**
 * Compare a run with a baseline: ratio = (rate / calibration now) / (rate / calibration then).
 * A benchmark fails when its ratio is below 1 − tolerance. Rates of runs on several threads
 * are compared only on a machine with the baseline's cores and threads (otherwise listed as
 * `info`); benchmarks on one side only are listed (`new`, `missing`) and never fail.
 */
export function compareBaseline(baseline, current, tolerance, log = []) {
  if (baseline.format !== BASELINE_FORMAT) throw new Error(`baseline format ${baseline.format}; this bench writes format ${BASELINE_FORMAT}: save a new one`);
  const now = baselineDoc(current, log).benchmarks;
  const rows = [];
  for (const [name, b] of Object.entries(baseline.benchmarks)) {
    const c = now[name];
    if (!c) {
      // not measured in this run (a subset was asked for) or gone: say so, do not fail
      rows.push({ name, baseline: b.relative, current: null, ratio: null, status: 'missing' });
      continue;
    }
    const ratio = c.relative / b.relative;
    const comparable = !(b.threads > 1 || c.threads > 1) || (b.threads === c.threads && baseline.cores === current.cores);
    const status = !comparable ? 'info' : ratio < 1 - tolerance ? 'SLOWER' : ratio > 1 + tolerance ? 'faster' : 'ok';
    const note = `${c.threads} threads on ${current.cores} cores here, ${b.threads} on ${baseline.cores} in the baseline`;
    rows.push({ name, baseline: b.relative, current: c.relative, ratio: +ratio.toFixed(3), status, ...(comparable ? {} : { note }) });
  }
  for (const [name, c] of Object.entries(now)) if (!(name in baseline.benchmarks)) rows.push({ name, baseline: null, current: c.relative, ratio: null, status: 'new' });
  return { tolerance, pass: rows.every((r) => r.status !== 'SLOWER'), rows };
}

/** The comparison as an aligned text table (stderr), with the calibration of both runs. */
export function comparisonTable(cmp, baseline, current) {
  const f = (x) => (x === null ? '-' : String(x));
  const head = ['benchmark', 'baseline (x cal)', 'now (x cal)', 'ratio', 'status'];
  const rows = cmp.rows.map((r) => [r.name, f(r.baseline), f(r.current === null ? null : +r.current.toPrecision(6)), f(r.ratio), r.status + (r.note ? ` (${r.note})` : '')]);
  const w = head.map((h, k) => Math.max(h.length, ...rows.map((row) => row[k].length)));
  const line = (row) => row.map((c, k) => (k === 0 || k === 4 ? c.padEnd(w[k]) : c.padStart(w[k]))).join('  ').trimEnd();
  const cal = (d) => `${(d.calibration.ops_per_second / 1e6).toFixed(2)} M/s of CPU (spread ${d.calibration.spread})`;
  return [
    `calibration: baseline ${cal(baseline)} on ${baseline.cpu}; now ${cal(current)} on ${current.cpu}`,
    line(head),
    ...rows.map(line),
    `${cmp.pass ? 'baseline met' : 'SLOWER than the baseline'}: tolerance ${cmp.tolerance} (a benchmark fails below ${1 - cmp.tolerance} x its baseline, relative to the calibration)`,
  ].join('\n');
}

/**
 * A timer for the calibration loop: each call runs it once for about `ms` milliseconds of CPU
 * and returns its rate (iterations per second) in CPU time of this process (`cpu`) and in wall
 * time (`wall`). The size is fixed on first use.
 */
export function calibrationTimer(ms) {
  let n = 0;
  const time = (k) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    calibrationLoop(k);
    const wallMs = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { wallMs: Math.max(1e-3, wallMs), cpuMs: Math.max(1e-3, (c.user + c.system) / 1000) };
  };
  return () => {
    if (n === 0) {
      n = 1000;
      while (time(n).cpuMs < 50) n *= 4;
      n = Math.max(1000, Math.round((n * ms) / time(n).cpuMs));
    }
    const t = time(n);
    return { cpu: n / (t.cpuMs / 1000), wall: n / (t.wallMs / 1000) };
  };
}

/**
 * A benchmark measured by rate() (run.mjs), found in its log by the figure it returned, with
 * its relative figure (the best CPU-time ratio to the calibration paired with each run).
 */
export function pairedMeasurement(log, value) {
  return log.find((r) => Math.abs(r.value - value) <= 0.5 + 1e-9 * value);
}

/**
 * One baseline from several saved runs of the same build: each benchmark's lowest relative
 * figure. A gate should hold on every run of an unchanged build, and some kernels are bimodal
 * across processes (V8 compiles them one of two ways), so the baseline is the slower mode.
 */
export function mergeBaselines(docs) {
  if (docs.length === 0) throw new Error('nothing to merge');
  for (const d of docs) if (d.format !== BASELINE_FORMAT) throw new Error(`baseline format ${d.format}, expected ${BASELINE_FORMAT}`);
  const out = structuredClone(docs[0]);
  out.merged_from = docs.map((d) => d.date);
  for (const d of docs.slice(1)) {
    for (const [name, b] of Object.entries(d.benchmarks)) {
      const cur = out.benchmarks[name];
      if (!cur || b.relative < cur.relative) out.benchmarks[name] = structuredClone(b);
    }
  }
  return out;
}

// `node bench/baseline.mjs merge OUT IN...`: write the merged baseline of several saves.
if (process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href) {
  const [cmd, out, ...inputs] = process.argv.slice(2);
  if (cmd !== 'merge' || !out || inputs.length === 0) {
    process.stderr.write('usage: node bench/baseline.mjs merge OUT.json SAVED.json...\n');
    process.exit(2);
  }
  const { readFileSync, writeFileSync } = await import('node:fs');
  writeFileSync(out, JSON.stringify(mergeBaselines(inputs.map((f) => JSON.parse(readFileSync(f, 'utf8')))), null, 2) + '\n');
  process.stderr.write(`bench: ${inputs.length} baselines merged into ${out} (each benchmark's lowest figure)\n`);
}
