/** `siegesim schema`: the JSON Schema of scenario files. */
import type { Command } from 'commander';
import { checkOutputFile, writeFileAtomic } from '../../report/write.js';
import { outArg } from '../common.js';
import { jsonSchemaOf, SYSTEMS } from '../../api.js';

async function schemaCommand(flags: { out?: string }): Promise<void> {
  const text = JSON.stringify(jsonSchemaOf(SYSTEMS), null, 2) + '\n';
  if (flags.out) {
    checkOutputFile(flags.out, [], { what: "siegesim's scenario schema", own: (head) => head.includes('"$id": "https://siegesim.dev/scenario.schema.json"') });
    await writeFileAtomic(flags.out, text);
  } else process.stdout.write(text);
}

export function register(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of scenario files')
    .option('--out <FILE>', 'write it to a file instead', outArg('--out', 'leave the flag out to print the schema'))
    .action((flags: { out?: string }) => schemaCommand(flags));
}
