/** The fantasy kernel in per-die mode through the whole pipeline, for tests. */
import { compileFantasy } from '../src/systems/fantasy/compile.js';
import { fantasy } from '../src/systems/fantasy/index.js';

/**
 * Run f with every fantasy case compiled in per-die mode (FantasyCompiled.perDie: every die
 * rolled, no dice tables), restoring the system's own compile after.
 */
export async function perDie<T>(f: () => Promise<T>): Promise<T> {
  const compile = fantasy.compile;
  fantasy.compile = (s) => ({ ...compileFantasy(s), perDie: true });
  try {
    return await f();
  } finally {
    fantasy.compile = compile;
  }
}
