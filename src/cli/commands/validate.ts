/** `siegesim validate`: check scenario files without running them. */
import type { Command } from 'commander';
import { loadAll } from '../common.js';

function validateCommand(files: string[]): void {
  // an expect: item the scenario no longer matches is refused here, as `siegesim test` refuses it
  const scenarios = loadAll(files, { staleExpect: 'error' });
  for (const v of scenarios) {
    const n = v.points.length * v.variantNames.length;
    process.stdout.write(`ok  ${v.file}  ${v.name} (${v.system.id}, ${n} case${n === 1 ? '' : 's'})\n`);
  }
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('check scenario files without running them')
    .argument('<files...>')
    .action((files: string[]) => validateCommand(files));
}
