import { describe, expect, it } from 'vitest';
import type { ReplicaServerSummary, ServerSummary } from '../types.js';
import { replicaImbalanceFinding } from './rules-replicas.js';

const replica = (
  name: string,
  figures: Partial<ReplicaServerSummary> & { running?: number },
): ReplicaServerSummary => {
  const { running, ...rest } = figures;
  return {
    replica: name,
    engine: 'vllm',
    metricsUrl: `http://${name}/metrics`,
    samples: 10,
    series: running === undefined ? {} : { running: { min: 0, mean: running, max: running, last: 0 } },
    ...rest,
  };
};
const server = (replicas: ReplicaServerSummary[]): { server: ServerSummary } => ({
  server: { engine: 'vllm', metricsUrl: '', samples: 10, series: {}, replicas },
});

describe('replicaImbalanceFinding', () => {
  it.each([
    [
      '3:1 by requests',
      [replica('a', { requests: 30 }), replica('b', { requests: 10 })],
      /a took 3\.0× the requests of b/,
    ],
    [
      'one replica idle',
      [replica('a', { requests: 12 }), replica('b', { requests: 0 })],
      /b took none of the requests/,
    ],
    [
      'no request counts: by generated tokens',
      [replica('a', { generatedTokens: 900 }), replica('b', { generatedTokens: 300 })],
      /a took 3\.0× the generated tokens of b/,
    ],
    [
      'only gauges: by running + waiting',
      [replica('a', { running: 4 }), replica('b', { running: 1 }), replica('c', { running: 2 })],
      /a took 4\.0× the mean running \+ waiting of b/,
    ],
  ])('%s', (_name, replicas, title) => {
    const f = replicaImbalanceFinding(server(replicas));
    expect(f?.kind).toBe('replica-imbalance');
    expect(f?.title).toMatch(title);
  });

  it.each([
    ['even enough (1.4×)', [replica('a', { requests: 14 }), replica('b', { requests: 10 })]],
    ['too little work to judge', [replica('a', { requests: 5 }), replica('b', { requests: 1 })]],
    ['one replica', [replica('a', { requests: 50 })]],
    ['a figure only some replicas have', [replica('a', { running: 4 }), replica('b', {})]],
  ])('no finding: %s', (_name, replicas) => {
    expect(replicaImbalanceFinding(server(replicas))).toBeUndefined();
  });

  it('the evidence gives every replica its share', () => {
    const f = replicaImbalanceFinding(
      server([replica('a', { requests: 30, running: 3 }), replica('b', { requests: 10, running: 1 })]),
    );
    expect(f?.evidence).toBe(
      'requests per replica: a 30 (75%), b 10 (25%); mean running + waiting: a 3.0, b 1.0 (uneven above 1.5×)',
    );
    expect(f?.score).toBeGreaterThan(0.5);
  });
});
