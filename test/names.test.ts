/**
 * Names are looked up, never read off objects. Every built-in property name
 * (`constructor`, `toString`, `__proto__`, ...) given as a metric, a setting, a variant or a
 * `--where` path is refused with the scenario's own names, at every entry: the command line
 * (exit 2) and the workbench API (4xx). Before, `--metric constructor` ran `solve` to
 * `UNRESOLVED ... (undefined trials)`, `sensitivity` ranked "constructor", `tune` reported
 * "any value gives the same constructor", `--where __proto__=1` ran, and
 * `POST /api/sensitivity {"metric":"constructor"}` streamed to `done`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { inlineExecutor } from '../src/api/executors.js';
import { rootsOf } from '../src/serve/catalogue.js';
import { startWorkbench, type Workbench } from '../src/serve/server.js';
import { parseSettings } from '../src/api/tunables.js';
import { ROOT, runCli, STACK_FRAME, tempDirs } from './cli-child.js';
import { runCliBatch, type BatchResult } from './cli-batch.js';

/** The names every object answers to without owning them (Object.prototype's, and the accessor). */
const BUILT_IN = [
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
];

const dir = tempDirs('siegesim-names-')();
const SCEN = 'names.yaml';
writeFileSync(
  path.join(dir, SCEN),
  [
    'name: names',
    'system: surrender',
    'seed: 1',
    'trials: 1000',
    'structure: { surrender_level: 3 }',
    'besieger: { combat_units: 8 }',
    'besieged: { steps_inside: 10 }',
    'turns: 4',
    'variants:',
    '  - name: a',
    '  - name: b',
    '    set: { rules.die: 10 }',
    '',
  ].join('\n'),
);
const OWN = /this scenario's metrics: p_test, p_surrender, mean_turns/;

describe('built-in property names on the command line', () => {
  const before = new Set(readdirSync(dir));
  const commands: [string, (n: string) => string[], RegExp][] = [
    ['solve --metric', (n) => ['solve', SCEN, '--metric', n, '--param', 'besieger.combat_units', '--target', '0.5'], OWN],
    ['sensitivity --metric', (n) => ['sensitivity', SCEN, '--metric', n, '--trials', '100'], OWN],
    ['tune --target', (n) => ['tune', SCEN, '--target', `${n} in [0.1, 0.2]`, '--params', 'besieger.combat_units'], OWN],
    ['solve --param', (n) => ['solve', SCEN, '--metric', 'p_test', '--param', n, '--target', '0.5'], /is not|not a/],
    ['sensitivity --params', (n) => ['sensitivity', SCEN, '--params', `besieger.${n}`, '--trials', '100'], /is not a tunable setting/],
    ['sensitivity --where', (n) => ['sensitivity', SCEN, '--where', `${n}=1`, '--trials', '100'], /is not a tunable setting/],
    ['solve --variant', (n) => ['solve', SCEN, '--metric', 'p_test', '--param', 'besieger.combat_units', '--target', '0.5', '--variant', n], /no variant .* \(its variants: a, b\)/],
  ];
  // one child per (command, name) would be 70 starts: the names go through each command in turn,
  // a few per command (the rest are held in-process below and by the API test); the first as a
  // `siegesim` process of its own, the others through the same program in one child (cli-batch.ts)
  const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
  let batch: Promise<BatchResult[]> | undefined;
  const batched = () => (batch ??= runCliBatch(commands.flatMap(([, args]) => NAMES.slice(1).map((n) => [...args(n), '--no-progress'])), dir));
  commands.forEach(([what, args, message], c) => {
    it(`${what}: ${NAMES.join(', ')} each exit 2 with the scenario's own names`, { timeout: 120_000 }, async () => {
      const own = await runCli([...args(NAMES[0]), '--no-progress'], { cwd: dir });
      const rest = (await batched()).slice(c * (NAMES.length - 1), (c + 1) * (NAMES.length - 1));
      for (const [n, r] of [[NAMES[0], own], ...NAMES.slice(1).map((n, i) => [n, rest[i]] as const)] as const) {
        expect(r.code, `${what} ${n}: ${r.stderr}`).toBe(2);
        expect(r.stderr, `${what} ${n}`).toMatch(message);
        expect(r.stderr).not.toMatch(STACK_FRAME);
      }
      expect(new Set(readdirSync(dir))).toEqual(before);
    });
  });

  it('expect: and headline: names are checked against the scenario\'s own', async () => {
    const text = (n: string) =>
      [
        'name: e',
        'system: surrender',
        'seed: 1',
        'trials: 1000',
        'structure: { surrender_level: 3 }',
        'besieger: { combat_units: 8 }',
        'besieged: { steps_inside: 10 }',
        'turns: 4',
        `headline: [${n}]`,
        'variants:',
        '  - name: a',
        '  - name: b',
        '    set: { rules.die: 10 }',
        'expect:',
        `  - { metric: ${n}, at_least: 0 }`,
        `  - { metric: diff_${n}, at_least: 0 }`,
        `  - { metric: p_test, at_least: 0, variant: ${n} }`,
        '',
      ].join('\n');
    for (const n of BUILT_IN) writeFileSync(path.join(dir, `e-${n}.yaml`), text(n));
    const r = await runCli(['validate', ...BUILT_IN.map((n) => `e-${n}.yaml`)], { cwd: dir });
    expect(r.code).toBe(2);
    for (const n of BUILT_IN) {
      expect(r.stderr).toContain(`e-${n}.yaml:9:12  headline[0]  unknown metric "${n}"`);
      expect(r.stderr).toContain(`expect[0].metric  unknown metric "${n}"`);
      expect(r.stderr).toContain(`expect[1].metric  unknown metric "diff_${n}"`);
      expect(r.stderr).toContain(`expect[2].variant  unknown variant "${n}"`);
    }
  });
});

describe('parseSettings (--where) keeps every name as its own key', () => {
  it.each(BUILT_IN)('%s=1 is an own key of the result', (n) => {
    const s = parseSettings(`${n}=1`);
    expect(Object.keys(s)).toEqual([n]);
    expect(Object.getPrototypeOf(s)).toBe(Object.prototype);
  });
});

describe('built-in property names through the workbench API', () => {
  let wb: Workbench;
  beforeAll(async () => {
    const served = path.join(dir, 'served');
    mkdirSync(path.join(served, 'surrender'), { recursive: true });
    copyFileSync(path.join(ROOT, 'scenarios/surrender/town-basic.yaml'), path.join(served, 'surrender/town-basic.yaml'));
    wb = await startWorkbench({ roots: rootsOf([served]).roots, port: 0, executor: inlineExecutor(), log: () => {} });
  });
  afterAll(async () => {
    await wb?.close();
  });
  const post = (route: string, body: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: wb.port, method: 'POST', path: route, agent: false, headers: { Host: `127.0.0.1:${wb.port}`, 'Content-Type': 'application/json', 'X-Siegesim-Client': 'names-test-0001' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const scenario = 'surrender/town-basic.yaml';
  const routes: [string, (n: string) => unknown][] = [
    ['/api/sensitivity metric', (n) => ({ scenario, metric: n, trials: 100 })],
    ['/api/sweep metric', (n) => ({ scenario, metric: n, trials: 100, axes: [{ path: 'besieger.combat_units', from: 1, to: 3, step: 1 }] })],
    ['/api/tune targets[0].metric', (n) => ({ scenario, trials: 100, params: ['besieger.combat_units'], targets: [{ metric: n, lo: 0.1, hi: 0.2 }] })],
    ['/api/sensitivity params', (n) => ({ scenario, params: [`besieger.${n}`], trials: 100 })],
    ['/api/run variant', (n) => ({ scenario, variant: n, trials: 100 })],
  ];
  it.each(routes)('%s: each built-in name is a 4xx naming it, never a run', { timeout: 60_000 }, async (what, body) => {
    for (const n of BUILT_IN) {
      const r = await post(what.split(' ')[0], body(n));
      expect(r.status, `${what} ${n}: ${r.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${what} ${n}`).toBeLessThan(500);
      expect(r.text).not.toMatch(/"type":"done"/);
    }
  });
  it('/api/check metric: each built-in name is a problem at "metric" (the check answers 200 with ok: false)', async () => {
    for (const n of BUILT_IN) {
      const r = await post('/api/check', { scenario, metric: n, axes: [{ path: 'besieger.combat_units', from: 1, to: 3, step: 1 }] });
      const body = JSON.parse(r.text) as { ok: boolean; issues: { path: string; message: string }[] };
      expect(body.ok, n).toBe(false);
      expect(body.issues, n).toContainEqual({ path: 'metric', message: expect.stringContaining(`unknown metric "${n}"`) });
    }
  });
});
