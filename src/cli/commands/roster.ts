/** `siegesim roster`: the blocks a system's scenarios may name (`blocks[].block`), with their stats. */
import type { Command } from 'commander';
import { rosterOf, RosterInputError } from '../../api.js';
import { UserError } from '../common.js';

function rosterCommand(system: string, flags: { json?: boolean }): void {
  let r;
  try {
    r = rosterOf(system);
  } catch (e) {
    if (e instanceof RosterInputError) throw new UserError(e.message);
    throw e;
  }
  if (flags.json) {
    process.stdout.write(JSON.stringify(r.entries, null, 2) + '\n');
    return;
  }
  const w = Math.max(...r.entries.map((e) => e.name.length), 4) + 2;
  const t = Math.max(...r.entries.map((e) => e.type.length), 4) + 2;
  const sides = [...new Set(r.entries.map((e) => e.side))].map((s) => `${r.entries.filter((e) => e.side === s).length} ${s}`);
  process.stdout.write(`# ${system}: ${r.entries.length} blocks (${sides.join(', ')}; ${r.doc}); a scenario names them in blocks[].block\n`);
  process.stdout.write(`${'name'.padEnd(w)}${'side'.padEnd(10)}${'type'.padEnd(t)}${'steps'.padEnd(7)}rating\n`);
  for (const e of r.entries) process.stdout.write(`${e.name.padEnd(w)}${e.side.padEnd(10)}${e.type.padEnd(t)}${String(e.steps).padEnd(7)}${e.rating}\n`);
}

export function register(program: Command): void {
  program
    .command('roster')
    .description('list the blocks a system\'s scenarios may name, with their side, type, steps and rating (crusader-rex)')
    .argument('<system>', 'the rules system, e.g. crusader-rex')
    .option('--json', 'print a JSON array of { name, side, type, steps, rating }')
    .action((system: string, flags: { json?: boolean }) => rosterCommand(system, flags));
}
