/** `siegesim schema`: the JSON Schema of scenario files. */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { jsonSchemaOf } from '../../scenario/schema.js';
import { SYSTEMS } from '../../systems/registry.js';

function schemaCommand(flags: { out?: string }): void {
  const text = JSON.stringify(jsonSchemaOf(SYSTEMS), null, 2) + '\n';
  if (flags.out) writeFileSync(flags.out, text);
  else process.stdout.write(text);
}

export function register(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of scenario files')
    .option('--out <FILE>', 'write it to a file instead')
    .action((flags: { out?: string }) => schemaCommand(flags));
}
