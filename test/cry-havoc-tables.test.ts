/**
 * Every cell of the Cry Havoc tables in the project equals the seed's (seed 003, kept as a
 * fixture), after the corrections listed in docs/rules/cry-havoc.md 1.11: O2 (short-bow row shifted
 * back), O4 (stray "Muerto" cell), O6 (English engine names).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BATTERING,
  ENGINE_POINTS,
  FIRE,
  HEALING_CROISADES_TURNS,
  HEALING_SIEGE_DAYS,
  LINE_OFFSET,
  MELEE_FOOT,
  MELEE_MOUNTED,
  MISSILE_FOOT,
  MISSILE_MOUNTED,
  RANGE_BANDS,
} from '../src/systems/cry-havoc/tables.js';

const SEED = readFileSync(path.resolve(import.meta.dirname, 'fixtures/seeds/003_8d492ba0cc9f6a70.txt'), 'utf8').split('\n');
const rows = (header: string, skip: number, count: number): string[][] => {
  const at = SEED.findIndex((l) => l.includes(header));
  if (at < 0) throw new Error(`seed header not found: ${header}`);
  return SEED.slice(at + 1 + skip, at + 1 + skip + count).map((l) => l.split('\t').map((c) => c.trim()));
};
const dash = (c: string) => (c === '' ? '-' : c);
const WEAPON_ES: Record<string, keyof typeof LINE_OFFSET> = { 'Arco Corto': 'shortbow', Ballesta: 'crossbow', 'Arco Largo': 'longbow', Ballestón: 'ballista' };
const band = (s: string) => {
  const m = /(\d+)\s*(?:–|a)\s*(\d+)/.exec(s);
  if (!m) throw new Error(`no band in ${s}`);
  return [Number(m[1]), Number(m[2])];
};

describe('Cry Havoc tables equal seed 003 cell by cell', () => {
  it('range bands (1.4), base tables', () => {
    const lines = rows('MODIFICACIONES A LA TIRADA DEL DADO POR ALCANCE', 1, 4);
    for (const cells of lines) {
      const w = WEAPON_ES[cells[0]];
      expect(RANGE_BANDS.base[w]).toEqual(cells.slice(1, 4).map(band));
    }
  });

  it('revised ranges, with the short-bow row shifted back (O2)', () => {
    const lines = rows('ALCANCES REVISADOS', 0, 3);
    for (let cells of lines) {
      if (cells[0] === '') cells = cells.slice(1); // O2: the row starts one cell late
      const w = WEAPON_ES[cells[0]];
      expect(RANGE_BANDS.croisades[w]).toEqual(cells.slice(1, 4).map(band));
      const vik = cells.slice(4, 7).filter((c) => c !== '').map(band);
      expect(RANGE_BANDS.vikings[w]).toEqual(vik);
    }
    expect(RANGE_BANDS.vikings.shortbow).toHaveLength(2); // the missing band stays missing
  });

  it('missile results against mounted targets (1.5 A), and the line offsets', () => {
    const lines = rows('DISPAROS CONTRA BLANCOS A CABALLO', 2, 8);
    lines.forEach((cells, i) => expect(MISSILE_MOUNTED[i]).toEqual(cells.slice(4, 7)));
    // offsets: the first line on which each weapon's die reads 1
    const weapons = ['ballista', 'crossbow', 'longbow', 'shortbow'] as const;
    weapons.forEach((w, col) => {
      const first = lines.findIndex((cells) => cells[col] === '1');
      expect(LINE_OFFSET[w]).toBe(first);
    });
  });

  it('missile results against foot targets (1.5 B)', () => {
    const lines = rows('DISPAROS CONTRA BLANCOS A PIE', 3, 10);
    lines.forEach((cells, i) => expect(MISSILE_FOOT[i]).toEqual(cells.slice(4, 8)));
    // O4: the key's stray cell is read as C = killed
    expect(SEED.some((l) => l.includes('C <td>Muerto</td>'))).toBe(true);
  });

  it('melee results against mounted characters (1.6 A)', () => {
    const lines = rows('COMBATE CONTRA PERSONAJES A CABALLO', 2, 10);
    lines.forEach((cells, i) => {
      expect(cells[0]).toBe(String(i + 1));
      expect(MELEE_MOUNTED[i]).toEqual(cells.slice(1, 13));
    });
  });

  it('melee results against foot characters (1.6 B), rows 2 and 3 identical as printed (O5)', () => {
    const lines = rows('COMBATE CONTRA PERSONAJES A PIE', 3, 10);
    lines.forEach((cells, i) => {
      expect(cells[0]).toBe(String(i + 1));
      expect(MELEE_FOOT[i]).toEqual(cells.slice(1, 13));
    });
    expect(MELEE_FOOT[1]).toEqual(MELEE_FOOT[2]);
  });

  it('battering (1.7) and engine points (O6: mangonel, trebuchet, ram)', () => {
    const lines = rows('Numero de puntos de bombardeo', 1, 10);
    lines.forEach((cells, i) => {
      expect(cells[0]).toBe(String(i + 1));
      expect(BATTERING[i]).toEqual(cells.slice(1, 6).map(dash));
    });
    const engines = SEED.find((l) => l.includes('Catapultas:'))!;
    expect(ENGINE_POINTS).toEqual({
      mangonel: Number(/Catapultas: (\d+)/.exec(engines)![1]),
      trebuchet: Number(/Balistas: (\d+)/.exec(engines)![1]),
      ram: Number(/Arietes: (\d+)/.exec(engines)![1]),
    });
  });

  it('healing (1.8), both tables', () => {
    const lines = rows('TABLA DE CURACION', 1, 9);
    const siege = lines.flatMap((cells) => {
      const n = /^(\d+)/.exec(cells[1]);
      return cells[0] === '9-10' ? [0, 0] : [Number(n![1])];
    });
    expect(HEALING_SIEGE_DAYS).toEqual(siege);
    // Croisades d6: 1-2 -> 1 turn, 3-4 -> 2, 5 -> 3, 6 -> roll again
    const cro: number[] = [];
    for (const cells of lines.slice(0, 4)) {
      const faces = cells[2].split('-').map(Number);
      const turns = /^(\d+) turno/.exec(cells[3]);
      const count = faces.length === 2 ? faces[1] - faces[0] + 1 : 1;
      for (let k = 0; k < count; k++) cro.push(turns ? Number(turns[1]) : 0);
    }
    expect(HEALING_CROISADES_TURNS).toEqual(cro);
    expect(lines[4][2]).toBe('Re-tirada 1-2');
    expect(lines[5][3]).toMatch(/^5 turnos/);
  });

  it('fire (1.9)', () => {
    const lines = rows('Dado\tPrendiendo fuego', 1, 10);
    lines.forEach((cells, i) => {
      expect(cells[0]).toBe(String(i + 1));
      expect(FIRE[i]).toEqual(cells.slice(1, 6).map(dash));
    });
  });
});
