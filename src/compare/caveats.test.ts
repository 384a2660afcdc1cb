import { describe, expect, it } from 'vitest';
import { runMeta, streamed } from '../../test/fixtures/records.js';
import { summarizeRecords } from '../metrics/index.js';
import { compareRuns, type RunInput } from './compare.js';
import { renderCompareMarkdown, renderCompareTable } from './render.js';

function run(name: string, clientBound: boolean): RunInput {
  const records = Array.from({ length: 4 }, (_, i) => streamed({ index: i, sentMs: 1000 + i * 10 }));
  const summary = summarizeRecords(records, runMeta({ runId: name }));
  if (clientBound)
    Object.assign(summary.load, { clientBound: true, clientBoundReason: 'event-loop delay p99 80 ms' });
  return { name, summary };
}

describe("compare shows each run's caveats", () => {
  const report = compareRuns([run('A', false), run('B', true)]);

  it('in the JSON, on the run they belong to', () => {
    expect(report.baseline.caveats).toBeUndefined();
    expect(report.comparisons[0]!.candidate.caveats).toEqual([
      expect.objectContaining({ id: 'client-bound', severity: 'warn' }),
    ]);
  });

  it('in the terminal and Markdown output', () => {
    const line = /caveat, B: the client was the bottleneck \(event-loop delay p99 80 ms\)/;
    expect(renderCompareTable(report)).toMatch(line);
    expect(renderCompareMarkdown(report)).toMatch(line);
    expect(renderCompareTable(report)).not.toMatch(/caveat, A/);
  });
});
