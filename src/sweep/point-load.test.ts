import { describe, expect, it } from 'vitest';
import { benchmarkConfig } from '../runner/index.js';
import type { LoadSpec } from '../types.js';
import { pointConfig, pointLoad, pointName, traceMeanRate } from './point-load.js';
import type { PointRequest } from './run.js';

const base: LoadSpec = {
  mode: 'closed',
  concurrency: 8,
  requests: 80,
  warmup: 0,
  timeoutMs: 1000,
  maxRetries: 0,
};
/** What `goodput run --sessions 4` resolves to. */
const sessionsBase: LoadSpec = { ...base, concurrency: 4, sessions: { concurrency: 4, userRate: 0.5 } };
/** What `goodput run --session-rate 2 --burstiness 0.5` resolves to. */
const sessionRateBase: LoadSpec = {
  mode: 'open',
  burstiness: 0.5,
  requests: 80,
  warmup: 0,
  timeoutMs: 1000,
  maxRetries: 0,
  sessions: { rate: 2 },
};
const c = (concurrency: number): PointRequest => ({ phase: 'step', concurrency, ordinal: 1 });
const r = (rate: number): PointRequest => ({ phase: 'step', rate, ordinal: 2 });
const strip = ({ warmup, timeoutMs, maxRetries, ...rest }: LoadSpec) => rest;

describe('pointLoad', () => {
  const cases: Array<[string, LoadSpec, PointRequest, Parameters<typeof pointLoad>[2], Partial<LoadSpec>]> = [
    [
      'requests, concurrency',
      base,
      c(2),
      { requestsGiven: false },
      { mode: 'closed', concurrency: 2, requests: 40 },
    ],
    [
      'requests, rate, the user cap kept',
      base,
      r(5),
      { requestsGiven: false, maxConcurrency: 3 },
      { mode: 'open', rate: 5, burstiness: 1, maxConcurrency: 3, requests: 50 },
    ],
    [
      'requests, concurrency ignores the open-loop cap',
      base,
      c(16),
      { requestsGiven: true, maxConcurrency: 3 },
      { mode: 'closed', concurrency: 16, requests: 80 },
    ],
    [
      'sessions, concurrency: the point is the sessions at once',
      sessionsBase,
      c(2),
      { requestsGiven: false, sessionTurns: 3 },
      { mode: 'closed', concurrency: 2, sessions: { concurrency: 2, userRate: 0.5 }, requests: 40 },
    ],
    [
      'sessions, concurrency from --session-rate, cap kept on requests in flight',
      sessionRateBase,
      c(16),
      { requestsGiven: false, sessionTurns: 4, maxConcurrency: 6 },
      { mode: 'closed', concurrency: 16, maxConcurrency: 6, sessions: { concurrency: 16 }, requests: 128 },
    ],
    [
      'sessions, rate: the point is new sessions per second, no request rate',
      sessionsBase,
      r(1.5),
      { requestsGiven: false, sessionTurns: 3 },
      { mode: 'open', burstiness: 1, sessions: { rate: 1.5, userRate: 0.5 }, requests: 45 },
    ],
    [
      "sessions, rate keeps the user's burstiness and --requests",
      sessionRateBase,
      r(0.5),
      { requestsGiven: true, sessionTurns: 3 },
      { mode: 'open', burstiness: 0.5, sessions: { rate: 0.5 }, requests: 80 },
    ],
    [
      "trace, rate: the trace's requests, no request rate",
      { ...base, mode: 'open', concurrency: undefined },
      r(5),
      { requestsGiven: false, trace: { meanRate: 20 } },
      { mode: 'open', burstiness: 1 },
    ],
    [
      "trace, a rate sweep's synchronous anchor: the trace's first 40 requests",
      base,
      { phase: 'synchronous', concurrency: 1, ordinal: 1 },
      { requestsGiven: false, trace: { meanRate: 20 } },
      { mode: 'closed', concurrency: 1, requests: 40 },
    ],
    [
      "trace, a rate sweep's throughput anchor: 8 requests a worker",
      base,
      { phase: 'throughput', concurrency: 64, ordinal: 2 },
      { requestsGiven: false, trace: { meanRate: 20 } },
      { mode: 'closed', concurrency: 64, requests: 512 },
    ],
    [
      'trace, concurrency step: every request of the trace',
      base,
      c(4),
      { requestsGiven: false, trace: {} },
      { mode: 'closed', concurrency: 4 },
    ],
    [
      'trace, concurrency, --requests kept',
      base,
      c(4),
      { requestsGiven: true, trace: {} },
      { mode: 'closed', concurrency: 4, requests: 80 },
    ],
  ];
  it.each(cases)('%s', (_, load, req, sweep, want) => {
    const got = JSON.parse(JSON.stringify(strip(pointLoad(load, req, sweep))));
    expect(got).toEqual(want);
  });
  it('never leaves a request concurrency beside a session rate, nor a session count beside a rate', () => {
    const open = pointLoad(sessionsBase, r(1), { requestsGiven: false, sessionTurns: 3 });
    expect(open.concurrency).toBeUndefined();
    expect(open.sessions?.concurrency).toBeUndefined();
    const closed = pointLoad(sessionRateBase, c(3), { requestsGiven: false, sessionTurns: 3 });
    expect(closed.sessions?.rate).toBeUndefined();
    expect(closed.concurrency).toBe(closed.sessions?.concurrency);
  });
});

describe('pointConfig (trace)', () => {
  const config = benchmarkConfig({
    workload: { promptTokens: 1, trace: { path: '/t.jsonl', blockSize: 512, timeScale: 1 } },
  });
  it('scales the trace times to the point rate: time scale = trace mean rate ÷ point rate', () => {
    for (const [rate, scale] of [
      [10, 2],
      [40, 0.5],
      [20, 1],
    ] as const) {
      const got = pointConfig(config, r(rate), { requestsGiven: false, trace: { meanRate: 20 } });
      expect(got.workload.trace).toMatchObject({ timeScale: scale, path: '/t.jsonl' });
      expect(got.workload.trace?.closedLoop).toBeUndefined();
    }
  });
  it('replays closed loop at a concurrency point (a rate sweep anchor or a concurrency sweep)', () => {
    const got = pointConfig(config, c(4), { requestsGiven: false, trace: { meanRate: 20 } });
    expect(got.workload.trace).toMatchObject({ timeScale: 1, closedLoop: true });
    expect(got.load).toMatchObject({ mode: 'closed', concurrency: 4 });
    expect(config.workload.trace?.closedLoop).toBeUndefined();
  });
});

describe('pointName and traceMeanRate', () => {
  it('names points by what they load', () => {
    expect(pointName({ phase: 'step', concurrency: 4, ordinal: 3 }, false)).toBe('03-c4');
    expect(pointName({ phase: 'step', concurrency: 4, ordinal: 3 }, true)).toBe('03-s4');
    expect(pointName({ phase: 'bisect', rate: 0.75, ordinal: 12 }, true)).toBe('12-sr0.75');
    expect(pointName({ phase: 'step', rate: 2.5, ordinal: 1 }, false)).toBe('01-r2.5');
  });
  it('is the mean gap of the first requests, undefined without a span', () => {
    expect(traceMeanRate([0, 100, 200, 300, 400], 5)).toBe(10);
    expect(traceMeanRate([0, 100, 200, 300, 400], 3)).toBe(10);
    expect(traceMeanRate([0, 500, 2000], 9)).toBe(1);
    expect(traceMeanRate([0, 0, 0], 3)).toBeUndefined();
    expect(traceMeanRate([0], 1)).toBeUndefined();
  });
});
