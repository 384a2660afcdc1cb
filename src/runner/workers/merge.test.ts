import { describe, expect, test } from 'vitest';
import { LatencyHistogram } from '../../metrics/index.js';
import type { LoadResult } from '../load.js';
import { mergeConnectionWarmups, mergeLoadResults, portableLoadResult } from './merge.js';

function result(over: Partial<LoadResult> & { lags?: number[]; waits?: number[] }): LoadResult {
  const dispatchLag = new LatencyHistogram();
  for (const v of over.lags ?? []) dispatchLag.record(v);
  const clientQueueWait = new LatencyHistogram();
  for (const v of over.waits ?? []) clientQueueWait.record(v);
  const { lags: _l, waits: _w, ...rest } = over;
  return {
    interrupted: false,
    stopReason: 'requests',
    measuredStartMs: 10,
    measuredEndMs: 100,
    sent: 10,
    warmupSent: 1,
    dropped: 0,
    lateSends: 0,
    peakInFlight: 2,
    eventLoopDelay: { p50: 1, p99: 2, max: 3 },
    clientBound: false,
    ...rest,
    dispatchLag,
    clientQueueWait,
  };
}

describe('mergeLoadResults', () => {
  test('counts add up, the window spans both, histograms merge exactly', () => {
    const a = result({
      sent: 10,
      dropped: 1,
      lateSends: 2,
      lags: [0.1, 0.2, 5],
      waits: [1],
      measuredStartMs: 9,
    });
    const b = result({ sent: 7, warmupSent: 0, lags: [0.3, 40], waits: [2, 3], measuredEndMs: 150 });
    const m = mergeLoadResults([portableLoadResult(a), portableLoadResult(b)]);
    expect(m.sent).toBe(17);
    expect(m.warmupSent).toBe(1);
    expect(m.dropped).toBe(1);
    expect(m.lateSends).toBe(2);
    expect(m.peakInFlight).toBe(4);
    expect(m.measuredStartMs).toBe(9);
    expect(m.measuredEndMs).toBe(150);
    const all = new LatencyHistogram();
    for (const v of [0.1, 0.2, 5, 0.3, 40]) all.record(v);
    expect(m.dispatchLag.stats()).toEqual(all.stats());
    expect(m.clientQueueWait.count).toBe(3);
    expect(m.clientBound).toBe(false);
    expect(m.clientBoundReason).toBeUndefined();
  });

  test.each([
    [['requests', 'requests'], 'requests'],
    [['requests', 'duration'], 'duration'],
    [['duration', 'signal'], 'signal'],
  ] as const)('stop reasons %j → %s', (reasons, want) => {
    const m = mergeLoadResults(reasons.map((stopReason) => portableLoadResult(result({ stopReason }))));
    expect(m.stopReason).toBe(want);
  });

  test('one interrupted worker interrupts the run; the worst event-loop delay is the run’s', () => {
    const m = mergeLoadResults([
      portableLoadResult(result({ interrupted: true, eventLoopDelay: { p50: 1, p99: 9, max: 12 } })),
      portableLoadResult(result({ eventLoopDelay: { p50: 3, p99: 4, max: 50 } })),
    ]);
    expect(m.interrupted).toBe(true);
    expect(m.eventLoopDelay).toEqual({ p50: 3, p99: 9, max: 50 });
  });

  test('a lagging worker makes the run client-bound, named in the reason', () => {
    const m = mergeLoadResults([
      portableLoadResult(result({})),
      portableLoadResult(
        result({ clientBound: true, clientBoundReason: 'event-loop delay p99 80.0 ms > 50 ms' }),
      ),
      portableLoadResult(result({})),
    ]);
    expect(m.clientBound).toBe(true);
    expect(m.clientBoundReason).toBe('worker 2 of 3: event-loop delay p99 80.0 ms > 50 ms');
  });
});

describe('mergeConnectionWarmups', () => {
  test.each([
    [
      [
        { requested: 2, ok: 2, ms: 5 },
        { requested: 2, ok: 2, ms: 9 },
      ],
      { requested: 4, ok: 4, ms: 9 },
    ],
    [
      [
        { requested: 2, ok: 2, ms: 5 },
        { requested: 2, ok: 0, ms: 2000, reason: 'budget' as const },
      ],
      { requested: 4, ok: 2, ms: 2000, reason: 'budget' },
    ],
  ])('%j → %j', (parts, want) => {
    expect(mergeConnectionWarmups(parts)).toEqual(want);
  });
});
