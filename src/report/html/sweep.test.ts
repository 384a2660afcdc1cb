import { describe, expect, it } from 'vitest';
import { numAt, sweepSteps, sweepView } from './sweep.js';

describe('numAt', () => {
  it.each([
    { obj: { a: 1 }, paths: ['a'], expected: 1 },
    { obj: { a: { b: 2 } }, paths: ['x', 'a.b'], expected: 2 },
    { obj: { a: 'nope' }, paths: ['a'], expected: undefined },
    { obj: { a: Number.NaN, b: 3 }, paths: ['a', 'b'], expected: 3 },
    { obj: null, paths: ['a'], expected: undefined },
  ])('$paths of $obj is $expected', ({ obj, paths, expected }) => {
    expect(numAt(obj, ...paths)).toBe(expected);
  });
});

describe('sweepView', () => {
  it('reads steps under any of the usual names, sorted by load', () => {
    for (const key of ['points', 'steps', 'runs']) {
      const steps = sweepSteps({ [key]: [{ concurrency: 4 }, { concurrency: 1 }, 'junk'] });
      expect(steps).toHaveLength(2);
    }
    const view = sweepView({
      mode: 'concurrency',
      steps: [
        { concurrency: 8, output_throughput: 900, request_throughput: 7, p99_ttft_ms: 400 },
        { concurrency: 2, outputTokensPerS: 300, requestsPerS: 2.5, p99TtftMs: 90 },
      ],
      saturation: { concurrency: 8 },
      capacityAtSlo: 4,
    });
    expect(view.loadLabel).toBe('concurrency');
    expect(view.points.map((p) => p.load)).toEqual([2, 8]);
    expect(view.points[1]).toMatchObject({ outputTokensPerS: 900, requestsPerS: 7, p99TtftMs: 400 });
    expect(view.saturationLoad).toBe(8);
    expect(view.capacityAtSloLoad).toBe(4);
  });

  it('takes missing figures from the step summaries and survives junk', () => {
    const summary = {
      meta: { load: { mode: 'open', rate: 5 } },
      request_throughput: 4.9,
      output_throughput: 600,
      latency: { ttft: { p99: 120 }, e2el: { p99: 3000 } },
    };
    // biome-ignore lint/suspicious/noExplicitAny: a partial summary is the point of this test
    const view = sweepView({ steps: [{ dir: 'rate-5' }] }, [summary as any]);
    expect(view.loadLabel).toBe('rate (req/s)');
    expect(view.points).toEqual([
      { load: 5, requestsPerS: 4.9, outputTokensPerS: 600, p99TtftMs: 120, p99E2elMs: 3000 },
    ]);
    expect(sweepView('garbage').points).toEqual([]);
    expect(sweepView({ steps: [{ nothing: true }] }).points).toEqual([]);
  });
});

describe('sweepView on the shape goodput sweep writes', () => {
  it('keeps only points on the sweep axis and reads knee and capacity', () => {
    const point = (phase: string, mode: string, load: number, tput: number) => ({
      phase,
      mode,
      load,
      dir: `/x/${mode}-${load}`,
      runId: 'r',
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
    });
    const view = sweepView({
      schemaVersion: 1,
      kind: 'goodput.sweep',
      mode: 'rate',
      points: [
        point('synchronous', 'concurrency', 1, 2),
        point('step', 'rate', 4, 3.9),
        point('step', 'rate', 2, 2),
      ],
      knee: { load: 4, mode: 'rate', requestThroughput: 3.9, meanE2elMs: 500, method: 'kneedle' },
      capacity: { mode: 'rate', load: 2, attainment: 0.99, firstFailingLoad: 4, resolved: false },
      stoppedEarly: 'errors above 20%',
      interrupted: false,
    });
    expect(view.loadLabel).toBe('rate (req/s)');
    expect(view.points.map((p) => [p.load, p.requestsPerS, p.outputTokensPerS, p.p99TtftMs])).toEqual([
      [2, 2, 200, 160],
      [4, 3.9, 390, 320],
    ]);
    expect(view.saturationLoad).toBe(4);
    expect(view.capacityAtSloLoad).toBe(2);
    expect(view.notes).toEqual(['stopped early: errors above 20%', 'first load missing the SLO: 4']);
  });
});
