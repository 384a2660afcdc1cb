import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../types.js';
import { timeDiffs } from './shards.js';

/** Only what timeDiffs reads: when a run started, how long it measured, its shard's instant. */
function run(startedAt: string, durationS: number, startAt?: string): RunSummary {
  return {
    meta: { startedAt, ...(startAt ? { shard: { index: 0, count: 2, startAt } } : {}) },
    duration: durationS,
  } as unknown as RunSummary;
}

describe('timeDiffs: parts of one run ran at one time', () => {
  it('shards told one instant, overlapping: nothing to say', () => {
    const at = '2026-12-03T10:00:00.000Z';
    expect(timeDiffs([run(at, 30, at), run('2026-12-03T10:00:00.004Z', 30, at)], ['s0', 's1'])).toEqual([]);
  });
  it('shards told different instants, 6 s apart, are refused although their skew is tiny', () => {
    const d = timeDiffs(
      [
        run('2026-12-03T10:00:00.000Z', 30, '2026-12-03T10:00:00.000Z'),
        run('2026-12-03T10:00:06.000Z', 30, '2026-12-03T10:00:06.000Z'),
      ],
      ['s0', 's1'],
    );
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(/different instants .*10:00:00.000Z, 2026-12-03T10:00:06.000Z/);
  });
  it('runs whose windows do not overlap (beyond the warm-up grace) are named', () => {
    const d = timeDiffs(
      [run('2026-12-03T10:00:00Z', 20, undefined), run('2026-12-03T10:01:00Z', 20)],
      ['a', 'b'],
    );
    expect(d).toEqual([
      expect.stringMatching(
        /^b ran from 2026-12-03T10:01:00.000Z, a from .* \(20.0 s\): their windows do not overlap$/,
      ),
    ]);
    // 25 s after a 20 s run: within the 10 s grace for warm-up.
    expect(timeDiffs([run('2026-12-03T10:00:00Z', 20), run('2026-12-03T10:00:25Z', 20)], ['a', 'b'])).toEqual(
      [],
    );
  });
});
