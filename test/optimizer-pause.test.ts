/**
 * Charts drawn in this thread once no kernel runs any more pause V8's optimizing compiler while
 * they are drawn (report/renderer.ts): only once allowed (noKernelsFromNow: a server that draws
 * beside running trials never pauses), set back when the drawing ends (a chart that fails
 * included), and the same SVG bytes either way. The flags are watched here, not given to V8
 * (test files share a worker's modules); the real flag is set by every built `run` (the e2e
 * tests).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { _optimizerPause, _watchFlags, drawsHere, noKernelsFromNow, renderSvgs } from '../src/report/renderer.js';

const line = { data: { values: [{ t: 1, p: 0.2 }, { t: 2, p: 0.5 }] }, mark: 'line', encoding: { x: { field: 't', type: 'quantitative' }, y: { field: 'p', type: 'quantitative' } } };
const bars = { data: { values: [{ c: 'storm', p: 0.36 }, { c: 'starve', p: 0.01 }] }, mark: 'bar', encoding: { y: { field: 'c', type: 'nominal' }, x: { field: 'p', type: 'quantitative' } } };

describe('the optimizer paused while charts are drawn', () => {
  const flags: string[] = [];
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it('never unless allowed; once allowed, off for the drawing and on again at its end, a failed chart too; the same SVG bytes', async () => {
    expect(drawsHere()).toBe(true); // tests from source: drawn in this thread
    restore = _watchFlags((f) => void flags.push(f), false);
    const before = await renderSvgs([line, bars]);
    expect(flags).toEqual([]);
    expect(_optimizerPause()).toEqual({ allowed: false, paused: 0 });

    noKernelsFromNow();
    expect(_optimizerPause().allowed).toBe(true);
    const drawing = renderSvgs([line, bars]);
    const alongside = renderSvgs([bars]); // two drawings at once: one pause, set back when the last ends
    const after = await drawing;
    await alongside;
    expect(after).toEqual(before);
    expect(flags).toEqual(['--no-turbofan', '--turbofan']);
    expect(_optimizerPause()).toEqual({ allowed: true, paused: 0 });

    flags.length = 0;
    await expect(renderSvgs([{ mark: 'not-a-mark' }])).rejects.toThrow();
    expect(flags).toEqual(['--no-turbofan', '--turbofan']);
    expect(_optimizerPause().paused).toBe(0);
  });
});
