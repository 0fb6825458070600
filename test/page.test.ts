/**
 * The workbench page's pure parts (src/serve/page): number formatting, the link's values and
 * sweeps, NDJSON line splitting and message narrowing. The page as a whole is tested in Chromium
 * (serve-browser.test.ts, answers-browser.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { fixedSide, fmtDiff, fmtDiffInterval, fmtInterval, fmtValue, halfWidth, int, label, num, overText, pct, significant } from '../src/serve/page/format.js';
import { linkNumber, listWords, openingOf, parseSweepSpec, queryText, rangeNoteOf, rangeOfList, rangeValues, RESERVED, trialsOk, valuesFromQuery } from '../src/serve/page/links.js';
import { isMessage, LineSplitter, messagesOf, parseMessage } from '../src/serve/page/ndjson.js';
import { newerOnly } from '../src/serve/page/order.js';
import type { ControlKind, RunMessage, ScenarioEntry, StreamMessage } from '../src/api/protocol.js';

describe('formatting', () => {
  it('keeps a non-zero value off 0 and never writes -0', () => {
    expect(fixedSide(0.0004, 1)).toBe('0.0004');
    expect(fixedSide(-0.0004, 1)).toBe('-0.0004');
    expect(fixedSide(0, 2)).toBe('0.00');
    expect(fixedSide(1e-12, 1)).toBe('1.0e-12');
    expect(fixedSide(12.345, 1)).toBe('12.3');
  });

  it('writes probabilities as percentages and means by their size', () => {
    expect(pct(0.4567)).toBe('45.7%');
    expect(pct(0.4567, 2)).toBe('45.67%');
    expect(pct(null)).toBe('–');
    expect(pct(NaN)).toBe('–');
    expect(num(123.456)).toBe('123.5');
    expect(num(12.3456)).toBe('12.35');
    expect(num(1.23456)).toBe('1.235');
    expect(num(undefined)).toBe('–');
    expect(fmtValue({ value: 0.5, ci_low: 0.49, ci_high: 0.51 })).toBe('50.0%');
    expect(fmtValue({ value: 3.25, ci_low: 3, ci_high: 3.5, kind: 'mean' })).toBe('3.250');
    expect(fmtValue(undefined)).toBe('–');
  });

  it('writes intervals, with none where an end is missing', () => {
    expect(fmtInterval({ value: 0.5, ci_low: 0.49, ci_high: 0.512 })).toBe('49.0–51.2%');
    expect(fmtInterval({ value: 3, ci_low: 2.5, ci_high: 3.5, kind: 'mean' })).toBe('2.500–3.500');
    expect(fmtInterval({ value: 3, ci_low: null, ci_high: null })).toBe('');
    // a near-certainty is not written as a certainty: 0.9997 is not 100.0%, nor its interval 100.0–100.0%
    expect(fmtValue({ value: 0.9997, ci_low: 0.99935, ci_high: 0.99986 })).toBe('99.97%');
    expect(fmtInterval({ value: 0.9997, ci_low: 0.99935, ci_high: 0.99986 })).toBe('99.9–99.99%');
    expect(fmtInterval({ value: 1, ci_low: 0.99977, ci_high: 1 })).toBe('99.98–100.0%');
    // two ends that differ are never written alike (a rare event's interval read as exact): more decimals, the value's too
    expect(fmtInterval({ value: 0.00085, ci_low: 0.00053, ci_high: 0.00136 })).toBe('0.05–0.14%');
    expect(fmtValue({ value: 0.00086, ci_low: 0.00053, ci_high: 0.00136 })).toBe('0.09%');
    expect(fmtInterval({ value: 0.5, ci_low: 0.50001, ci_high: 0.50004 })).toBe('50.001–50.004%');
    expect(fmtInterval({ value: 1.0001, ci_low: 1.00002, ci_high: 1.00019, kind: 'mean' })).toBe('1.0000–1.0002');
    expect(fmtValue({ value: 1.0001, ci_low: 1.00002, ci_high: 1.00019, kind: 'mean' })).toBe('1.0001');
    expect(fmtInterval({ value: 0.25, ci_low: 0.25, ci_high: 0.25 })).toBe('25.0–25.0%'); // exactly one value: as it is
    expect(pct(0.9999995)).toMatch(/^99\.9999\d*%$/);
    expect(pct(0.00003)).toBe('0.003%');
    expect(pct(1)).toBe('100.0%');
    expect(pct(0)).toBe('0.0%');
    expect(pct(0.99996, 2)).toBe('99.996%');
    expect(halfWidth({ value: 0.5, ci_low: 0.4, ci_high: 0.6 })).toBeCloseTo(0.1);
    expect(halfWidth({ value: 0.5, ci_low: null, ci_high: null })).toBeNaN();
  });

  it('signs differences and keeps each end of their interval on its side of 0', () => {
    const d = { value: 0.012, ci_low: 0.0004, ci_high: 0.0236 };
    expect(fmtDiff(d, true)).toBe('+1.2 pts');
    expect(fmtDiff({ ...d, value: -0.012 }, true)).toBe('−1.2 pts');
    expect(fmtDiff({ ...d, value: 0 }, true)).toBe('0.0 pts');
    expect(fmtDiff({ value: -2.5, ci_low: -3, ci_high: -2, kind: 'mean' }, false)).toBe('−2.500');
    expect(fmtDiffInterval(d, true)).toBe('0.04 to 2.4');
    expect(fmtDiffInterval({ value: -2.5, ci_low: -3, ci_high: -2 }, false)).toBe('−3.000 to −2.000');
    // the value never written as one of its interval's ends when it is not (a new user read "−0.1 pts [-0.1 to -0.04]")
    expect(fmtDiff({ value: -0.0006, ci_low: -0.001, ci_high: -0.0004 }, true)).toBe('−0.06 pts');
    expect(fmtDiffInterval({ value: -0.0006, ci_low: -0.001, ci_high: -0.0004 }, true)).toBe('−0.10 to −0.04');
    expect(fmtValue({ value: 0.99985, ci_low: 0.99975, ci_high: 0.99992 })).toBe('99.985%');
    expect(fmtValue({ value: 0.423, ci_low: 0.415, ci_high: 0.431 })).toBe('42.3%');
    expect(fmtDiff(undefined, true)).toBe('–');
    // a narrow difference's ends told apart, its value with them
    expect(fmtDiffInterval({ value: 0.0013, ci_low: 0.0012, ci_high: 0.0014 }, true)).toBe('0.12 to 0.14');
    expect(fmtDiff({ value: 0.0013, ci_low: 0.0012, ci_high: 0.0014 }, true)).toBe('+0.13 pts');
    expect(significant(d)).toBe(true);
    expect(significant({ value: 0.01, ci_low: -0.001, ci_high: 0.02 })).toBe(false);
    expect(significant({ value: null, ci_low: null, ci_high: null })).toBe(false);
  });

  it('says when a conditional mean moved its event', () => {
    expect(overText({ value: 1, ci_low: 0, ci_high: 2, over_different_trials: { event: 'p_breach', from: 0.2, to: 0.35 } })).toBe('over different trials: p_breach 20.0% → 35.0%');
    expect(overText({ value: 1, ci_low: 0, ci_high: 2 })).toBe('');
    // the two in the decimals that tell them apart (it read "99.98% → 99.9%" beside a card's 99.92%)
    expect(overText({ value: 1, ci_low: 0, ci_high: 2, over_different_trials: { event: 'p_breach', from: 0.9998, to: 0.9992 } })).toBe('over different trials: p_breach 99.98% → 99.92%');
  });

  it('writes counts and metric names for people', () => {
    expect(int(2000000)).toBe('2,000,000');
    expect(label('p_attacker_wins')).toBe('P attacker wins');
    expect(label('mean_turns_to_fall')).toBe('mean turns to fall');
  });
});

describe('the link', () => {
  it('types values as their controls need, leaving the reserved keys', () => {
    const kinds: Record<string, ControlKind> = { 'wall.hp': 'int', 'wall.chance': 'number', 'moat.dry': 'boolean', 'wall.type': 'enum' };
    const q = new URLSearchParams('scenario=a/b.yaml&trials=5000&sweep=wall.hp:1..3:1&wall.hp=40&wall.chance=0.25&moat.dry=true&wall.type=12&other.x=7&other.y=seven&moat.wet=maybe');
    expect(valuesFromQuery(q, (p) => kinds[p])).toEqual({ 'wall.hp': 40, 'wall.chance': 0.25, 'moat.dry': true, 'wall.type': '12', 'other.x': 7, 'other.y': 'seven', 'moat.wet': 'maybe' });
    expect(valuesFromQuery(new URLSearchParams('moat.dry=yes&wall.hp='), (p) => kinds[p])).toEqual({ 'moat.dry': 'yes', 'wall.hp': '' });
    for (const k of ['scenario', 'variant', 'seed', 'trials', 'precision', 'max_trials', 'sweep', 'sweep_metric', 'sweep_target', 'sweep_trials']) expect(RESERVED.has(k)).toBe(true);
  });

  it('writes paths, ranges and lists readably and reads them back the same', () => {
    const q = new URLSearchParams();
    q.set('scenario', 'surrender/town basic.yaml');
    q.append('sweep', 'wall.hp:20..60:10');
    q.append('sweep', 'wall.dc:10,20,40');
    const text = queryText(q);
    expect(text).toBe('scenario=surrender/town+basic.yaml&sweep=wall.hp:20..60:10&sweep=wall.dc:10,20,40');
    expect([...new URLSearchParams(text)]).toEqual([...q]);
  });

  it('reads a sweep as a range, a list, or says what is wrong', () => {
    const offered = (p: string) => p === 'wall.hp';
    expect(parseSweepSpec('wall.hp:20..60:10', offered)).toEqual({ path: 'wall.hp', from: 20, to: 60, step: 10 });
    expect(parseSweepSpec('wall.hp:0.5..1.5:.25', offered)).toEqual({ path: 'wall.hp', from: 0.5, to: 1.5, step: 0.25 });
    expect(parseSweepSpec('wall.hp:10,20,40', offered)).toEqual({ path: 'wall.hp', values: [10, 20, 40] });
    expect(parseSweepSpec('wall.dc:10,20', offered)).toEqual({ unknownPath: 'wall.dc' });
    expect(parseSweepSpec('wall.hp', offered)).toMatchObject({ error: expect.stringMatching(/^sweep=wall\.hp: write <setting>/) });
    expect(parseSweepSpec('20..60:10', offered)).toEqual({ unknownPath: '20..60' });
    expect(parseSweepSpec('wall.hp:a..60:10', offered)).toMatchObject({ error: expect.stringContaining('from, to and step must be numbers') });
    expect(parseSweepSpec('wall.hp:10,0x20', offered)).toMatchObject({ error: expect.stringContaining('numbers separated by commas') });
    expect(linkNumber('1e3')).toBe(1000);
    expect(linkNumber('Infinity')).toBeNaN();
    expect(linkNumber(' 5')).toBeNaN();
  });

  describe('where a link opens (openingOf)', () => {
    const entry = (path: string, variants: string[]): ScenarioEntry => ({ path, name: path, system: 'fantasy', description: '', variants });
    const LIST: ScenarioEntry[] = [
      { path: 'a/broken.yaml', error: 'unknown key' },
      entry('fantasy/climbers-dc.yaml', ['at-least-dc', 'above-dc']),
      entry('fantasy/stone-wall-siege.yaml', ['baseline']),
    ];
    const open = (link: string) => {
      const q = new URLSearchParams(link);
      return openingOf(q, LIST, q.get('scenario'), q.get('scenario'));
    };

    it('a scenario not served: the first valid one at its own defaults, the link\'s variant and settings named as not applied', () => {
      // the audit's dead page: a variant the fallback lacks was asked of it (a 422, nothing ran)
      expect(open('scenario=renamed.yaml&variant=gone')).toEqual({
        path: 'fantasy/climbers-dc.yaml',
        applies: false,
        unknown: 'scenario=renamed.yaml: not one of the served files (the first is opened)',
        problems: ['variant=gone: not applied (it is for renamed.yaml); fantasy/climbers-dc.yaml opens at its own defaults'],
      });
      // a variant of the same name on the fallback is not the one meant: not applied either
      const same = open('scenario=renamed.yaml&variant=above-dc&wall.dc=14&trials=5000&sweep=wall.hp:10,20');
      expect(same.variant).toBeUndefined();
      expect(same.applies).toBe(false);
      // the run's own settings (trials, precision, max_trials, seed) are not the scenario's: not listed here, the top bar takes them
      expect(same.problems).toEqual(['variant=above-dc, wall.dc=14, sweep=wall.hp:10,20: not applied (they are for renamed.yaml); fantasy/climbers-dc.yaml opens at its own defaults']);
      expect(open('scenario=renamed.yaml&trials=5000').problems).toEqual([]);
    });

    it('the scenario named: its variant when it has it, else its first with the variant named; the settings are its', () => {
      expect(open('scenario=fantasy/climbers-dc.yaml&variant=above-dc&wall.dc=14')).toEqual({ path: 'fantasy/climbers-dc.yaml', variant: 'above-dc', applies: true, problems: [] });
      expect(open('scenario=fantasy/climbers-dc.yaml&variant=gone')).toEqual({
        path: 'fantasy/climbers-dc.yaml',
        variant: undefined,
        applies: true,
        problems: ['variant=gone: not a variant of fantasy/climbers-dc.yaml (one of: at-least-dc, above-dc); opened on at-least-dc'],
      });
      // an invalid file the link names is opened, so that the page says what is wrong with it
      expect(open('scenario=a/broken.yaml')).toMatchObject({ path: 'a/broken.yaml', applies: true, problems: [] });
    });

    it('no scenario named (or its own #yaml= unreadable): the first, and any variant or setting named as not applied', () => {
      expect(open('')).toEqual({ path: 'fantasy/climbers-dc.yaml', applies: false, problems: [] });
      expect(open('variant=above-dc').problems).toEqual(['variant=above-dc: not applied (the link names no scenario); fantasy/climbers-dc.yaml opens at its own defaults']);
      const q = new URLSearchParams('scenario=yours/pasted.yaml&structure.surrender_level=3');
      expect(openingOf(q, LIST, null, 'yours/pasted.yaml')).toMatchObject({ path: 'fantasy/climbers-dc.yaml', applies: false, unknown: undefined, problems: [expect.stringMatching(/^structure\.surrender_level=3: not applied \(it is for yours\/pasted\.yaml\)/)] });
      expect(openingOf(new URLSearchParams('scenario=x.yaml&variant=v'), [{ path: 'a/broken.yaml', error: 'e' }], 'x.yaml', 'x.yaml')).toEqual({ path: undefined, applies: false, unknown: 'scenario=x.yaml: not one of the served files (the first is opened)', problems: [] });
    });
  });

  it('takes trials from 1 to the server cap, whole', () => {
    expect(trialsOk('1')).toBe(true);
    expect(trialsOk(' 100000000 ')).toBe(true);
    expect(trialsOk('100000001')).toBe(false);
    expect(trialsOk('0')).toBe(false);
    expect(trialsOk('2.5')).toBe(false);
    expect(trialsOk('')).toBe(false);
  });

  it('expands even ranges as the scenario sweep does, and says when "to" is off the step', () => {
    expect(rangeValues(20, 60, 10)).toEqual([20, 30, 40, 50, 60]);
    expect(rangeValues(0.1, 0.3, 0.1)).toEqual([0.1, 0.2, 0.3]);
    expect(rangeValues(10, 5, 1)).toEqual([]);
    expect(rangeValues(0, 1, 0)).toEqual([]);
    expect(rangeValues(0, 5000, 1)).toEqual([]);
    expect(rangeNoteOf(10, 30, 3)).toBe('30 is not on the step (3 from 10): the sweep ends at 28');
    expect(rangeNoteOf(10, 30, 5)).toBe('');
  });

  it('turns a list into the even range through every value', () => {
    expect(rangeOfList([10, 13, 16, 20, 25, 30])).toEqual({ from: 10, to: 30, step: 1 });
    expect(rangeOfList([40, 20, 60])).toEqual({ from: 20, to: 60, step: 20 });
    expect(rangeOfList([0.1, 0.3, 0.7])).toEqual({ from: 0.1, to: 0.7, step: 0.2 });
    expect(rangeOfList([5])).toEqual({ from: 5, to: 5, step: 1 });
    expect(listWords(' 10, 20;30  40,')).toEqual(['10', '20', '30', '40']);
  });
});

describe('NDJSON', () => {
  it('splits lines wherever the pieces break, skipping blank ones', () => {
    const s = new LineSplitter();
    expect(s.push('{"type":"sta')).toEqual([]);
    expect(s.push('rt"}\n\n{"type":"done"}\n{"ty')).toEqual(['{"type":"start"}', '{"type":"done"}']);
    expect(s.rest()).toBe('{"ty');
  });

  it('narrows to the protocol messages and refuses anything else', () => {
    expect(isMessage({ type: 'progress', done: 1, planned: 2, ms: 3 })).toBe(true);
    expect(isMessage({ type: 'nonsense' })).toBe(false);
    expect(isMessage([{ type: 'done' }])).toBe(false);
    expect(isMessage(null)).toBe(false);
    const m = parseMessage<RunMessage>('{"type":"error","message":"the run failed"}');
    expect(m.type === 'error' && m.message).toBe('the run failed');
    expect(() => parseMessage('{"error":"x"}')).toThrow(/not a workbench message/);
  });

  it('reads messages from bytes split inside a character and a line, including a last line without a newline', async () => {
    const text = '{"type":"solving","ms":1}\n{"type":"error","message":"é"}\n{"type":"solving","ms":2}';
    const bytes = new TextEncoder().encode(text);
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 7) yield bytes.slice(i, i + 7);
    }
    const out: StreamMessage[] = [];
    for await (const m of messagesOf(chunks())) out.push(m);
    expect(out).toEqual([{ type: 'solving', ms: 1 }, { type: 'error', message: 'é' }, { type: 'solving', ms: 2 }]);
  });
});

describe('draws that finish out of order (newerOnly: a sweep\'s partial charts and its last)', () => {
  it('an older drawing finishing after a newer one has painted does not paint over it', () => {
    const order = newerOnly();
    const partial = order.next();
    const last = order.next();
    expect(last()).toBe(true);
    expect(partial()).toBe(false);
  });
  it('drawings finishing in order each paint (a long sweep shows its progress), and the next after the last too', () => {
    const order = newerOnly();
    const a = order.next();
    const b = order.next();
    expect(a()).toBe(true);
    expect(b()).toBe(true);
    const c = order.next();
    const d = order.next();
    expect(d()).toBe(true);
    expect(c()).toBe(false);
    expect(order.next()()).toBe(true);
  });
  it('each order is its own (one sweep\'s drawings do not hold back another\'s)', () => {
    const one = newerOnly();
    const two = newerOnly();
    one.next();
    const late = one.next();
    const first = two.next();
    expect(late()).toBe(true);
    expect(first()).toBe(true);
  });
});
