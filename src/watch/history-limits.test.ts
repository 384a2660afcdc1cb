import { describe, expect, it } from 'vitest';
import { gateSpecThresholds } from '../gate/index.js';
import { trendLimits } from './history.js';

describe('trendLimits: the limit lines of a trend chart', () => {
  const gate = {
    adr: 'ADR-20261202-001',
    thresholds: gateSpecThresholds({
      ttft_p99_ms: 480,
      tpot_p50_ms: 30,
      attainment_min: 0.95,
      thresholds: ['p90(ttft)<400'],
    }),
  };
  it.each([
    { name: 'nothing given: no line', chart: 'ttft' as const, limits: {}, out: [] },
    {
      name: 'TTFT: the SLO, then every ADR threshold on TTFT',
      chart: 'ttft' as const,
      limits: { slo: { ttftMs: 500, tpotMs: 50 }, gate },
      out: [
        { y: 500, label: 'SLO: TTFT ≤ 500 ms' },
        { y: 480, label: 'ADR-20261202-001: p99(ttft) <= 480 ms' },
        { y: 400, label: 'ADR-20261202-001: p90(ttft) < 400 ms' },
      ],
    },
    {
      name: 'TPOT: its SLO and its own threshold only',
      chart: 'tpot' as const,
      limits: { slo: { ttftMs: 500, tpotMs: 50 }, gate },
      out: [
        { y: 50, label: 'SLO: TPOT ≤ 50 ms' },
        { y: 30, label: 'ADR-20261202-001: p50(tpot) <= 30 ms' },
      ],
    },
    {
      name: 'attainment: the least attainment, in %',
      chart: 'attainment' as const,
      limits: { slo: { ttftMs: 500 }, gate },
      out: [{ y: 95, label: 'ADR-20261202-001: attainment >= 0.95' }],
    },
  ])('$name', ({ chart, limits, out }) => {
    expect(trendLimits(chart, limits).map(({ y, label }) => ({ y, label }))).toEqual(out);
  });
});
