/**
 * Charts to SVG: on a renderer thread of their own where that pays, else in this thread. vega is
 * the heaviest thing siegesim loads (~70-100 ms from its code cache), and a thread of its own
 * costs more again (~50 ms to start an isolate, ~0.1 s of CPU compiling Node's own modules in
 * it). So a renderer thread is started only where the charts can be drawn beside other work: a
 * command that runs long and surely draws (`sensitivity`, `tune`: cli/start.ts) and `run` of
 * several files (the charts of one drawn while the next runs). `run` of one file, `merge` and
 * every other command draw in this thread, after their work (a long one-file run on worker
 * threads loads vega here while it waits for them: preloadVega). The same vega code
 * either way, so the same SVG bytes. Where the built worker is missing (tests from source),
 * charts are always drawn in this thread.
 */
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { fromSources, packageFile } from '../paths.js';
import { Worker } from 'node:worker_threads';

/**
 * Charts drawn in this thread once no kernel runs in this process any more (`run`: after its last
 * scenario's trials; noKernelsFromNow) are drawn with V8's optimizing compiler (TurboFan) paused.
 * Drawing a report's charts runs most of vega's code a few times each: TurboFan, on its
 * background threads, compiled hundreds of vega's functions that were then hardly run again.
 * Paused, the four charts of `wall-hp-dc-grid` drawn cold in a fresh process took ~0.7 s less
 * CPU time and ~0.15 s less wall time; a whole `run` ~15% less CPU, its wall time unchanged on two
 * cores (docs/performance.md, "the charts without the optimizing compiler"). The flag is
 * process-wide (every thread's), hence only where no kernel runs any more, and set back when the
 * charts are drawn. The same vega code runs, unoptimized, so the SVG bytes are the same.
 */
let pauseAllowed = false;
/** Charts drawn in this thread pause: how many drawings are under way (the flag is set back when the last ends). */
let paused = 0;

/** No kernel runs in this process from now on: charts drawn in this thread pause V8's optimizing compiler while they are drawn. */
export function noKernelsFromNow(): void {
  pauseAllowed = true;
}

/** Sets a V8 flag (node:v8's; tests watch it: _watchFlags). */
let setFlag: (flag: string) => void = setFlagsFromString;

/** Tests only: whether charts are drawn with the optimizer paused, and the count under way. */
export const _optimizerPause = (): { allowed: boolean; paused: number } => ({ allowed: pauseAllowed, paused });

/** Tests only: the flags are given to `watch` instead of V8, and pausing is allowed or not (`allowed`); returns a function that puts both back. */
export function _watchFlags(watch: (flag: string) => void, allowed: boolean): () => void {
  const was = { setFlag, pauseAllowed };
  setFlag = watch;
  pauseAllowed = allowed;
  return () => {
    setFlag = was.setFlag;
    pauseAllowed = was.pauseAllowed;
  };
}

function pauseOptimizer(): () => void {
  if (paused++ === 0) setFlag('--no-turbofan');
  return () => {
    if (--paused === 0) setFlag('--turbofan');
  };
}

/** Whether charts are drawn in this thread (no renderer thread started): writeReport then writes its tables first, while the optimizer is on. */
export function drawsHere(): boolean {
  return worker === undefined;
}

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (svg: string) => void; reject: (e: Error) => void }>();

function workerFile(): string | undefined {
  if (fromSources()) return undefined; // tests from source render in their own thread
  const f = packageFile('dist/src/report/render-worker.js');
  return existsSync(f) ? f : undefined;
}

/** Start the renderer thread now (idempotent; none where the built worker is missing); it holds the process open only while rendering. */
export function startRenderer(): void {
  if (worker) return;
  const file = workerFile();
  if (!file) return;
  const w = new Worker(file);
  w.on('message', (m: { id: number; svg?: string; error?: string }) => {
    const p = waiting.get(m.id);
    if (!p) return;
    waiting.delete(m.id);
    if (waiting.size === 0) w.unref();
    if (m.error !== undefined) p.reject(new Error(`chart rendering failed: ${m.error}`));
    else p.resolve(m.svg!);
  });
  w.on('error', (e) => {
    for (const p of waiting.values()) p.reject(e);
    waiting.clear();
    if (worker === w) worker = undefined;
  });
  w.on('exit', () => {
    if (worker === w) worker = undefined;
  });
  w.unref(); // after the listeners: attaching a 'message' listener refs the thread again
  worker = w;
}

/** Render Vega-Lite specs (data inline) to SVG strings, in order. */
export async function renderSvgs(specs: Record<string, unknown>[]): Promise<string[]> {
  if (specs.length === 0) return [];
  const w = worker; // none started: drawn here (startRenderer says when a thread of its own pays)
  if (!w) {
    // vega loaded (from its code cache) before any pause: the cache is checked against the flags
    const { renderSvg } = await import('./render.js');
    const resume = pauseAllowed ? pauseOptimizer() : undefined;
    try {
      const out: string[] = [];
      for (const s of specs) out.push(await renderSvg(s));
      return out;
    } finally {
      resume?.();
    }
  }
  w.ref();
  return Promise.all(
    specs.map(
      (spec) =>
        new Promise<string>((resolve, reject) => {
          const id = nextId++;
          waiting.set(id, { resolve, reject });
          w.postMessage({ id, spec });
        }),
    ),
  );
}

/**
 * Load vega in this thread now, for charts drawn here later: for a long run whose kernels keep
 * every core busy on worker threads while this thread mostly waits for their results, so that
 * vega's load (~70-100 ms) is not added after the run (cli/commands/run.ts).
 */
export function preloadVega(): void {
  if (worker) return; // drawn on the renderer thread
  import('./render.js').catch(() => undefined); // a failure shows where the charts are drawn
}

/** Stop the renderer thread (tests; the CLI just exits). */
export async function stopRenderer(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
}
