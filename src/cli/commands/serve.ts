/** `siegesim serve`: the designer workbench, a live tuning page for every scenario (src/serve/). */
import { Command } from 'commander';
import { spawn } from 'node:child_process';
import { exitWhenThreadsLoaded, PoolExecutor, MSG } from '../../api.js';
import { rootsOf } from '../../serve/catalogue.js';
import { DEFAULT_HOST, DEFAULT_PORT, isLoopback, startWorkbench } from '../../serve/server.js';
import { DEFAULT_SCENARIOS, HANDLED_SIGNALS, nonNegInt, scenarioArgsOrDefault, threadsOpt, UserError } from '../common.js';
import { formatIssue } from '../files.js';

interface ServeFlags {
  port: number;
  host: string;
  open?: boolean;
  threads: number;
}

async function serveCommand(args: string[], flags: ServeFlags): Promise<void> {
  if (flags.port > 65535) throw new UserError('--port must be a port number from 0 to 65535');
  const { roots, problems } = rootsOf(scenarioArgsOrDefault(args, 'siegesim serve my.yaml'));
  if (problems.length > 0) throw new UserError(problems.join('\n'));

  // Ctrl-C (or SIGTERM) ends the server, its open streams and its workers: within a second,
  // whatever is running, unless its worker threads are still loading (below). The workbench ends
  // on a signal by design, so its handler replaces the CLI's "interrupted" one, now, before
  // anything is printed: a signal that arrives while the handlers are being swapped is lost, and
  // a caller may signal as soon as it reads the URL.
  let stopping: ((sig: NodeJS.Signals) => void) | undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (stopping = resolve));
  // SIGHUP (its terminal closed) too: the server ends as it does on Ctrl-C
  for (const sig of HANDLED_SIGNALS) {
    process.removeAllListeners(sig);
    process.once(sig, () => stopping!(sig));
  }

  // The workers start with the first request (the page's load, well before its first change, so
  // that the change does not wait for them), not when the port is ours: a worker still booting
  // (loading its modules) cannot be stopped until it has booted, and on a busy machine that held
  // the exit of a server stopped before anyone used it for up to a second or more.
  const exec = new PoolExecutor(flags.threads);
  let wb;
  try {
    wb = await startWorkbench({ roots, host: flags.host, port: flags.port, executor: exec });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UserError(`port ${flags.port} is in use (pick another with --port, or --port 0 for any free one)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') throw new UserError(`cannot listen on ${flags.host}:${flags.port} (${code})`);
    throw e;
  }
  wb.server.once('request', () => exec.warm());
  const where = args.length > 0 ? args.join(', ') : DEFAULT_SCENARIOS;
  // every broken file's first problem, as validate prints it (the page shows them only in its picker)
  let start = '';
  const served = await Promise.all(wb.catalogue.entries().map((e) => wb.catalogue.loadAsync(e)));
  for (const l of served) {
    if (l.ok) continue;
    const more = l.issues.length - 1;
    start += `siegesim serve: ${formatIssue(l.issues[0])}${more > 0 ? `  (and ${more} more: siegesim validate ${l.entry.display})` : ''}\n`;
  }
  if (served.length === 0) start += `siegesim serve: ${MSG.noScenarios(where)}\n`;
  else if (!served.some((l) => l.ok)) start += `siegesim serve: ${MSG.noValidScenario(served.length)}\n`;
  process.stderr.write(start);
  if (!isLoopback(flags.host)) {
    process.stderr.write(
      `siegesim serve: WARNING: listening on ${flags.host}, not 127.0.0.1: anyone who can reach this machine can run simulations on it and read the served scenarios.\n`,
    );
  }
  const n = roots.length;
  process.stderr.write(`siegesim serve: ${wb.url}  (${where}; ${n > 1 ? `${n} roots; ` : ''}Ctrl-C to stop)\n`);
  if (flags.open) openBrowser(wb.url);

  const sig = await stopped;
  process.stderr.on('error', () => undefined); // a closed terminal (SIGHUP): nothing to tell
  process.stderr.write(`\nsiegesim serve: stopped (${sig})\n`);
  // A stop that hangs is cut short, but never while worker threads load their modules (the first
  // request starts them): exiting stops them, and a thread stopped while loading aborts the
  // process (engine/pool.ts); the CLI's own signal handler waits for them the same way.
  setTimeout(() => exitWhenThreadsLoaded(0), 800).unref();
  await Promise.allSettled([wb.close(), exec.close()]);
}

/**
 * Hands the page's address to the desktop's opener. A machine with no browser (a server, a
 * container: xdg-open exits 3, "no method available") or no opener at all is said, with the
 * address to open elsewhere, rather than passed over in silence.
 */
function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const argv = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  const failed = (why: string) => process.stderr.write(`siegesim serve: ${MSG.serveNoBrowser(url, why)}\n`);
  try {
    const child = spawn(cmd, argv, { stdio: 'ignore', detached: true });
    child.on('error', (e: NodeJS.ErrnoException) => failed(e.code === 'ENOENT' ? `no ${cmd} on this machine` : `${cmd}: ${e.message}`));
    child.on('exit', (code, signal) => {
      if (code !== 0 && code !== null) failed(`${cmd} exited with ${code}`);
      else if (signal) failed(`${cmd} stopped by ${signal}`);
    });
    child.unref();
  } catch (e) {
    failed(`${cmd}: ${(e as Error).message}`);
  }
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('the designer workbench: a local page to tune scenarios live (default: scenarios/)')
    .argument('[files...]', 'scenario files or folders to serve (default: scenarios/)')
    .option('--port <N>', `port to listen on (0: any free port)`, nonNegInt('--port'), DEFAULT_PORT)
    .option('--host <H>', 'interface to listen on; anything but 127.0.0.1/localhost opens it to the network', DEFAULT_HOST)
    .option('--open', 'open the page in the default browser')
    .addOption(threadsOpt())
    .action((files: string[], flags: ServeFlags) => serveCommand(files, flags));
}
