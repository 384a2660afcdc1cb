import { describe, expect, test } from 'vitest';
import { failed, runMeta, streamed } from '../../test/fixtures/records.js';
import type { RequestRecord, Slo } from '../types.js';
import { summarizeRecords } from './accumulator.js';
import { metric } from './catalogue.js';
import { mergeSummaries } from './merge.js';

const SLO: Slo = { ttftMs: 150, tpotMs: 25, userTps: 40 };

/**
 * `streamed` puts chunk i at sent + ttft + i·gap and ends 1 ms after the last chunk, so
 * E2EL − TTFT = (n − 1)·gap + 1 and a user sees (n − 1) ÷ that many tokens per ms.
 */
const userTps = (gap: number, n: number) => (1000 * (n - 1)) / ((n - 1) * gap + 1);

const records: Array<{ r: RequestRecord; tps?: number; ttft: boolean; tpot: boolean; user: boolean }> = [
  {
    r: streamed({ index: 0, sentMs: 0, ttft: 100, gap: 20, tokens: 11 }),
    tps: userTps(20, 11),
    ttft: true,
    tpot: true,
    user: true,
  },
  {
    r: streamed({ index: 1, sentMs: 10, ttft: 200, gap: 20, tokens: 11 }),
    tps: userTps(20, 11),
    ttft: false,
    tpot: true,
    user: true,
  },
  {
    r: streamed({ index: 2, sentMs: 20, ttft: 100, gap: 30, tokens: 11 }),
    tps: userTps(30, 11),
    ttft: true,
    tpot: false,
    user: false,
  },
  {
    r: streamed({ index: 3, sentMs: 30, ttft: 100, gap: 24, tokens: 11 }),
    tps: userTps(24, 11),
    ttft: true,
    tpot: true,
    user: true,
  },
  {
    r: streamed({ index: 4, sentMs: 40, ttft: 100, gap: 24.5, tokens: 6 }),
    tps: userTps(24.5, 6),
    ttft: true,
    tpot: true,
    user: true,
  },
  // one token: no decode, so no TPOT and no per-user rate: it cannot miss either
  {
    r: streamed({ index: 5, sentMs: 50, ttft: 100, gap: 20, tokens: 1 }),
    ttft: true,
    tpot: true,
    user: true,
  },
  // a failure misses every objective
  { r: failed('TIMEOUT', { index: 6, sentMs: 60 }), ttft: false, tpot: false, user: false },
];

const summary = () =>
  summarizeRecords(
    records.map((x) => x.r),
    runMeta({ slo: SLO }),
    { durationS: 2 },
  );

describe('per-user tokens/s, per-SLO attainment and good-token throughput', () => {
  test('per-user rates are 1000 / TPOT of each request with a decode', () => {
    const s = summary();
    const rates = records.flatMap((x) => (x.tps !== undefined ? [x.tps] : [])).sort((a, b) => a - b);
    const r = s.perUser!.outputTokensPerS;
    expect(r.count).toBe(5);
    expect(r.min).toBeCloseTo(rates[0]!, 9);
    expect(r.max).toBeCloseTo(rates[4]!, 9);
    expect(r.mean).toBeCloseTo(rates.reduce((a, b) => a + b, 0) / 5, 9);
    // nearest rank: the 3rd of 5 is the median; 4 significant digits kept by the histogram
    expect(r.p50).toBeCloseTo(rates[2]!, 1);
    expect(r.p10).toBeCloseTo(rates[0]!, 1);
    expect(metric('user_tps_p50').read(s)).toBe(r.p50);
    expect(rates[2]).toBeCloseTo(1000 / s.latency.tpot.p50, 1);
  });

  test.each([
    ['ttft', 'attainment_ttft', (x: (typeof records)[number]) => x.ttft],
    ['tpot', 'attainment_tpot', (x: (typeof records)[number]) => x.tpot],
    ['userTps', 'attainment_user_tps', (x: (typeof records)[number]) => x.user],
  ] as const)('%s alone: good ones over all attempted', (name, id, met) => {
    const s = summary();
    const good = records.filter(met).length;
    expect(s.goodput.perSlo![name]).toEqual({ good, attainment: good / records.length });
    expect(metric(id).read(s)).toBe(good / records.length);
  });

  test('joint attainment needs every SLO; good-token throughput counts the good requests’ tokens', () => {
    const s = summary();
    const good = records.filter((x) => x.ttft && x.tpot && x.user);
    expect(s.goodput.goodRequests).toBe(good.length);
    expect(s.goodput.attainment).toBe(good.length / records.length);
    const tokens = good.reduce((a, x) => a + x.r.outputTokens, 0);
    expect(s.goodput.goodOutputTokens).toBe(tokens);
    expect(s.goodput.goodTokenThroughput).toBe(tokens / 2);
    expect(metric('good_token_throughput').read(s)).toBe(tokens / 2);
    // an SLO that is not set has no attainment of its own
    expect(s.goodput.perSlo!.e2el).toBeUndefined();
    expect(metric('attainment_e2el').read(s)).toBeUndefined();
  });

  test('a merge of two halves is the whole', () => {
    const meta = runMeta({ slo: SLO });
    const half = (rs: typeof records) =>
      summarizeRecords(
        rs.map((x) => x.r),
        meta,
        { durationS: 2 },
      );
    const merged = mergeSummaries([half(records.slice(0, 3)), half(records.slice(3))]);
    const whole = summary();
    expect(merged.goodput.perSlo).toEqual(whole.goodput.perSlo);
    expect(merged.goodput.goodOutputTokens).toBe(whole.goodput.goodOutputTokens);
    const m = merged.perUser!.outputTokensPerS;
    const w = whole.perUser!.outputTokensPerS;
    expect(m.count).toBe(w.count);
    expect(m.p50).toBe(w.p50);
    expect(m.p10).toBe(w.p10);
    expect(m.min).toBeCloseTo(w.min, 9);
  });
});
