/**
 * The catalogue's own invariants (one name per use, no collisions, vLLM keys that exist and
 * agree) and the one definition of the request counts and rates.
 */
import { describe, expect, test } from 'vitest';
import { makeMeta, makeRecord } from '../../test/helpers/rules-fixtures.js';
import type { RequestRecord, RunSummary } from '../types.js';
import { summarizeRecords } from './accumulator.js';
import {
  ADR_GATE_KEYS,
  COMPARE_ROW_IDS,
  HEADLINE_IDS,
  METRICS,
  metricByAdrGateKey,
  metricByAdrName,
  metricById,
} from './catalogue.js';
import { errorRate, judgedRequests, wastedOutputTokens } from './definitions.js';

function failed(i: number): RequestRecord {
  return {
    ...makeRecord(i, 20, 5, 0),
    outcome: 'error',
    error: { code: 'HTTP_SERVER_ERROR', message: 'boom', httpStatus: 500 },
    chunkMs: [],
    chunkChars: [],
    firstTokenMs: undefined,
  };
}

function interrupted(i: number): RequestRecord {
  return {
    ...makeRecord(i, 20, 5, 4),
    outcome: 'cancelled',
    error: { code: 'INTERRUPTED', message: 'run stopped' },
  };
}

const records = [
  ...Array.from({ length: 40 }, (_, i) => makeRecord(i, 10 + (i % 7) * 3, 2 + (i % 5))),
  failed(40),
  failed(41),
  interrupted(42),
];
const summary = summarizeRecords(records, makeMeta({ slo: { ttftMs: 25 } }));

describe('metric catalogue', () => {
  test('ids, ADR names and ADR gate keys are each unique', () => {
    for (const key of ['id', 'adrMetric', 'adrGateKey', 'threshold'] as const) {
      const values = METRICS.map((m) => m[key]);
      expect(new Set(values).size, key).toBe(values.length);
    }
  });

  test('lookups by every name find the same definition', () => {
    for (const m of METRICS) {
      expect(metricById(m.id)).toBe(m);
      expect(metricByAdrName(m.adrMetric)).toBe(m);
      expect(metricByAdrGateKey(m.adrGateKey)).toBe(m);
    }
    expect(ADR_GATE_KEYS).toContain('ttft_p99_ms');
    expect(ADR_GATE_KEYS).toContain('goodput_min');
    expect(ADR_GATE_KEYS).toContain('error_rate_max');
    expect(ADR_GATE_KEYS).toContain('attainment_min');
  });

  test('every vLLM key names a summary field holding the same value', () => {
    const flat = summary as unknown as Record<string, number>;
    const withKey = METRICS.filter((m) => m.vllmKey !== undefined);
    expect(withKey.length).toBeGreaterThan(20);
    for (const m of withKey) {
      expect(flat[m.vllmKey!], m.id).toBeTypeOf('number');
      expect(m.read(summary), m.id).toBe(flat[m.vllmKey!]);
    }
  });

  test('compare rows and headlines are catalogue metrics', () => {
    for (const id of [...COMPARE_ROW_IDS, ...HEADLINE_IDS]) expect(metricById(id), id).toBeDefined();
  });

  test('a latency the run did not measure reads undefined, not 0', () => {
    const empty = summarizeRecords([failed(0)], makeMeta());
    expect(metricById('ttft_p99')!.read(empty)).toBeUndefined();
    expect(metricById('attainment')!.read(empty)).toBe(0);
    const none = summarizeRecords([], makeMeta());
    expect(metricById('attainment')!.read(none)).toBeUndefined();
    expect(metricById('error_rate')!.read(none)).toBeUndefined();
  });
});

describe('one definition of error rate', () => {
  test('failed / (attempted − interrupted): interruptions by the run are not judged', () => {
    expect(summary.counts.attempted).toBe(43);
    expect(summary.counts.interrupted).toBe(1);
    expect(judgedRequests(summary)).toBe(42);
    expect(errorRate(summary)).toBeCloseTo(2 / 42, 12);
    expect(metricById('error_rate')!.read(summary)).toBe(errorRate(summary));
  });

  test('work the run interrupted is neither useful nor wasted', () => {
    const useful = records.filter((r) => r.outcome === 'success').reduce((a, r) => a + r.outputTokens, 0);
    expect(summary.goodput.interruptedOutputTokens).toBe(4);
    expect(summary.goodput.usefulOutputTokens).toBe(useful);
    expect(summary.goodput.totalOutputTokens).toBe(useful); // the failed ones received 0 tokens
    expect(wastedOutputTokens(summary)).toBe(0);
    expect(summary.goodput.tokenGoodputRatio).toBe(1);
  });

  test.each([
    [{ attempted: 0, failed: 0, cancelled: 0, interrupted: 0 }, undefined],
    [{ attempted: 3, failed: 0, cancelled: 0, interrupted: 3 }, undefined],
    [{ attempted: 10, failed: 1, cancelled: 4, interrupted: 0 }, 0.1],
    [{ attempted: 10, failed: 5, cancelled: 0, interrupted: 5 }, 1],
    [{ attempted: 10, failed: 2, cancelled: 0 }, 0.2],
  ] as Array<[RunSummary['counts'], number | undefined]>)('%j → %s', (counts, expected) => {
    expect(errorRate({ counts })).toBe(expected);
  });
});
