import { describe, expect, it } from 'vitest';
import type {
  ConfigurationAnalysis,
  ExperimentAnalysis,
  MatrixCell,
} from '../../experiment/analysis/index.js';
import { experimentBarCharts, experimentParetoChart } from './experiment.js';

const cell = (metric: string, values: number[], ci?: [number, number]): MatrixCell => ({
  metric,
  values,
  spread: {
    n: values.length,
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    std: 0,
    ...(ci ? { ci } : {}),
  } as MatrixCell['spread'],
});

function configuration(
  i: number,
  name: string,
  cells: MatrixCell[],
  status: 'ok' | 'failed' = 'ok',
): ConfigurationAnalysis {
  return {
    name,
    slug: name,
    label: i === 0 ? 'Baseline' : `Exp-${i}`,
    baseline: i === 0,
    params: {},
    status,
    runs: { ok: 3, failed: 0, total: 3, dirs: [] },
    cells: Object.fromEntries(cells.map((c) => [c.metric, c])),
    verdict: i === 0 ? 'baseline' : 'better',
    hypotheses: [],
    findings: [],
    conclusion: '',
  };
}

const analysis = {
  schemaVersion: 1,
  kind: 'goodput.experiment-analysis',
  name: 'x',
  virtual: true,
  runsPerConfiguration: 3,
  order: { mode: 'interleaved' },
  objective: { metrics: [], guarded: [], source: 'default' },
  withinRunResamples: 0,
  metrics: [
    { id: 'ttft_p99', label: 'TTFT p99', unit: 'ms', better: 'lower' },
    { id: 'attainment', label: 'SLO attainment', unit: 'ratio', better: 'higher' },
    { id: 'output_throughput', label: 'Output throughput', unit: 'tok/s', better: 'higher' },
    { id: 'user_tps_p50', label: 'Per-user', unit: 'tok/s', better: 'higher' },
  ],
  configurations: [
    configuration(0, 'a', [
      cell('ttft_p99', [100, 110, 120], [90, 130]),
      cell('attainment', [0.9, 0.9, 0.9]),
      cell('output_throughput', [500, 500, 500]),
      cell('user_tps_p50', [90, 90, 90], [85, 95]),
    ]),
    configuration(1, 'b', [
      cell('ttft_p99', [80, 80, 80], [80, 80]),
      cell('output_throughput', [700, 700, 700]),
      cell('user_tps_p50', [70, 70, 70]),
    ]),
    configuration(2, 'broken', [], 'failed'),
    configuration(3, 'c', [cell('output_throughput', [600, 600, 600]), cell('user_tps_p50', [60, 60, 60])]),
  ],
  winner: { reason: 'none' },
  notes: [],
} as unknown as ExperimentAnalysis;

describe('experiment charts', () => {
  const bars = experimentBarCharts(analysis);
  it('one chart per key metric measured, x = configuration index (failed ones left out), mean and interval', () => {
    expect(bars.map((c) => c.id)).toEqual([
      'chart-experiment-ttft_p99',
      'chart-experiment-attainment',
      'chart-experiment-output_throughput',
      'chart-experiment-user_tps_p50',
    ]);
    const ttft = bars[0]!;
    expect(ttft.xCategories).toEqual(['Baseline', 'Exp-1', 'Exp-3']);
    expect(ttft.series[0]!.data).toEqual({ x: [0, 1], y: [110, 80] });
    expect(ttft.series[0]!.whiskers).toEqual([
      [0, 90, 130],
      [1, 80, 80],
    ]);
  });
  it('a ratio in %, without whiskers when there is no interval', () => {
    const attain = bars[1]!;
    expect(attain.series[0]!.data).toEqual({ x: [0], y: [90] });
    expect(attain.series[0]!.whiskers).toEqual([]);
    expect(attain.yLabel).toBe('SLO attainment (%)');
  });
  it('Pareto: one point per configuration, the dominated one off the frontier', () => {
    const [spec] = experimentParetoChart(analysis);
    expect(spec!.series.map((s) => s.label)).toEqual([
      'Baseline (a)',
      'Exp-1 (b)',
      'Exp-3 (c)',
      'Pareto frontier (no configuration beats it on both)',
    ]);
    expect(spec!.series[0]!.whiskers).toEqual([[500, 85, 95]]);
    expect(spec!.series.at(-1)!.data).toEqual({ x: [500, 700], y: [90, 70] });
  });
});
