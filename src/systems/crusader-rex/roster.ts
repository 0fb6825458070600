/**
 * The Crusader Rex block roster (docs/rules/crusader-rex.md 5.1, from Rally the Troops `data.js`):
 * name, side, type, maximum steps, combat rating. And the town ratings (5.2).
 */
import { editDistance } from '../../text/suggest.js';

export type Side = 'franks' | 'saracens';
export type BlockType =
  | 'crusader'
  | 'military_order'
  | 'outremer'
  | 'turcopoles'
  | 'pilgrims'
  | 'emir'
  | 'nomads';

export interface RosterBlock {
  side: Side;
  type: BlockType;
  steps: number;
  rating: string;
}

const F = (type: BlockType, steps: number, rating: string): RosterBlock => ({ side: 'franks', type, steps, rating });
const S = (type: BlockType, steps: number, rating: string): RosterBlock => ({ side: 'saracens', type, steps, rating });

export const ROSTER: Record<string, RosterBlock> = {
  // Franks (31)
  Richard: F('crusader', 4, 'B4'),
  Robert: F('crusader', 3, 'B3'),
  Crossbows: F('crusader', 3, 'A2'),
  Philippe: F('crusader', 4, 'B3'),
  Hugues: F('crusader', 4, 'B2'),
  Fileps: F('crusader', 3, 'B3'),
  Barbarossa: F('crusader', 4, 'B3'),
  Frederik: F('crusader', 3, 'B2'),
  Leopold: F('crusader', 3, 'B3'),
  'Jerusalem Templars': F('military_order', 3, 'B3'),
  'Antioch Templars': F('military_order', 3, 'B3'),
  'Gaza Templars': F('military_order', 3, 'B3'),
  'Tartus Templars': F('military_order', 2, 'B3'),
  'Jerusalem Hospitallers': F('military_order', 4, 'B3'),
  'Acre Hospitallers': F('military_order', 3, 'B3'),
  'Krak Hospitallers': F('military_order', 2, 'B3'),
  'Reynald (Sidon)': F('outremer', 3, 'B2'),
  Conrad: F('outremer', 4, 'B3'),
  Balian: F('outremer', 3, 'B2'),
  Walter: F('outremer', 3, 'B2'),
  'Raymond (Tiberias)': F('outremer', 3, 'B2'),
  'King Guy': F('outremer', 4, 'B2'),
  'Reynald (Kerak)': F('outremer', 2, 'B3'),
  Bohemond: F('outremer', 4, 'B2'),
  'Raymond (Tripoli)': F('outremer', 4, 'B2'),
  Josselin: F('outremer', 3, 'B2'),
  'Antioch Turcopoles': F('turcopoles', 3, 'A2'),
  'Beirut Turcopoles': F('turcopoles', 3, 'A2'),
  'Genoa Pilgrims': F('pilgrims', 4, 'C2'),
  'Sicily Pilgrims': F('pilgrims', 3, 'C2'),
  'Brittany Pilgrims': F('pilgrims', 4, 'C2'),
  // Saracens (31): 19 emirs (Saladin's family first), 12 nomads
  Saladin: S('emir', 4, 'A3'),
  'Al Adil': S('emir', 4, 'A2'),
  'Al Aziz': S('emir', 3, 'B2'),
  'Al Afdal': S('emir', 3, 'B3'),
  'Al Zahir': S('emir', 3, 'A2'),
  'Taqi al Din': S('emir', 4, 'A2'),
  'Al Mashtub': S('emir', 4, 'B3'),
  Keukburi: S('emir', 3, 'B3'),
  'Qara-Qush': S('emir', 3, 'B3'),
  Yuzpah: S('emir', 4, 'B2'),
  Zangi: S('emir', 3, 'B2'),
  Sanjar: S('emir', 3, 'B2'),
  Tuman: S('emir', 3, 'B3'),
  Shirkuh: S('emir', 3, 'B2'),
  Jurdik: S('emir', 3, 'B2'),
  Bahram: S('emir', 3, 'B2'),
  Qaimaz: S('emir', 3, 'B2'),
  Yazkuj: S('emir', 2, 'B2'),
  Sulaiman: S('emir', 2, 'B2'),
  'Kurds 1': S('nomads', 4, 'C1'),
  'Kurds 2': S('nomads', 4, 'C1'),
  'Kurds 3': S('nomads', 3, 'C2'),
  'Kurds 4': S('nomads', 3, 'C2'),
  'Turks 1': S('nomads', 3, 'A2'),
  'Turks 2': S('nomads', 3, 'A2'),
  'Turks 3': S('nomads', 4, 'A1'),
  'Turks 4': S('nomads', 4, 'A1'),
  'Arabs 1': S('nomads', 3, 'B2'),
  'Arabs 2': S('nomads', 3, 'B2'),
  'Arabs 3': S('nomads', 4, 'B1'),
  'Arabs 4': S('nomads', 4, 'B1'),
};

/**
 * Roster names near an unknown one, best first (roster order among equals): names containing it,
 * then names containing each of its words, then names with a word within a typo of each of its
 * words, then names sharing some word with it.
 * @example nearBlockNames('Templars') // ['Jerusalem Templars', 'Antioch Templars', 'Gaza Templars', 'Tartus Templars']
 */
export function nearBlockNames(name: string, limit = 5): string[] {
  const q = name.toLowerCase().trim();
  const words = q.split(/[\s()]+/).filter(Boolean);
  const scored: [string, number][] = [];
  for (const n of Object.keys(ROSTER)) {
    const lower = n.toLowerCase();
    const own = lower.split(/[\s()]+/).filter(Boolean);
    let score = Infinity;
    if (q.length > 0 && lower.includes(q)) score = 0;
    else if (words.length > 0 && words.every((w) => lower.includes(w))) score = 1;
    else {
      const typos = words.map((w) => Math.min(...own.map((x) => editDistance(w, x))));
      const whole = editDistance(q, lower);
      if (words.length > 0 && typos.every((d, i) => d <= Math.max(1, Math.floor(words[i].length / 3)))) score = 2 + typos.reduce((a, b) => a + b, 0);
      else if (whole <= Math.max(2, Math.floor(q.length / 3))) score = 2 + whole;
      else if (words.some((w) => w.length > 2 && own.includes(w))) score = 50;
    }
    if (score < Infinity) scored.push([n, score]);
  }
  return scored
    .sort((a, b) => a[1] - b[1])
    .slice(0, limit)
    .map(([n]) => n);
}

/** The message for a block name not in the roster: the near names, and how to list them all. */
export function unknownBlockMessage(name: string): string {
  const near = nearBlockNames(name).map((n) => `"${n}"`);
  const guess = near.length === 0 ? '' : `: did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`}?`;
  return `"${name}" is not in the roster${guess} (\`siegesim roster crusader-rex\` lists all ${Object.keys(ROSTER).length} blocks; docs/rules/crusader-rex.md 5.1)`;
}

/** Town ratings (castle limits), 5.2. Fortified ports: Tyre and Tripoli. */
export const TOWNS: Record<string, { rating: number; fortifiedPort?: boolean }> = {
  Damascus: { rating: 4 },
  Egypt: { rating: 4 },
  Aleppo: { rating: 3 },
  Antioch: { rating: 3 },
  Acre: { rating: 3 },
  Jerusalem: { rating: 3 },
  Homs: { rating: 2 },
  Tripoli: { rating: 2, fortifiedPort: true },
  Tyre: { rating: 2, fortifiedPort: true },
  Beirut: { rating: 2 },
  Tiberias: { rating: 2 },
  Ascalon: { rating: 2 },
};
for (const t of ['Artah', 'Zerdana', 'Hama', 'Baalbek', 'Banyas', 'Ashtera', 'Latakia', 'Saône', 'Margat', 'Tartus', 'Krak', 'Sidon', 'Beaufort', 'Baisan', 'Caesarea', 'Nablus', 'Amman', 'Jaffa', 'Hebron', 'Kerak', 'Gaza']) {
  TOWNS[t] = { rating: 1 };
}
for (const t of ['Lacum', 'Qaddas', 'Anjar', 'Ajlun', 'St. Simeon', 'Harim', 'Kassab', 'Shughur', 'Albara', 'Monterrand', 'Botron', 'Legio', 'Damiya', 'Ramallah', 'Jericho', 'Lachish', 'Beersheba', 'Dimona', 'Zoar']) {
  TOWNS[t] = { rating: 0 };
}
