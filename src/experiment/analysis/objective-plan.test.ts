import { describe, expect, it } from 'vitest';
import { parsePlanText, planExperiment } from '../plan.js';
import { objectiveOf } from './winner.js';

const plan = (objective: string) =>
  ['configurations:', '  - name: A', '  - name: B', '    params: { max-num-seqs: 8 }', objective, ''].join(
    '\n',
  );

function planned(text: string) {
  return planExperiment(parsePlanText(text, 'p.yaml'), {
    text,
    file: 'p.yaml',
    baseDir: '/tmp',
    cwd: '/tmp',
  });
}

describe("the plan's objective:", () => {
  it('is kept in the plan for the analysis', () => {
    const { spec } = planned(plan('objective: { metric: ttft_p99, guard: [tpot_p99] }'));
    expect(objectiveOf(spec.plan)).toEqual({ metrics: ['ttft_p99'], guarded: ['tpot_p99'], source: 'plan' });
  });

  it('is refused when it names no catalogue metric, before any run', () => {
    expect(() => planned(plan('objective: ttft_p9'))).toThrow(/objective: unknown metric 'ttft_p9'/);
    expect(() => planned(plan('objective: { metric: goodput, guard: [tpot] }'))).toThrow(
      /objective\.guard\[0\]: unknown metric 'tpot'/,
    );
  });
});
