/** A scenario of your own on the static workbench: the name its messages, its link and its saved copy give it. */
import { describe, expect, it } from 'vitest';
import { MAX_OWN_TEXT, ownFileName } from '../src/site/own-scenario.js';

describe('ownFileName', () => {
  it('keeps a dropped file\'s base name, in the characters a link keeps, ending in .yaml', () => {
    expect(ownFileName('my-siege.yaml')).toBe('my-siege.yaml');
    expect(ownFileName('wall.yml')).toBe('wall.yml');
    expect(ownFileName('my siege (2).yaml')).toBe('my-siege--2-.yaml');
    expect(ownFileName('C:\\scenarios\\north\\wall.yaml')).toBe('wall.yaml');
    expect(ownFileName('../../etc/passwd')).toBe('passwd.yaml');
    expect(ownFileName('notes')).toBe('notes.yaml');
  });
  it('names a scenario with no usable name pasted.yaml', () => {
    for (const name of ['', '.yaml', 'YML', '/', '...']) expect(ownFileName(name)).toBe('pasted.yaml');
  });
  it('never gives a name past 85 characters, whatever it is given', () => {
    expect(ownFileName(`${'x'.repeat(500)}.yaml`).length).toBeLessThanOrEqual(85);
    expect(MAX_OWN_TEXT).toBe(1_000_000);
  });
});
