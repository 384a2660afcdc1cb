import { describe, expect, test } from 'vitest';
import { GoodputError } from '../../errors.js';
import type { LoadSpec } from '../../types.js';
import { effectiveWorkers, resolveWorkerCount } from './count.js';

const closed = (concurrency: number, requests?: number): LoadSpec => ({
  mode: 'closed',
  concurrency,
  ...(requests !== undefined ? { requests } : {}),
  warmup: 0,
  timeoutMs: 1000,
  maxRetries: 0,
});
const open = (rate: number, burstiness: number, extra: Partial<LoadSpec> = {}): LoadSpec => ({
  mode: 'open',
  rate,
  burstiness,
  warmup: 0,
  timeoutMs: 1000,
  maxRetries: 0,
  ...extra,
});

describe('resolveWorkerCount', () => {
  test.each([
    [undefined, 2, 1],
    ['auto', 2, 1],
    ['auto', 1, 1],
    ['auto', 16, 15],
    ['3', 2, 3],
    [' 4 ', 2, 4],
    [2, 8, 2],
  ])('--workers %s on %i cores → %i', (flag, cores, want) => {
    expect(resolveWorkerCount(flag, cores)).toBe(want);
  });

  test.each(['0', '-1', '1.5', 'two', '', '257'])('--workers %s is a usage error with a hint', (flag) => {
    const err = (() => {
      try {
        resolveWorkerCount(flag, 4);
      } catch (e) {
        return e;
      }
    })() as GoodputError;
    expect(err).toBeInstanceOf(GoodputError);
    expect(err.code).toBe('E_USAGE');
    expect(err.hint).toContain('--workers 2');
  });
});

describe('effectiveWorkers', () => {
  test.each([
    [closed(1), 4, 1],
    [closed(3), 4, 3],
    [closed(64), 4, 4],
    [open(10, 1, { maxConcurrency: 2 }), 4, 2],
    [open(10, 1, { requests: 3 }), 8, 3],
    [open(10, 1), 8, 8],
  ])('%j with %i workers asked → %i with work to do', (load, n, want) => {
    expect(effectiveWorkers(load, n)).toBe(want);
  });
});
