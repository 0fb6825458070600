/** The roster verb: the blocks a system's scenarios may name by `blocks[].block`. */
import { ROSTER } from '../systems/crusader-rex/roster.js';
import { SYSTEMS } from '../systems/registry.js';

export interface RosterEntry {
  name: string;
  side: string;
  type: string;
  /** Maximum steps. */
  steps: number;
  /** Combat rating: initiative letter and firepower, e.g. "B3". */
  rating: string;
}

/** A user-facing problem with a roster request (the CLI prints it and exits 2). */
export class RosterInputError extends Error {}

/** Systems whose scenarios name blocks from a roster, and where each roster is documented. */
const ROSTERS: Record<string, { entries: () => RosterEntry[]; doc: string }> = {
  'crusader-rex': {
    entries: () => Object.entries(ROSTER).map(([name, b]) => ({ name, side: b.side, type: b.type, steps: b.steps, rating: b.rating })),
    doc: 'docs/rules/crusader-rex.md 5.1',
  },
};

/**
 * A system's roster, in roster order (Crusader Rex: the 31 Frank then the 31 Saracen blocks).
 * @example rosterOf('crusader-rex').entries.length === 62
 */
export function rosterOf(system: string): { system: string; doc: string; entries: RosterEntry[] } {
  // own keys only: a name such as __proto__ or toString is not a system
  const r = Object.hasOwn(ROSTERS, system) ? ROSTERS[system] : undefined;
  if (r) return { system, doc: r.doc, entries: r.entries() };
  const ids = SYSTEMS.map((s) => s.id);
  if (!ids.includes(system)) throw new RosterInputError(`unknown system "${system}" (one of: ${ids.join(', ')})`);
  throw new RosterInputError(`system ${system} has no roster: its scenarios name no blocks (rosters: ${Object.keys(ROSTERS).join(', ')})`);
}
