import { describe, expect, test } from 'vitest';
import type { StageLoad } from '../types.js';
import { mergeStageLoads } from './stages.js';

const stage = (startMs: number, sent: number, meanInFlight: number, coveredMs = 1000): StageLoad => ({
  startMs,
  durationMs: 1000,
  of: 'rate',
  from: 0,
  to: 20,
  targetMean: 10,
  sent,
  achievedRate: sent,
  meanInFlight,
  coveredMs,
});

describe('mergeStageLoads', () => {
  test('sends, achieved rate and mean in flight add up; the targets are the run’s', () => {
    const merged = mergeStageLoads([
      [stage(0, 4, 1.5), stage(1000, 6, 2)],
      [stage(0, 5, 1, 1000), stage(1000, 7, 2.5, 800)],
    ]);
    expect(merged).toEqual([
      { ...stage(0, 9, 2.5), achievedRate: 9 },
      { ...stage(1000, 13, 4.5), achievedRate: 13, coveredMs: 1000 },
    ]);
  });

  test('parts without stages are left out; none at all gives none', () => {
    expect(mergeStageLoads([undefined, [stage(0, 3, 1)], []])).toEqual([stage(0, 3, 1)]);
    expect(mergeStageLoads([undefined, []])).toBeUndefined();
  });
});
