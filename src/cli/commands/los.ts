/** `siegesim los`: Cry Havoc sight lines between levels (seed 004 R4, R5). */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { los } from '../../api.js';
import { nonNegInt, UserError } from '../common.js';

/** A level or a level difference: whole or half (seed 003's Siege levels, 1.10: embankments 0.5, siege-tower tops 2.5). */
const halfLevel = (what: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n * 2) || n < 0) throw new InvalidArgumentError(`${what} must be a whole or half level >= 0 (0, 0.5, 1, 1.5, ...)`);
  return n;
};

function losCommand(flags: { n: number; d: number; d1: number; h: number; rounding: 'default' | 'source'; json?: boolean }): void {
  if (flags.d1 > flags.d) throw new UserError('--d1 cannot exceed --d (the obstruction lies between the two characters)');
  const r = los(flags);
  if (flags.json) {
    process.stdout.write(JSON.stringify({ input: { n: flags.n, d: flags.d, d1: flags.d1, h: flags.h }, ...r }, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    `${r.possible ? 'possible' : 'blocked'}: N x D1 = ${flags.n} x ${flags.d1} = ${r.lhs} ${r.possible ? '>=' : '<'} D x H = ${flags.d} x ${flags.h} = ${r.rhs} (seed 004 R4)\n`,
  );
  if (r.deadZone === 'none') {
    process.stdout.write(`the obstruction (H = 0) is no higher than the lower character: it hides nothing, at any distance (no dead zone)\n`);
    return;
  }
  if (r.deadZone === 'total') {
    process.stdout.write(
      `the obstruction (H = ${flags.h}) is higher than the level difference (N = ${flags.n}): no position with the characters apart (D > 0) sees over it; only D = D1 = 0 passes the test\n`,
    );
    return;
  }
  if (flags.n === flags.h) {
    process.stdout.write(`the obstruction (H = ${flags.h}) is as high as the level difference (N = ${flags.n}): only the upper character standing at it (D2 = 0) sees over it, from any D1\n`);
    return;
  }
  process.stdout.write(`dead zone (R5, rounding: ${r.rounding === 'default' ? 'D1 up, D2 down' : 'both up, as the source says'}):\n`);
  process.stdout.write(`  with D2 = ${r.d2}, the lower character must stand at D1 >= ${r.minD1}\n`);
  process.stdout.write(`  with D1 = ${flags.d1}, the upper character must stand at D2 <= ${r.maxD2}\n`);
}

export function register(program: Command): void {
  program
    .command('los')
    .description('Cry Havoc sight line between levels: N x D1 >= D x H, and the dead-zone distances (exact)')
    .requiredOption('--n <N>', 'level difference between shooter and target (whole or half levels)', halfLevel('--n'))
    .requiredOption('--d <D>', 'hexes between the two characters', nonNegInt('--d'))
    .requiredOption('--d1 <D1>', 'hexes from the lower character to the foot of the obstruction', nonNegInt('--d1'))
    .requiredOption('--h <H>', 'height of the obstruction above the lower character, in levels (whole or half)', halfLevel('--h'))
    .addOption(new Option('--rounding <mode>', 'dead-zone rounding').choices(['default', 'source']).default('default'))
    .option('--json', 'print as JSON')
    .action((flags: { n: number; d: number; d1: number; h: number; rounding: 'default' | 'source'; json?: boolean }) => losCommand(flags));
}
