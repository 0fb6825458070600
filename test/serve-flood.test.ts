/**
 * A workbench that stays responsive under a flood. The built
 * `siegesim serve` (its own process, on 127.0.0.1, port 0) gets a 300-request flood of
 * /api/run|sweep|sensitivity|tune with heavy values from 40 client ids, sent by another
 * process, while this one probes `GET /api/scenarios` and a static asset. Every flood request
 * must be answered (a stream, or 429/503 with Retry-After from its headers alone) and the probes stay
 * quick. Also: a served file that is slow to validate (a 10,000-case sweep) is validated off
 * the server's thread, so the listing and the assets never wait for it.
 *
 * Bounded: at most 300 requests, each stream dropped by the flooder after 2 s, the probes for
 * 6 s, the server stopped at the end. The latencies are printed; the assertion on them has a
 * margin for a loaded 2-core machine (the target is 200 ms; on an idle machine the median
 * probe is a few milliseconds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { ROOT, startCli, tempDirs, type RunningCli } from './cli-child.js';
import { surrenderHead, surrenderSweep } from './heavy-scenarios.js';

const FLOODER = `
import { request } from 'node:http';
const [port, n] = process.argv.slice(1).map(Number);
const sc = 'surrender/town-basic.yaml';
const bodies = [
  ['/api/run', { scenario: sc, trials: 100000000 }],
  ['/api/sweep', { scenario: sc, trials: 10000000, axes: [{ path: 'besieger.combat_units', from: 1, to: 20, step: 1 }] }],
  ['/api/sensitivity', { scenario: sc, trials: 4000000 }],
  ['/api/tune', { scenario: sc, trials: 10000000, params: ['besieger.combat_units', 'besieged.steps_inside'], targets: [{ metric: 'p_surrender', lo: 0.4, hi: 0.5 }] }],
];
const one = (i) => new Promise((resolve) => {
  const [route, body] = bodies[i % 4];
  const t0 = performance.now();
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: route, agent: false, headers: { Host: '127.0.0.1:' + port, 'Content-Type': 'application/json', 'X-Siegesim-Client': 'flood-client-' + String(i % 40).padStart(4, '0') } }, (res) => {
    const head = performance.now() - t0;
    const out = { status: res.statusCode, head, retry: res.headers['retry-after'] ?? null };
    res.resume();
    const t = setTimeout(() => req.destroy(), 2000);
    res.on('end', () => (clearTimeout(t), resolve(out)));
    res.on('close', () => (clearTimeout(t), resolve(out)));
  });
  req.setTimeout(30000, () => req.destroy());
  req.on('error', (e) => resolve({ status: 0, head: performance.now() - t0, error: e.code }));
  req.end(JSON.stringify(body));
});
const all = await Promise.all(Array.from({ length: n }, (_, i) => one(i)));
process.stdout.write(JSON.stringify(all));
`;

function get(port: number, route: string): Promise<{ status: number; ms: number; text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port, method: 'GET', path: route, agent: false, headers: { Host: `127.0.0.1:${port}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, text }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('probe timed out')));
    req.on('error', reject);
    req.end();
  });
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

describe('the workbench under a flood (built CLI, 127.0.0.1)', () => {
  let server: RunningCli;
  let port = 0;
  let dir = '';
  let heavy = '';
  // made here, not in beforeAll: an afterAll registered inside a hook is never run (the folder stayed)
  const makeDir = tempDirs('siegesim-flood-');
  beforeAll(async () => {
    dir = makeDir();
    mkdirSync(path.join(dir, 'surrender'));
    copyFileSync(path.join(ROOT, 'scenarios/surrender/town-basic.yaml'), path.join(dir, 'surrender/town-basic.yaml'));
    // a file that takes seconds to validate: 10,000 cases and 10 expect: items on each (within every limit)
    heavy = [
      ...surrenderHead('heavy'),
      ...surrenderSweep(100, 100),
      'expect:',
      ...Array.from({ length: 10 }, () => '  - { metric: p_test, at_least: 0 }'),
      '',
    ].join('\n');
    writeFileSync(path.join(dir, 'heavy.yaml'), heavy);
    server = startCli(['serve', dir, '--port', '0'], { cwd: dir, timeoutMs: 240_000 });
    const said = await server.waitFor(/http:\/\/127\.0\.0\.1:\d+\//);
    port = Number(/http:\/\/127\.0\.0\.1:(\d+)\//.exec(said)![1]);
  }, 240_000);
  afterAll(async () => {
    server?.child.kill('SIGINT');
    await server?.done;
  });

  it('a file being validated holds up neither the listing nor an asset', { timeout: 120_000 }, async () => {
    // a new version of the heavy file (seconds of validation), then the listing and an asset at once
    writeFileSync(path.join(dir, 'heavy.yaml'), heavy + '# changed\n');
    const [list, css] = await Promise.all([get(port, '/api/scenarios'), get(port, '/assets/app.css')]);
    expect(list.status).toBe(200);
    expect(css.status).toBe(200);
    const listed = (JSON.parse(list.text) as { scenarios: { path: string; pending?: boolean; name?: string }[] }).scenarios;
    expect(listed.map((s) => s.path)).toEqual(['heavy.yaml', 'surrender/town-basic.yaml']);
    // the listing did not wait for it: still being validated, named only
    expect(listed[0]).toEqual({ path: 'heavy.yaml', pending: true });
    expect(listed[1].name).toBe('surrender-town-basic');
    console.log(`serve: /api/scenarios answered in ${Math.round(list.ms)} ms and /assets/app.css in ${Math.round(css.ms)} ms while heavy.yaml (10,000 cases) was being validated`);
    // once validated, it is listed in full
    for (let i = 0; i < 600; i++) {
      const again = (JSON.parse((await get(port, '/api/scenarios')).text) as { scenarios: { path: string; name?: string }[] }).scenarios;
      if (again[0].name) return expect(again[0].name).toBe('heavy');
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('heavy.yaml was never validated');
  });

  it('300 heavy job requests from 40 clients: every one answered (a stream, or 429/503 with Retry-After), probes answered quickly', { timeout: 180_000 }, async () => {
    const flooder = spawn(process.execPath, ['--input-type=module', '-e', FLOODER, String(port), '300'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    flooder.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const flooded = new Promise<void>((resolve) => flooder.on('close', () => resolve()));
    await new Promise((r) => setTimeout(r, 100)); // the flood is under way
    const probes: { route: string; status: number; ms: number }[] = [];
    const t0 = performance.now();
    while (performance.now() - t0 < 6000) {
      for (const route of ['/api/scenarios', '/assets/app.css']) {
        const r = await get(port, route);
        probes.push({ route, status: r.status, ms: r.ms });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await flooded;
    const results = JSON.parse(out) as { status: number; head: number; retry: string | null; error?: string }[];
    const ms = probes.map((p) => p.ms);
    const counts: Record<string, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    console.log(
      `serve flood: ${results.length} requests from 40 clients: ${JSON.stringify(counts)}; slowest response headers ${Math.round(Math.max(...results.map((r) => r.head)))} ms; ` +
        `${probes.length} probes (GET /api/scenarios and /assets/app.css): median ${Math.round(quantile(ms, 0.5))} ms, p90 ${Math.round(quantile(ms, 0.9))} ms, max ${Math.round(Math.max(...ms))} ms`,
    );
    expect(results).toHaveLength(300);
    // every request got its response headers (none left hanging), and every refusal says when to come back
    for (const r of results) {
      expect([200, 429, 503], JSON.stringify(r)).toContain(r.status);
      expect(r.head).toBeLessThan(30_000);
      if (r.status !== 200) expect(r.retry, JSON.stringify(r)).toMatch(/^\d+$/);
    }
    expect(probes.every((p) => p.status === 200)).toBe(true);
    // the target is 200 ms; a loaded 2-core machine (8 suites at once) stretches every latency
    expect(quantile(ms, 0.5)).toBeLessThan(200);
    expect(quantile(ms, 0.9)).toBeLessThan(1000);
    expect(Math.max(...ms)).toBeLessThan(5000);
  });
});

describe('admission control (src/serve/admission.ts)', () => {
  it('per client, then over all clients: 429 then 503, each with Retry-After; a release makes room again', async () => {
    const { Admission, ADMISSION } = await import('../src/serve/admission.js');
    const { RequestError } = await import('../src/serve/requests.js');
    const a = new Admission();
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as InstanceType<typeof RequestError>;
      }
      throw new Error('admitted');
    };
    const mine = Array.from({ length: ADMISSION.perClientQueued }, () => a.enter('client-a'));
    const r429 = refusal(() => a.enter('client-a'));
    expect(r429.status).toBe(429);
    expect(r429.headers['Retry-After']).toBe(String(ADMISSION.retryClientSeconds));
    const others = Array.from({ length: ADMISSION.queued - ADMISSION.perClientQueued }, (_, i) => a.enter(`client-${i}`));
    const r503 = refusal(() => a.enter('client-z'));
    expect(r503.status).toBe(503);
    expect(r503.headers['Retry-After']).toBe(String(ADMISSION.retryServerSeconds));
    mine[0]();
    mine[0](); // twice is once
    expect(a.load.queued).toBe(ADMISSION.queued - 1);
    a.enter('client-z')();
    for (const r of [...mine, ...others]) r();
    expect(a.load).toEqual({ queued: 0, clients: 0 });
  });

  it('preparations run one at a time, in order', async () => {
    const { Admission } = await import('../src/serve/admission.js');
    const a = new Admission();
    const order: string[] = [];
    const first = await a.preparing();
    const second = a.preparing().then((done) => (order.push('second'), done));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]); // waits for the first
    order.push('first done');
    first();
    (await second)();
    expect(order).toEqual(['first done', 'second']);
  });
});
