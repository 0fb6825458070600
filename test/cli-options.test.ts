/** The command line's option parsing (src/cli/program.ts), in-process: no command runs. */
import { describe, expect, it } from 'vitest';
import type { Command, Option } from 'commander';
import { buildProgram } from '../src/cli/program.js';

/** Every command and subcommand, with the words that name it (`['history', 'add']`). */
function commands(c: Command, words: string[] = []): { command: Command; words: string[] }[] {
  return c.commands.flatMap((s) => [{ command: s, words: [...words, s.name()] }, ...commands(s, [...words, s.name()])]);
}

const takesValue = (o: Option) => o.required || o.optional;

/**
 * A fresh program that prints nothing and runs no command (a parse that gets past the options
 * throws instead of running it); each parse sets option values, so a new one starts clean.
 */
function quietProgram(): Command {
  const program = buildProgram();
  const quiet = (c: Command) => {
    c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    c.action(() => {
      throw new Error(`${c.name()} would have run`);
    });
    c.commands.forEach(quiet);
  };
  quiet(program);
  return program;
}

describe('an option whose value was left out', () => {
  it('refuses one of its own command\'s flags as its value, in every command (`run --seed --no-progress` ran with the seed "--no-progress", exit 0)', async () => {
    const cases = commands(buildProgram()).flatMap(({ command, words }) => {
      const flags = command.options.map((o) => o.long!).filter(Boolean);
      return command.options.filter(takesValue).flatMap((o) => {
        // the option after it, or --help when it is the command's only option
        const next = flags.find((f) => f !== o.long) ?? '--help';
        return [{ words, option: o.long!, next }, { words, option: o.long!, next: `${next}=x` }];
      });
    });
    expect(cases.length).toBeGreaterThan(60);
    const refused: string[] = [];
    for (const c of cases) {
      const program = quietProgram();
      try {
        await program.parseAsync([...c.words, c.option, c.next], { from: 'user' });
      } catch (e) {
        const err = e as { code?: string; message?: string };
        if (err.code === 'commander.invalidArgument' && err.message?.includes(`${c.option} needs a value: ${c.next} is one of ${c.words.join(' ')}'s options`)) {
          refused.push(`${c.words.join(' ')} ${c.option} ${c.next}`);
          continue;
        }
        throw e;
      }
    }
    expect(refused).toEqual(cases.map((c) => `${c.words.join(' ')} ${c.option} ${c.next}`));
  });

  it('still takes a value that starts with a dash but is no option: a negative seed, a value like -x', () => {
    const run = buildProgram().commands.find((c) => c.name() === 'run')!;
    const seed = run.options.find((o) => o.long === '--seed')!;
    expect(seed.parseArg!('-5', undefined)).toBe(-5);
    expect(seed.parseArg!('-x', undefined)).toBe('-x');
    const init = buildProgram().commands.find((c) => c.name() === 'init')!;
    const system = init.options.find((o) => o.long === '--system')!;
    // a variadic option still collects its values
    expect(system.parseArg!('surrender', system.parseArg!('fantasy', undefined))).toEqual(['fantasy', 'surrender']);
  });
});
