/** Crusader Rex block names: near names for an unknown one, and how to list them all. */
import { describe, expect, it } from 'vitest';
import { rosterOf, validateText } from '../src/api.js';
import { nearBlockNames } from '../src/systems/crusader-rex/roster.js';

describe('crusader-rex roster lookup', () => {
  it('suggests the blocks a partial or misspelt name is near', () => {
    expect(nearBlockNames('Templars')).toEqual(['Jerusalem Templars', 'Antioch Templars', 'Gaza Templars', 'Tartus Templars']);
    expect(nearBlockNames('templar')).toEqual(['Jerusalem Templars', 'Antioch Templars', 'Gaza Templars', 'Tartus Templars']);
    expect(nearBlockNames('Saldin')).toEqual(['Saladin']);
    expect(nearBlockNames('Hospitalers')[0]).toBe('Jerusalem Hospitallers');
    expect(nearBlockNames('Kurds')).toEqual(['Kurds 1', 'Kurds 2', 'Kurds 3', 'Kurds 4']);
    expect(nearBlockNames('Xyzzy')).toEqual([]);
  });

  it('an unknown block in a scenario names the near blocks and the roster command, at its line', () => {
    const v = validateText(
      'cr.yaml',
      'name: cr\nsystem: crusader-rex\nseed: 1\ntrials: 100\ntown: { rating: 0 }\nplayer1: saracens\nattacker: saracens\nblocks:\n  - { block: Saladin }\n  - { block: Templars }\n',
    );
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.issues).toHaveLength(1);
    expect(v.issues[0]).toMatchObject({ line: 10, path: 'blocks[1].block' });
    expect(v.issues[0].message).toBe(
      '"Templars" is not in the roster: did you mean "Jerusalem Templars", "Antioch Templars", "Gaza Templars" or "Tartus Templars"? ' +
        '(`siegesim roster crusader-rex` lists all 62 blocks; docs/rules/crusader-rex.md 5.1)',
    );
  });

  it('the roster has the 62 battle blocks, 31 a side', () => {
    const r = rosterOf('crusader-rex');
    expect(r.entries).toHaveLength(62);
    expect(r.entries.filter((e) => e.side === 'franks')).toHaveLength(31);
    expect(r.entries.find((e) => e.name === 'Jerusalem Templars')).toEqual({ name: 'Jerusalem Templars', side: 'franks', type: 'military_order', steps: 3, rating: 'B3' });
    expect(() => rosterOf('surrender')).toThrow('system surrender has no roster');
    // a name of an object's own machinery is an unknown system, not an internal error
    for (const name of ['__proto__', 'constructor', 'toString']) expect(() => rosterOf(name)).toThrow(`unknown system "${name}"`);
  });
});
