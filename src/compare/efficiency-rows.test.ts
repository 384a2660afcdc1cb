/**
 * Compare's energy and cost rows: shown only when a run has the figures, with the catalogue's
 * direction (less energy and a lower price per token are better).
 */
import { describe, expect, it } from 'vitest';
import { makeRecord, makeSummary } from '../../test/helpers/rules-fixtures.js';
import { efficiencyOf } from '../metrics/index.js';
import type { EfficiencyInputs } from '../types.js';
import { compareRuns, type RunInput } from './compare.js';
import { samplesFromRecords } from './samples.js';

function run(name: string, inputs?: EfficiencyInputs): RunInput {
  const records = Array.from({ length: 20 }, (_, i) => makeRecord(i, 100 + i, 10));
  const samples = samplesFromRecords(records);
  const summary = makeSummary({ attempted: 20 });
  if (inputs) summary.efficiency = efficiencyOf(summary, inputs);
  return { name, summary, samples };
}

describe('compare: energy and cost rows', () => {
  it('absent when neither run has the figures; present, with their values, when one has', () => {
    const keys = (a: RunInput, b: RunInput) =>
      compareRuns([a, b], { resamples: 20 }).comparisons[0]!.deltas.map((d) => d.key);
    expect(keys(run('A'), run('B'))).not.toContain('joules_per_output_token');

    const base = run('A', { gpuPowerWatts: 700, costPerHour: 4 });
    const cand = run('B', { gpuPowerWatts: 350, costPerHour: 4 });
    const deltas = compareRuns([base, cand], { resamples: 20 }).comparisons[0]!.deltas;
    const jpt = deltas.find((d) => d.key === 'joules_per_output_token')!;
    expect(jpt.baseline).toBeCloseTo(base.summary.efficiency!.energy!.joulesPerOutputToken!, 12);
    // Half the power, the same tokens in the same time: half the energy per token.
    expect(jpt.candidate! / jpt.baseline!).toBeCloseTo(0.5, 12);
    expect(jpt.direction).toBe('lower');
    for (const key of ['output_tokens_per_joule', 'goodput_per_watt', 'cost_per_mtok', 'cost_per_mtok_good'])
      expect(deltas.map((d) => d.key)).toContain(key);
  });
});
