import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { looksBig, threadsFromArgv } from '../src/cli/early-pool.js';
import { tempDirs } from './cli-child.js';

describe('the early worker pool of a big run (cli/early-pool.ts)', () => {
  const dir = tempDirs('siegesim-early-')();
  const file = (name: string, text: string) => {
    const f = path.join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  const tiny = file('tiny.yaml', 'name: tiny\nsystem: surrender\nseed: 1\ntrials: 1000\nturns: 12\n');
  const big = file('big.yaml', 'name: big\nsystem: surrender\nseed: 1\ntrials: 12_000_000  # many\nturns: 12\n');
  // a bundled file's own run: its trials say nothing of its time (a Crusader Rex siege's 200 000 are ~0.1 s)
  const own = file('own.yaml', 'name: own\nsystem: surrender\nseed: 1\ntrials: 400_000\nturns: 12\n');
  const nested = file('nested.yaml', 'name: n\nsystem: surrender\nseed: 1\ntrials: 1000\nsweep:\n  trials: 900000\n');

  it('starts only for a run that surely needs threads: --precision, a folder, 10 M trials a case', () => {
    expect(looksBig([tiny, '--out', '/tmp/x', '--no-progress'])).toBe(false);
    expect(looksBig([own])).toBe(false);
    expect(looksBig([tiny, '--trials', '9999999'])).toBe(false);
    expect(looksBig([tiny, '--trials=10000000'])).toBe(true);
    expect(looksBig([big, '--out', '/tmp/x'])).toBe(true);
    expect(looksBig([nested])).toBe(false); // only the top-level key counts
    expect(looksBig([tiny, '--trials', '20000000'])).toBe(true);
    expect(looksBig([big, '--trials=100'])).toBe(false); // the flag wins over the file
    expect(looksBig([tiny, '--precision', '0.01'])).toBe(true);
    expect(looksBig(['scenarios'])).toBe(true); // a folder
    expect(looksBig([path.join(dir, 'missing.yaml')])).toBe(false); // the program reports it
    // a named pipe is never opened here (reading it would block, and take what the program must read)
    const fifo = path.join(dir, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    expect(looksBig([fifo])).toBe(false);
    // a value of --out or --seed is not a scenario (a folder there once counted as one)
    expect(looksBig([tiny, '--out', dir, '--seed', 'x.yaml'])).toBe(false);
  });

  it('reads --threads as the option does, leaving bad values to its checks', () => {
    expect(threadsFromArgv([])).toBe(availableParallelism());
    expect(threadsFromArgv(['a.yaml', '--threads', '1'])).toBe(1);
    expect(threadsFromArgv(['--threads=2'])).toBe(2);
    expect(threadsFromArgv(['--threads', '0'])).toBeUndefined();
    expect(threadsFromArgv(['--threads', '1e99'])).toBeUndefined();
    expect(threadsFromArgv(['--threads', String(4 * availableParallelism() + 1)])).toBeUndefined();
  });
});
