/**
 * watch with `--metrics-url` once per replica: each round's server figures are the replicas'
 * totals, as a run's are (queue depths summed, KV usage averaged, preemptions the sum of each
 * replica's own increase).
 */
import { describe, expect, it } from 'vitest';
import { replicaFigures } from './round.js';

const at = (values: Record<string, number>) => ({ values });

describe('replicaFigures', () => {
  it('sums queue depths and per-replica preemption increases, averages KV usage', () => {
    const before = [at({ preemptionsTotal: 100 }), at({ preemptionsTotal: 7 })];
    const after = [
      at({ running: 3, waiting: 2, kvUsage: 0.8, preemptionsTotal: 104 }),
      at({ running: 1, waiting: 0, kvUsage: 0.2, preemptionsTotal: 8 }),
    ];
    expect(replicaFigures(before, after)).toEqual({ running: 4, waiting: 2, kvUsage: 0.5, preemptions: 5 });
  });

  it('a replica that did not answer before the round adds no preemptions (its lifetime total is no increase)', () => {
    const figures = replicaFigures(
      [at({ preemptionsTotal: 10 }), undefined],
      [at({ running: 1, preemptionsTotal: 12 }), at({ running: 2, preemptionsTotal: 500 })],
    );
    expect(figures).toEqual({ running: 3, preemptions: 2 });
  });

  it('no replica answered after the round: no figures', () => {
    expect(replicaFigures([at({ running: 1 })], [undefined, undefined])).toBeUndefined();
  });
});
