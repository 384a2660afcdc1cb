import { describe, expect, it } from 'vitest';
import { makeSummary } from '../../test/helpers/rules-fixtures.js';
import { GoodputError } from '../errors.js';
import type { RunInput } from './compare.js';
import { compareReplicates } from './replicates.js';

/** One run whose every TTFT is `ttft` and every TPOT `tpot` (so its percentiles are those values). */
function run(
  name: string,
  ttft: number,
  tpot: number,
  over: Parameters<typeof makeSummary>[0] = {},
): RunInput {
  const n = 100;
  return {
    name,
    summary: makeSummary({
      attempted: n,
      latency: {
        ttft: Array(n).fill(ttft),
        tpot: Array(n).fill(tpot),
        e2el: Array(n).fill(ttft + 15 * tpot),
      },
      ...over,
    }),
  };
}

const byKey = (deltas: ReturnType<typeof compareReplicates>['deltas']) =>
  new Map(deltas.map((d) => [d.key, d]));

describe('compareReplicates', () => {
  it.each([
    // [case, baseline TPOTs, candidate TPOTs, verdict, change]
    ['A/A: the same spread both sides', [10, 10.4, 9.8], [10.1, 9.9, 10.3], 'unchanged', 0.1 / 30.2],
    ['20 % slower decode', [10, 10.4, 9.8], [12, 12.3, 11.9], 'worse', 6 / 30.2],
    ['20 % faster decode', [10, 10.4, 9.8], [8, 8.3, 7.9], 'better', -6 / 30.2],
    ['a large change drowned in drift', [10, 14, 7], [12, 8, 15], 'unchanged', 4 / 31],
  ] as const)('%s', (_, base, cand, verdict, change) => {
    const a = base.map((t, i) => run(`a${i}`, 100, t));
    const b = cand.map((t, i) => run(`b${i}`, 100, t));
    const tpot = byKey(compareReplicates(a, b).deltas).get('tpot_p50');
    expect(tpot?.intervalKind).toBe('across-runs');
    expect(tpot?.verdict).toBe(verdict);
    expect(tpot?.change).toBeCloseTo(change, 10);
    expect(tpot?.spread?.baseline.n).toBe(3);
    expect(tpot?.spread?.baseline.mean).toBeCloseTo(base.reduce((s, v) => s + v, 0) / 3, 10);
    expect(tpot?.ci?.[0]).toBeLessThan(change);
    expect(tpot?.ci?.[1]).toBeGreaterThan(change);
    if (verdict === 'unchanged') expect(tpot?.runsNeeded).toBeGreaterThan(3);
    else expect(tpot?.runsNeeded).toBeUndefined();
  });

  it('tests proportions in points across runs and says decode suffers only when TPOT is significantly worse', () => {
    const a = [0, 1, 2].map((i) => run(`a${i}`, 100, 10 + i * 0.2, { attempted: 100, failed: i }));
    const b = [0, 1, 2].map((i) => run(`b${i}`, 100, 12 + i * 0.2, { attempted: 100, failed: 10 + i }));
    const cmp = compareReplicates(a, b);
    const err = byKey(cmp.deltas).get('error_rate');
    expect(err).toMatchObject({ changeKind: 'points', verdict: 'worse' });
    expect(err?.change).toBeCloseTo(0.1, 10);
    expect(cmp.hints.join(' ')).toContain('decode suffers');
    const same = compareReplicates(
      a,
      [2, 1, 0].map((i) => run(`c${i}`, 100, 10.1 + i * 0.2)),
    );
    expect(same.hints.join(' ')).not.toContain('decode');
  });

  it('gives no across-run verdict with one run a side, and says why', () => {
    const d = byKey(compareReplicates([run('a', 100, 10)], [run('b', 100, 20)]).deltas).get('tpot_p50');
    expect(d).toMatchObject({ verdict: 'untested', intervalKind: 'across-runs', change: 1 });
    expect(d?.ci).toBeUndefined();
    expect(d?.why).toBe('1 and 1 runs: an across-run interval needs at least 2 a side');
  });

  it('tests server figures across runs too (one observation per run)', () => {
    const server = (preemptions: number) => ({
      engine: 'goodput-sim' as const,
      metricsUrl: 'http://x/metrics',
      samples: 10,
      series: {},
      preemptions,
    });
    const a = [0, 1, 2].map((i) => run(`a${i}`, 100, 10, { server: server(i) }));
    const b = [0, 1, 2].map((i) => run(`b${i}`, 100, 10, { server: server(20 + i) }));
    const cmp = compareReplicates(a, b);
    expect(byKey(cmp.deltas).get('preemptions')).toMatchObject({
      baseline: 1,
      candidate: 21,
      verdict: 'worse',
    });
    expect(cmp.hints.join(' ')).toContain('preemptions rose from 1 to 21');
  });

  it('refuses runs of another load unless allowDifferent, naming the run and the field', () => {
    const a = [run('a0', 100, 10), run('a1', 100, 10)];
    const b = [
      run('b0', 100, 10),
      run('b1', 100, 10, { meta: { load: { ...a[0]!.summary.meta.load, concurrency: 9 } } }),
    ];
    const err = (() => {
      try {
        compareReplicates(a, b);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect((err as GoodputError).message).toContain('b1: load.concurrency: 4 → 9');
    expect(compareReplicates(a, b, { allowDifferent: true }).differences).toEqual([
      { path: 'load.concurrency', baseline: 4, candidate: 9, run: 'b1' },
    ]);
  });
});
