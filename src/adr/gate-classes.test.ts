import { describe, expect, it } from 'vitest';
import { classesMeta, ofClass, streamed } from '../../test/fixtures/records.js';
import { evaluateThresholds, gateSpecThresholds } from '../gate/index.js';
import { summarizeRecords } from '../metrics/index.js';
import { deriveGate } from './build.js';

describe('an ADR gate of a run with traffic classes', () => {
  const meta = classesMeta([
    { name: 'chat', share: 0.5, slo: { ttftMs: 150 } },
    { name: 'batch', share: 0.5 },
  ]);
  const summary = summarizeRecords(
    [
      ofClass(streamed({ index: 0, sentMs: 0, ttft: 100, gap: 10, tokens: 5 }), 'chat'),
      ofClass(streamed({ index: 1, sentMs: 10, ttft: 120, gap: 10, tokens: 5 }), 'chat'),
      ofClass(streamed({ index: 2, sentMs: 20, ttft: 1500, gap: 10, tokens: 5 }), 'batch'),
    ],
    meta,
  );

  it("derives each class's limits as the run's are, and the run it came from passes them", () => {
    const gate = deriveGate(meta, summary, 0.2);
    expect(gate.thresholds).toEqual([
      `p99(ttft){class=chat}<=${Math.ceil(summary.classes![0]!.latency.ttft.p99 * 1.2)}`,
      'attainment{class=chat}>=0.95',
      `p99(ttft){class=batch}<=${Math.ceil(summary.classes![1]!.latency.ttft.p99 * 1.2)}`,
    ]);
    const result = evaluateThresholds(gateSpecThresholds(gate), summary);
    expect(result.passed).toBe(true);
    expect(result.outcomes.filter((o) => o.threshold.class !== undefined)).toHaveLength(3);
  });
});
