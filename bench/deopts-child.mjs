// One process of the `deopts` bench (bench/run.mjs): every case of a bundled file's first two
// sweep points, each through its kernel in calls of the system's chunk size (as the engine calls
// it), then the same points' variants paired on the same dice (the engine's batches), for about
// `trials` trials a case. Run under --trace-deopt by the parent, which counts what V8 threw away.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(path.join(ROOT, 'dist', p));
const { validateText } = await dist('src/api.js');
const { compilePoints, jobsOf } = await dist('src/api/run.js');
const { runBatch } = await dist('src/engine/chunk.js');
const { deriveState } = await dist('src/engine/rng.js');

const [file, trialsArg] = process.argv.slice(2);
const v = validateText(file, readFileSync(file, 'utf8')).value;
const sys = v.system;
const jobs = jobsOf(v, compilePoints(v)).slice(0, 2);
const CT = sys.chunkTrials;
const calls = Math.max(1, Math.ceil(Number(trialsArg) / CT));
for (const job of jobs) {
  for (let o = 0; o < job.compiled.length; o++) {
    const acc = new Float64Array(job.accLengths[o]);
    const s = deriveState('bench', 'deopts', o);
    for (let r = 0; r < calls; r++) sys.kernel.run(job.compiled[o], s, CT, acc);
  }
  if (job.compiled.length > 1) {
    const per = Math.min(calls, 64);
    for (let first = 0; first < calls; first += per) runBatch(sys.kernel, { system: job.system, compiled: job.compiled, accLengths: job.accLengths, pairedSlots: job.pairedSlots, ...(job.pairedCodes ? { pairedCodes: job.pairedCodes } : {}), seed: 1, stream: job.stream, first, sizes: Array(Math.min(per, calls - first)).fill(CT) });
  }
}
