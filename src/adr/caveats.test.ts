import { describe, expect, it } from 'vitest';
import { runMeta, streamed } from '../../test/fixtures/records.js';
import { compareRuns, type RunInput } from '../compare/index.js';
import { summarizeRecords } from '../metrics/index.js';
import { buildAdr } from './build.js';

function run(name: string, change?: (s: RunInput['summary']) => void): RunInput {
  const records = Array.from({ length: 4 }, (_, i) => streamed({ index: i, sentMs: 1000 + i * 10 }));
  const summary = summarizeRecords(records, runMeta({ runId: name }));
  change?.(summary);
  return { name, summary };
}

describe("a new ADR states its runs' caveats", () => {
  const adr = (candidate: RunInput) => {
    const baseline = run('base');
    return buildAdr({
      title: 'More sequences',
      date: new Date('2026-01-02T00:00:00Z'),
      existing: [],
      status: 'proposed',
      baseline,
      candidates: [candidate],
      report: compareRuns([baseline, candidate]),
      links: { baseline: 'base', candidates: ['cand'] },
    }).body;
  };

  it('under the metrics matrix, naming the run', () => {
    const body = adr(
      run('cand', (s) => {
        s.load.clientBound = true;
        s.load.clientBoundReason = 'event-loop delay p99 80 ms';
        s.load.dropped = 2;
      }),
    );
    const matrixAt = body.indexOf('## Metrics matrix');
    const caveatAt = body.indexOf('- Exp-1: the client was the bottleneck (event-loop delay p99 80 ms)');
    expect(caveatAt).toBeGreaterThan(matrixAt);
    expect(caveatAt).toBeLessThan(body.indexOf('## Decision'));
    expect(body).toContain('- Exp-1: 2 requests could not be sent at all');
    const block = body.slice(body.indexOf('Caveats ('), body.indexOf('## Decision'));
    expect(block).not.toContain('Baseline');
  });

  it('and says nothing of caveats when there are none', () => {
    expect(adr(run('cand'))).not.toMatch(/Caveats/);
  });
});
