/** `siegesim bench`: the benchmarks in bench/run.mjs, against the built kernels. */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { positiveNumber, UserError } from '../common.js';



export function register(program: Command): void {
  program
    .command('bench')
    .description('run the benchmarks against the built kernels (bench/run.mjs) and print their JSON')
    .argument('[names...]', 'dice, surrender, fantasy, crusader-rex, process, cry-havoc (default: all)')
    .option('--seconds <S>', 'seconds per measurement', positiveNumber('--seconds'))
    .option('--check', 'exit 1 when a target in bench/run.mjs is missed')
    .action((names: string[], flags: { seconds?: number; check?: boolean }) => {
      const script = fileURLToPath(new URL('../../../../bench/run.mjs', import.meta.url));
      if (!existsSync(script)) throw new UserError(`bench/run.mjs not found at ${script} (the benchmarks ship with the source tree)`);
      const args = ['--expose-gc', script, ...names, ...(flags.seconds ? ['--seconds', String(flags.seconds)] : []), ...(flags.check ? ['--check'] : [])];
      const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
      process.exitCode = r.status ?? 1;
    });
}
