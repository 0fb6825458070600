// Bundled for the browser by bench/site-kernel.mjs (and imported by it in Node from dist/): the
// first sweep point's chunks of a scenario, run with the engine's batch runner, timed.
import { validateText, compilePoints, jobsOf } from '../src/api/run.js';
import { runBatch } from '../src/engine/chunk.js';
import { KERNELS } from '../src/systems/kernels.js';

/** Milliseconds of each of `reps` runs of `chunks` chunks of the scenario's first sweep point. */
export function timeKernel(text, chunks, reps) {
  const v = validateText('bench.yaml', text);
  if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('; '));
  const job = jobsOf(v.value, compilePoints(v.value))[0];
  const C = v.value.system.chunkTrials;
  const ms = [];
  for (let r = 0; r < reps; r++) {
    const task = { ...job, seed: v.value.seed, first: r * chunks, sizes: Array(chunks).fill(C) };
    const t0 = performance.now();
    runBatch(KERNELS[job.system], task);
    ms.push(performance.now() - t0);
  }
  return { ms, trials: chunks * C, variants: job.compiled.length };
}

// in a Web Worker: answer the page
if (typeof self !== 'undefined' && typeof self.postMessage === 'function' && typeof window === 'undefined') {
  self.onmessage = (e) => {
    const { text, chunks, reps } = e.data;
    try {
      self.postMessage(timeKernel(text, chunks, reps));
    } catch (err) {
      self.postMessage({ error: String(err) });
    }
  };
}
