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
 * A command that fails (a refusal, exit 2) ends the process's write phase for good, as it would
 * end the process (report/write.ts, cleanupPending): a batch writes nothing after a failed
 * command, so commands that write come first.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { HANG_MS, ROOT } from './cli-child.js';

export interface BatchResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The child's script (main() for each argument list of SIEGESIM_BATCH, the results as JSON on stdout). */
const DRIVER = path.join(ROOT, 'test/cli-batch-driver.mjs');

/**
 * Run each argument list through the program's main() in one child process (cwd: `cwd`; Node
 * flags `nodeArgs`, e.g. a memory limit, as cli-child.ts's runCli takes them); one result each, in order.
 */
export function runCliBatch(jobs: string[][], cwd = ROOT, nodeArgs: string[] = []): Promise<BatchResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, DRIVER], { cwd, env: { ...process.env, SIEGESIM_BATCH: JSON.stringify(jobs) } });
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
