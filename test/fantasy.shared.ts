/** Fantasy cases several test files hold their kernels to. */
import type { Tree } from './helpers.js';

/** The reference siege under the DEFAULT rules: engines, mages and clerics on both sides of a 30 HP wall. */
export const FANTASY_SIEGE: Tree = {
  mode: 'siege',
  attacker: { infantry: 10, cavalry: 4, archers: 6, mages: 2, clerics: 2, siege_engines: 3, captain_might: 2 },
  defender: { infantry: 6, archers: 6, mages: 1, clerics: 1, captain_might: 1 },
  wall: { hp: 30, dc: 12 },
};

/** A balanced open-field battle (the defender wins about 3 in 4). */
export const FANTASY_FIELD: Tree = {
  mode: 'open_field',
  attacker: { infantry: 6, cavalry: 2, archers: 3, mages: 2, clerics: 1, captain_might: 1 },
  defender: { infantry: 10, archers: 4, mages: 1, clerics: 3, captain_might: 1 },
};
