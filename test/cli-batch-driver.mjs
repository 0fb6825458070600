/**
 * The child of test/cli-batch.ts (runCliBatch): loads the built program once and calls its
 * main() for each argument list of SIEGESIM_BATCH (JSON) in turn, with process.argv set to it,
 * its output captured and process.exitCode read as the exit code; the results go to stdout as
 * JSON. A file, not `node --input-type=module -e`: a worker thread inherits the process's Node
 * flags, and the report renderer's thread (src/report/renderer.ts) cannot start under
 * --input-type (ERR_INPUT_TYPE_NOT_ALLOWED).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const { main } = await import(pathToFileURL(path.join(ROOT, 'dist/src/cli/program.js')).href);
const jobs = JSON.parse(process.env.SIEGESIM_BATCH);
const [writeOut, writeErr] = [process.stdout.write, process.stderr.write];
const results = [];
for (const args of jobs) {
  const r = { code: 0, stdout: '', stderr: '' };
  process.stdout.write = (s) => ((r.stdout += String(s)), true);
  process.stderr.write = (s) => ((r.stderr += String(s)), true);
  const had = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM'), SIGHUP: process.listeners('SIGHUP'), error: process.stdout.listeners('error') };
  process.argv = [process.argv[0], CLI, ...args];
  process.exitCode = 0;
  try {
    await main();
    r.code = process.exitCode ?? 0;
  } catch (e) {
    r.stderr += 'cli-batch: main() threw: ' + (e && e.stack);
    r.code = -1;
  }
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) for (const l of process.listeners(sig)) if (!had[sig].includes(l)) process.removeListener(sig, l);
  for (const l of process.stdout.listeners('error')) if (!had.error.includes(l)) process.stdout.removeListener('error', l);
  [process.stdout.write, process.stderr.write] = [writeOut, writeErr];
  results.push(r);
}
process.exitCode = 0;
process.stdout.write(JSON.stringify(results));
