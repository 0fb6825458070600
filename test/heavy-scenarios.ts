/**
 * The scenario text the cost tests scale up (test/bounds.test.ts, test/serve-flood.test.ts): a
 * small surrender siege at one trial, so that only the number of cases, variants or expect:
 * items makes it heavy.
 */

/** The head of the scenario: every key but the sweep, variants and expect: that follow it. */
export const surrenderHead = (name: string): string[] => [
  `name: ${name}`,
  'system: surrender',
  'seed: 1',
  'trials: 1',
  'structure: { surrender_level: 3 }',
  'besieger: { combat_units: 8 }',
  'besieged: { steps_inside: 10 }',
  'turns: 4',
];

/** A sweep of besieger.combat_units 1..to1 x besieged.steps_inside 1..to2 (to1 x to2 cases). */
export const surrenderSweep = (to1: number, to2: number): string[] => [
  'sweep:',
  `  besieger.combat_units: { from: 1, to: ${to1}, step: 1 }`,
  `  besieged.steps_inside: { from: 1, to: ${to2}, step: 1 }`,
];
