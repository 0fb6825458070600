/**
 * Many command lines through the built program in one child process, for a test that checks
 * a command's exit code and messages over many inputs: a `siegesim` process of its own for each
 * costs about half a second of CPU (Node's start-up and the program's loading), most of such a
 * test's time. The child loads the program the command runs (dist/src/cli/program.js, the
 * modules its bundle is built from) once, and calls its main() for each argument list in turn,
 * with process.argv set to it, its output captured and process.exitCode read as the exit code;
 * the signal and stream handlers main() adds are removed before the next. What the process
 * around main() does (start.ts: the renderer, the early pool, escaped errors) is not exercised:
 * a test keeps at least one real process per command beside these (cli-child.ts runCli).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI, HANG_MS, ROOT } from './cli-child.js';

export interface BatchResult {
  code: number;
  stdout: string;
  stderr: string;
}

const PROGRAM = pathToFileURL(path.join(ROOT, 'dist/src/cli/program.js')).href;

/** The child's script: main() for each argument list of SIEGESIM_BATCH (JSON), the results as JSON on stdout. */
const DRIVER = `
const { main } = await import(${JSON.stringify(PROGRAM)});
const jobs = JSON.parse(process.env.SIEGESIM_BATCH);
const [writeOut, writeErr] = [process.stdout.write, process.stderr.write];
const results = [];
for (const args of jobs) {
  const r = { code: 0, stdout: '', stderr: '' };
  process.stdout.write = (s) => ((r.stdout += String(s)), true);
  process.stderr.write = (s) => ((r.stderr += String(s)), true);
  const had = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM'), error: process.stdout.listeners('error') };
  process.argv = [process.argv[0], ${JSON.stringify(CLI)}, ...args];
  process.exitCode = 0;
  try {
    await main();
    r.code = process.exitCode ?? 0;
  } catch (e) {
    r.stderr += 'cli-batch: main() threw: ' + (e && e.stack);
    r.code = -1;
  }
  for (const sig of ['SIGINT', 'SIGTERM']) for (const l of process.listeners(sig)) if (!had[sig].includes(l)) process.removeListener(sig, l);
  for (const l of process.stdout.listeners('error')) if (!had.error.includes(l)) process.stdout.removeListener('error', l);
  [process.stdout.write, process.stderr.write] = [writeOut, writeErr];
  results.push(r);
}
process.exitCode = 0;
process.stdout.write(JSON.stringify(results));
`;

/** Run each argument list through the program's main() in one child process (cwd: `cwd`); one result each, in order. */
export function runCliBatch(jobs: string[][], cwd = ROOT): Promise<BatchResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', DRIVER], { cwd, env: { ...process.env, SIEGESIM_BATCH: JSON.stringify(jobs) } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the batch child exited (${code ?? signal}); stderr:\n${stderr}`));
      try {
        resolve(JSON.parse(stdout) as BatchResult[]);
      } catch {
        reject(new Error(`the batch child printed no results; stdout:\n${stdout.slice(0, 2000)}\nstderr:\n${stderr}`));
      }
    });
  });
}
