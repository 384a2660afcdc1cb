import { describe, expect, it } from 'vitest';
import type { RunSummary, SweepPointSummary, SweepResult } from '../../types.js';
import { sweepView } from './sweep.js';

function point(
  phase: SweepPointSummary['phase'],
  mode: SweepPointSummary['mode'],
  load: number,
  tput: number,
) {
  return {
    phase,
    mode,
    load,
    dir: `/x/${mode}-${load}`,
    runId: `r-${load}`,
    completed: 10,
    failed: 0,
    errorRate: 0,
    requestThroughput: tput,
    outputThroughput: tput * 100,
    meanTtftMs: 50,
    p99TtftMs: 80 * load,
    meanTpotMs: 10,
    meanE2elMs: 500,
    p99E2elMs: 900,
    attainment: 1,
    requestGoodput: tput,
    passes: true,
  } satisfies SweepPointSummary;
}

const sweep: SweepResult = {
  schemaVersion: 1,
  kind: 'goodput.sweep',
  mode: 'rate',
  startedAt: '2026-12-02T00:00:00.000Z',
  slo: { ttftMs: 500 },
  minAttainment: 0.95,
  points: [
    point('synchronous', 'concurrency', 1, 2),
    point('step', 'rate', 4, 3.9),
    point('step', 'rate', 2, 2),
  ],
  knee: {
    load: 4,
    mode: 'rate',
    requestThroughput: 3.9,
    meanE2elMs: 500,
    method: 'kneedle: max of normalised throughput minus normalised mean E2EL',
  },
  capacity: { mode: 'rate', load: 2, attainment: 0.99, firstFailingLoad: 4, resolved: false },
  stoppedEarly: 'errors above 20%',
  interrupted: false,
};

describe('sweepView', () => {
  it('keeps the points on the sweep axis, in load order, with the figures sweep.json kept by catalogue id', () => {
    const view = sweepView(sweep);
    expect(view.loadLabel).toBe('rate (req/s)');
    expect(
      view.points.map((p) => [
        p.load,
        p.values.request_throughput,
        p.values.output_throughput,
        p.values.ttft_p99,
      ]),
    ).toEqual([
      [2, 2, 200, 160],
      [4, 3.9, 390, 320],
    ]);
    // tpot_p99 was not kept by this (older) file: absent, not 0.
    expect(view.points[0]!.values.tpot_p99).toBeUndefined();
    expect(view.saturationLoad).toBe(4);
    expect(view.capacityAtSloLoad).toBe(2);
    expect(view.notes).toEqual(['stopped early: errors above 20%', 'first load missing the SLO: 4']);
  });

  it('reads a point from its run summary through the catalogue when the report has it', () => {
    const summary = {
      latency: { ttft: { count: 5, p99: 123 }, tpot: { count: 5, p99: 7 } },
      output_throughput: 555,
    } as unknown as RunSummary;
    const view = sweepView(sweep, (p) => (p.load === 4 ? summary : undefined), [
      'ttft_p99',
      'tpot_p99',
      'output_throughput',
    ]);
    expect(view.points[1]!.values).toEqual({ ttft_p99: 123, tpot_p99: 7, output_throughput: 555 });
    // the other point still has the file's figures
    expect(view.points[0]!.values).toEqual({ ttft_p99: 160, output_throughput: 200 });
  });

  it('labels a concurrency sweep and notes an interrupted one', () => {
    const view = sweepView({
      ...sweep,
      mode: 'concurrency',
      interrupted: true,
      stoppedEarly: undefined,
      capacity: undefined,
      knee: undefined,
    });
    expect(view.loadLabel).toBe('concurrency');
    expect(view.points.map((p) => p.load)).toEqual([1]);
    expect(view.notes).toEqual(['the sweep was interrupted']);
    expect(view.saturationLoad).toBeUndefined();
  });
});
