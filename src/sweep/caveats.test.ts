import { describe, expect, it } from 'vitest';
import { runMeta, streamed } from '../../test/fixtures/records.js';
import { summarizeRecords } from '../metrics/index.js';
import { SCHEMA_VERSION, type SweepPointSummary, type SweepResult } from '../types.js';
import { capacityAtSlo, explosion, findKnee, pointFromSummary } from './analysis.js';
import { renderSweep } from './render.js';

/** A point from a real summary, client-bound when asked. */
function pointAt(
  load: number,
  clientBound: boolean,
  over: Partial<SweepPointSummary> = {},
): SweepPointSummary {
  const s = summarizeRecords([streamed({ index: 1 }), streamed({ index: 2 })], runMeta());
  if (clientBound)
    Object.assign(s.load, { clientBound: true, clientBoundReason: 'event-loop delay p99 80 ms' });
  return { ...pointFromSummary(s, `d${load}`, 'step', 'concurrency', load, 0.9), ...over };
}

// Throughput saturates at 8 while latency climbs after it: the knee is c=8.
const hockey = (clientBoundAt: number) =>
  [1, 2, 4, 8, 16, 32].map((c) =>
    pointAt(c, c === clientBoundAt, {
      requestThroughput: Math.min(c, 8),
      meanE2elMs: c <= 8 ? 1000 + c * 10 : 1000 * (c / 8),
      passes: c <= 8,
    }),
  );

describe('caveats in a sweep', () => {
  it("a point keeps its run's caveats; a clean one has none", () => {
    expect(pointAt(1, false).caveats).toBeUndefined();
    expect(pointAt(16, true).caveats).toEqual([
      expect.objectContaining({ id: 'client-bound', severity: 'warn', text: expect.stringMatching(/80 ms/) }),
    ]);
  });

  it('the knee and the capacity carry the caveats of the points they come from, not of the others', () => {
    expect(findKnee(hockey(8))?.caveats).toEqual(['client-bound']);
    expect(findKnee(hockey(32))).not.toHaveProperty('caveats');
    // capacity: the last passing (8) and the first failing (16) point
    expect(capacityAtSlo(hockey(16), 'concurrency')?.caveats).toEqual(['client-bound']);
    expect(capacityAtSlo(hockey(8), 'concurrency')?.caveats).toEqual(['client-bound']);
    expect(capacityAtSlo(hockey(32), 'concurrency')).not.toHaveProperty('caveats');
  });

  it('an early stop at a caveated point says so', () => {
    const limits = { maxErrorRate: 0.2, latencyFactor: 10 };
    const first = pointAt(1, false);
    expect(explosion(pointAt(32, true, { errorRate: 0.5 }), first, limits)).toBe(
      'errors exploded: 50% failed at concurrency 32 (a point the client limited)',
    );
    expect(explosion(pointAt(32, false, { errorRate: 0.5 }), first, limits)).toBe(
      'errors exploded: 50% failed at concurrency 32',
    );
  });

  it('the table marks the point, lists its caveat, and the knee and capacity lines say where they come from', () => {
    const points = hockey(8);
    const result: SweepResult = {
      schemaVersion: SCHEMA_VERSION,
      kind: 'goodput.sweep',
      mode: 'concurrency',
      startedAt: '2026-01-01T00:00:00Z',
      slo: {},
      minAttainment: 0.9,
      points,
      knee: findKnee(points)!,
      capacity: capacityAtSlo(points, 'concurrency')!,
      interrupted: false,
    };
    const text = renderSweep(result);
    const row = (load: number) =>
      text.split('\n').find((l) => l.startsWith('step') && l.includes(`c=${load} `));
    expect(row(8)).toMatch(/ok client-bound$/);
    expect(row(4)).toMatch(/ ok$/);
    expect(text).toMatch(
      /^ {2}c=8 {2}client-bound: the client was the bottleneck \(event-loop delay p99 80 ms\)/m,
    );
    expect(text).toMatch(/^Saturation point \(knee\): concurrency 8 .*\(from a point the client limited\)$/m);
    expect(text).toMatch(/^Capacity at SLO: concurrency 8 .*\(from a point the client limited\)$/m);
    // A clean sweep has no caveat column and no caveat line.
    const cleanPoints = hockey(0);
    const clean = renderSweep({
      ...result,
      points: cleanPoints,
      knee: findKnee(cleanPoints)!,
      capacity: capacityAtSlo(cleanPoints, 'concurrency')!,
    });
    expect(clean).not.toMatch(/caveat|client limited/);
  });
});
