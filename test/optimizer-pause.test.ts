/**
 * Charts drawn in this thread once no kernel runs any more pause V8's optimizing compiler while
 * they are drawn (report/renderer.ts): only after noKernelsFromNow (a server that draws beside
 * running trials never pauses), set back when the drawing ends (a chart that fails included), and
 * the same SVG bytes either way. node:v8's setFlagsFromString is watched here; the real flag is
 * set by every built `run` (the e2e tests).
 */
import { describe, expect, it, vi } from 'vitest';

const flags: string[] = [];
vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString: (f: string) => void flags.push(f) }));

const { _optimizerPause, drawsHere, noKernelsFromNow, renderSvgs } = await import('../src/report/renderer.js');

const line = { data: { values: [{ t: 1, p: 0.2 }, { t: 2, p: 0.5 }] }, mark: 'line', encoding: { x: { field: 't', type: 'quantitative' }, y: { field: 'p', type: 'quantitative' } } };
const bars = { data: { values: [{ c: 'storm', p: 0.36 }, { c: 'starve', p: 0.01 }] }, mark: 'bar', encoding: { y: { field: 'c', type: 'nominal' }, x: { field: 'p', type: 'quantitative' } } };

describe('the optimizer paused while charts are drawn', () => {
  it('never before noKernelsFromNow; after it, off for the drawing and on again at its end, a failed chart too; the same SVG bytes', async () => {
    expect(drawsHere()).toBe(true); // tests from source: drawn in this thread
    const before = await renderSvgs([line, bars]);
    expect(flags).toEqual([]);
    expect(_optimizerPause()).toEqual({ allowed: false, paused: 0 });

    noKernelsFromNow();
    const drawing = renderSvgs([line, bars]);
    const paused = renderSvgs([bars]); // two drawings at once: one pause, set back when the last ends
    const after = await drawing;
    await paused;
    expect(after).toEqual(before);
    expect(flags).toEqual(['--no-turbofan', '--turbofan']);
    expect(_optimizerPause()).toEqual({ allowed: true, paused: 0 });

    flags.length = 0;
    await expect(renderSvgs([{ mark: 'not-a-mark' }])).rejects.toThrow();
    expect(flags).toEqual(['--no-turbofan', '--turbofan']);
    expect(_optimizerPause().paused).toBe(0);
  });
});
