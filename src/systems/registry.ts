/** Every implemented rules system. A new system is one folder and one line here. */
import { crusaderRex } from './crusader-rex/index.js';
import { cryHavoc } from './cry-havoc/index.js';
import { fantasy } from './fantasy/index.js';
import { surrender } from './surrender/index.js';
import type { RulesSystem } from './types.js';

export const SYSTEMS: readonly RulesSystem[] = [
  surrender as RulesSystem,
  crusaderRex as RulesSystem,
  fantasy as RulesSystem,
  cryHavoc as RulesSystem,
];

export function systemById(id: string): RulesSystem | undefined {
  return SYSTEMS.find((s) => s.id === id);
}
