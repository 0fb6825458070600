/** `siegesim bench`: the benchmarks in bench/run.mjs, against the built kernels. */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { packageFile } from '../../paths.js';
import { InvalidArgumentError, type Command } from 'commander';
import { positiveNumber, UserError } from '../common.js';

const fraction = (what: string) => (v: string) => {
  const x = Number(v);
  if (!(x >= 0 && x < 1)) throw new InvalidArgumentError(`${what} must be a fraction in [0, 1), e.g. 0.15`);
  return x;
};

/** The longest measurement --seconds asks for: a whole bench runs dozens of them (1e9 ran until killed). */
const MAX_SECONDS = 600;
const secondsArg = (v: string) => {
  const n = positiveNumber('--seconds')(v);
  if (n > MAX_SECONDS) throw new InvalidArgumentError(`--seconds must be at most ${MAX_SECONDS} (a measurement of ten minutes; a whole bench runs dozens), got ${v}`);
  return n;
};

export function register(program: Command): void {
  program
    .command('bench')
    .description('run the benchmarks against the built kernels (bench/run.mjs) and print their JSON')
    .argument('[names...]', 'dice, surrender, fantasy, crusader-rex, process, history, cry-havoc (default: all of these); paired, files (whole processes, only when named)')
    .option('--seconds <S>', `seconds per measurement (at most ${MAX_SECONDS})`, secondsArg)
    .option('--check', 'exit 1 when a target in bench/run.mjs is missed')
    .option('--save <FILE>', 'save a baseline: every rate relative to the calibration loop run alongside')
    .option('--baseline <FILE>', 'compare with a saved baseline (relative to the calibration: portable between machines); exit 1 when slower')
    .option('--tolerance <T>', 'with --baseline: fail below (1 - T) x the baseline', fraction('--tolerance'), 0.15)
    .action((names: string[], flags: { seconds?: number; check?: boolean; save?: string; baseline?: string; tolerance: number }) => {
      const script = packageFile('bench/run.mjs');
      if (!existsSync(script)) throw new UserError(`bench/run.mjs not found at ${script} (the benchmarks ship with the source tree)`);
      if (flags.baseline && !existsSync(flags.baseline)) throw new UserError(`--baseline ${flags.baseline}: no such file`);
      const args = [
        '--expose-gc',
        script,
        ...names,
        ...(flags.seconds ? ['--seconds', String(flags.seconds)] : []),
        ...(flags.check ? ['--check'] : []),
        ...(flags.save ? ['--save', flags.save] : []),
        ...(flags.baseline ? ['--baseline', flags.baseline, '--tolerance', String(flags.tolerance)] : []),
      ];
      const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
      process.exitCode = r.status ?? 1;
    });
}
