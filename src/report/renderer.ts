/**
 * Charts to SVG: on a renderer thread of their own where that pays, else in this thread. vega is
 * the heaviest thing siegesim loads (~70-100 ms from its code cache), and a thread of its own
 * costs more again (~50 ms to start an isolate, ~0.1 s of CPU compiling Node's own modules in
 * it). So a renderer thread is started only where the charts can be drawn beside other work: a
 * command that runs long and surely draws (`sensitivity`, `tune`: cli/start.ts), `run` of
 * several files (the charts of one drawn while the next runs), and `run` of one file once it is
 * seen to run long on a machine with a core the kernels leave free (cli/commands/run.ts). A
 * short run of one file, `merge` and every other command draw in this thread, after their work:
 * a tiny run's critical path was the thread's start and vega's load on it. The same vega code
 * either way, so the same SVG bytes. Where the built worker is missing (tests from source),
 * charts are always drawn in this thread.
 */
import { existsSync } from 'node:fs';
import { fromSources, packageFile } from '../paths.js';
import { Worker } from 'node:worker_threads';

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

/**
 * Ask for a warm-up: the renderer draws these specs and throws the SVGs away, so that the
 * report's own charts, drawn when the run ends, find vega's code for their kinds of chart
 * compiled and its inline caches settled. The warm-up is worth it only with the specs of the
 * charts the report will draw (the run's own charts from a preview: commands/run.ts): a small
 * chart of another kind left the report's charts as slow as with no warm-up at all (3 charts
 * of the reference battle: ~0.7 s either way, ~0.35 s after a warm-up with their own kinds, on
 * a loaded machine). A chart asked for by `renderSvgs` goes before any warm-up chart not yet
 * started (render-worker.ts).
 */
export function warmRenderer(specs: Record<string, unknown>[]): void {
  if (specs.length > 0) worker?.postMessage({ warm: specs });
}

/** Whether charts are drawn on the renderer thread (a warm-up has somewhere to go). */
export function rendererStarted(): boolean {
  return worker !== undefined;
}

/** Render Vega-Lite specs (data inline) to SVG strings, in order. */
export async function renderSvgs(specs: Record<string, unknown>[]): Promise<string[]> {
  if (specs.length === 0) return [];
  const w = worker; // none started: drawn here (startRenderer says when a thread of its own pays)
  if (!w) {
    const { renderSvg } = await import('./render.js');
    const out: string[] = [];
    for (const s of specs) out.push(await renderSvg(s));
    return out;
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

/** The fields a spec's small multiples are split by (`facet`, `row`, `column`, wherever they are in it). */
function facetFields(x: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(x)) for (const v of x) facetFields(v, out);
  else if (x !== null && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) {
      if ((k === 'facet' || k === 'row' || k === 'column') && v !== null && typeof v === 'object') {
        const f = (v as { field?: unknown }).field;
        if (typeof f === 'string') out.add(f);
      }
      facetFields(v, out);
    }
  }
  return out;
}

/**
 * A warm-up's copy of a chart: its small multiples cut to the first `panels` values of each
 * field they are split by (the data's rows of those values alone). A warm-up is worth its
 * chart's kinds of mark, scale, axis and legend, compiled; the panels past the first few cost
 * as much again each (vega's dataflow, its axes and grid: ~7 ms a panel, a 30-case sweep's
 * attrition chart 60 panels) and warm nothing more. Any other chart is drawn as it is.
 */
export function warmUpSpec(spec: Record<string, unknown>, panels = 2): Record<string, unknown> {
  const data = spec.data as { values?: unknown } | undefined;
  const rows = data?.values;
  if (!Array.isArray(rows)) return spec;
  const fields = [...facetFields(spec, new Set())];
  if (fields.length === 0) return spec;
  const kept = fields.map(() => new Set<unknown>());
  const values = rows.filter((r: Record<string, unknown>) => {
    if (!fields.every((f, i) => kept[i].has(r?.[f]) || kept[i].size < panels)) return false;
    fields.forEach((f, i) => kept[i].add(r?.[f]));
    return true;
  });
  return { ...spec, data: { ...data, values } };
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
