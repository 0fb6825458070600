/** `siegesim exact`: the exact answers, where the system has an exact form. */
import type { Command } from 'commander';
import { exactScenario } from '../../api.js';
import { loadAll, UserError } from '../common.js';

async function exactCommand(files: string[], flags: { json?: boolean }): Promise<void> {
  const scenarios = loadAll(files);
  const all: unknown[] = [];
  for (const v of scenarios) {
    const ex = exactScenario(v);
    if (!v.system.exact) throw new UserError(`${v.file}: system ${v.system.id} has no exact solver`);
    if (flags.json) {
      all.push({ name: v.name, cases: ex.map((e) => ({ case: e.case, variant: e.variant, params: e.params, metrics: e.exact?.metrics ?? null })) });
      continue;
    }
    process.stdout.write(`# ${v.name} (${v.file})\n`);
    for (const e of ex) {
      const params = Object.entries(e.params).map(([k, x]) => `${k}=${String(x)}`).join(' ');
      if (!e.exact) {
        process.stdout.write(`case ${e.case} ${e.variant} ${params}: no exact form\n`);
        continue;
      }
      const ms = Object.entries(e.exact.metrics).map(([k, m]) => `${k}=${Number.isFinite(m.value) ? Number(m.value.toPrecision(10)) : 'n/a'}`);
      process.stdout.write(`case ${e.case} ${e.variant}${params ? ' ' + params : ''}: ${ms.join('  ')}\n`);
    }
  }
  // Always an array, one element per scenario (as run --json).
  if (flags.json) process.stdout.write(JSON.stringify(all, null, 2) + '\n');
}

export function register(program: Command): void {
  program
    .command('exact')
    .description('compute the same metrics exactly, where the system has an exact form')
    .argument('<files...>')
    .option('--json', 'print a JSON array, one element per scenario')
    .action((files: string[], flags: { json?: boolean }) => exactCommand(files, flags));
}
