import { describe, expect, it } from 'vitest';
import type { ServerSample } from '../types.js';
import { combineRounds, nameReplicas, summarizeSamples } from './replicas.js';
import { summarizeServer } from './summarize.js';

const s = (replica: string, tMs: number, values: ServerSample['values']): ServerSample => ({
  tMs,
  engine: 'vllm',
  values,
  replica,
});

describe('nameReplicas', () => {
  it.each([
    [
      ['http://10.0.0.1:8000/metrics', 'http://10.0.0.2:8000/metrics'],
      ['10.0.0.1:8000', '10.0.0.2:8000'],
    ],
    [
      ['a=http://h:1/metrics', 'http://h:2/metrics'],
      ['a', 'h:2'],
    ],
    // Two ranks behind one host:port, told apart by their paths.
    [
      ['http://h:1/rank0/metrics', 'http://h:1/rank1/metrics'],
      ['h:1/rank0/metrics', 'h:1/rank1/metrics'],
    ],
    [
      ['http://h:1/metrics', 'http://h:1/metrics'],
      ['replica 1', 'replica 2'],
    ],
    [
      ['x=http://h:1/metrics', 'x=http://h:2/metrics'],
      ['x #1', 'x #2'],
    ],
  ])('%j → %j', (given, names) => {
    expect(nameReplicas(given).map((r) => r.name)).toEqual(names);
  });

  it('keeps the URL of a named replica whole (query included)', () => {
    expect(nameReplicas(['a=http://h:1/metrics?x=1'])[0]).toEqual({
      name: 'a',
      url: 'http://h:1/metrics?x=1',
    });
  });
});

describe('combineRounds', () => {
  it('sums queue depths, averages KV usage, keeps the largest block size, per round', () => {
    const rounds = combineRounds([
      s('a', 0, { running: 3, waiting: 1, kvUsage: 0.6, blockSize: 16 }),
      s('b', 0, { running: 1, waiting: 0, kvUsage: 0.2, blockSize: 32 }),
      s('a', 100, { running: 2, kvUsage: 0.4 }),
      s('b', 100, { running: 0, kvUsage: 0 }),
    ]);
    expect(rounds).toEqual([
      { tMs: 0, engine: 'vllm', values: { running: 4, waiting: 1, kvUsage: 0.4, blockSize: 32 } },
      { tMs: 100, engine: 'vllm', values: { running: 2, kvUsage: 0.2 } },
    ]);
  });

  it('a replica missing from a round counts with its last values (no dip to zero)', () => {
    const rounds = combineRounds([
      s('a', 0, { running: 3 }),
      s('b', 0, { running: 1 }),
      s('a', 100, { running: 5 }),
      s('a', 200, { running: 6 }),
      s('b', 200, { running: 2 }),
    ]);
    expect(rounds.map((r) => r.values.running)).toEqual([4, 6, 8]);
  });
});

describe('summarizeSamples with several replicas', () => {
  const samples = [
    s('a', 0, { generationTokensTotal: 1000, preemptionsTotal: 5, running: 0, kvUsage: 0.1 }),
    s('b', 0, { generationTokensTotal: 50, running: 0, kvUsage: 0 }),
    s('a', 1000, {
      generationTokensTotal: 1300,
      preemptionsTotal: 7,
      serverTtftCount: 30,
      running: 3,
      kvUsage: 0.9,
    }),
    s('b', 1000, { generationTokensTotal: 150, serverTtftCount: 10, running: 1, kvUsage: 0.3 }),
  ];
  const summary = summarizeSamples(samples, {
    metricsUrl: 'two',
    urls: new Map([
      ['a', 'http://a/metrics'],
      ['b', 'http://b/metrics'],
    ]),
    failures: new Map([['b', 2]]),
    scrapeFailures: 2,
  });

  it("the totals are the sums of each replica's counter deltas", () => {
    expect(summary.generatedTokens).toBe(300 + 100);
    // b has no preemption counter: the total is a's alone.
    expect(summary.preemptions).toBe(2);
    expect(summary.replicas!.map((r) => [r.replica, r.generatedTokens, r.requests])).toEqual([
      ['a', 300, 30],
      ['b', 100, 10],
    ]);
  });

  it('gauges: running summed, KV usage averaged; the highest KV usage and its replica', () => {
    expect(summary.series.running).toEqual({ min: 0, mean: 2, max: 4, last: 4 });
    expect(summary.series.kvUsage?.max).toBeCloseTo(0.6, 12);
    expect(summary.replicaMax).toEqual({ kvUsage: { value: 0.9, replica: 'a' } });
  });

  it('each replica keeps its own URL and failed scrapes; the block lists the URLs', () => {
    expect(summary.metricsUrl).toBe('http://a/metrics, http://b/metrics');
    expect(summary.replicas!.map((r) => [r.metricsUrl, r.scrapeFailures])).toEqual([
      ['http://a/metrics', undefined],
      ['http://b/metrics', 2],
    ]);
    expect(summary.scrapeFailures).toBe(2);
  });

  it('samples naming no replica are summarised as one endpoint, as before', () => {
    const one = samples.filter((x) => x.replica === 'a').map(({ replica: _r, ...rest }) => rest);
    expect(summarizeSamples(one, { metricsUrl: 'u' })).toEqual(summarizeServer(one, { metricsUrl: 'u' }));
  });
});
