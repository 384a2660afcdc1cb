import { describe, expect, it } from 'vitest';
import { capture } from '../../test/helpers/cli.js';
import type { RequestRecord } from '../types.js';
import { ProgressBar } from './progress.js';

function record(index: number, outcome: RequestRecord['outcome'], warmup = false): RequestRecord {
  return {
    id: `r-${index}`,
    index,
    warmup,
    outcome,
    attempts: 1,
    scheduledMs: 0,
    sentMs: 0,
    firstSentMs: 0,
    endMs: 1,
    chunkMs: [],
    chunkChars: [],
    promptTokens: 1,
    outputTokens: 0,
    outputTokensSource: 'counted',
    maxTokens: 1,
  };
}

describe('ProgressBar', () => {
  it('is wanted only on a terminal', () => {
    expect(ProgressBar.wanted(capture(true))).toBe(true);
    expect(ProgressBar.wanted(capture(false))).toBe(false);
    expect(ProgressBar.wanted(undefined)).toBe(false);
  });

  it('counts measured records only, splits ok from failed, fills by count', () => {
    const bar = new ProgressBar(capture(true), 8, undefined);
    bar.add(record(0, 'success', true));
    bar.add(record(1, 'success'));
    bar.add(record(2, 'error'));
    bar.add(record(3, 'cancelled'));
    bar.add(record(4, 'success'));
    const line = bar.line();
    expect(line).toContain('4/8 req');
    expect(line).toContain('ok 2');
    expect(line).toContain('failed 2');
    expect(line.slice(1, 25)).toBe(`${'#'.repeat(12)}${'-'.repeat(12)}`);
  });

  it('fills by time when the run is bounded by duration', () => {
    const bar = new ProgressBar(capture(true), undefined, 1_000);
    const line = bar.line(performance.now() + 500);
    const filled = line
      .slice(1, 25)
      .split('')
      .filter((c) => c === '#').length;
    expect(filled).toBeGreaterThanOrEqual(11);
    expect(filled).toBeLessThanOrEqual(13);
  });

  it('draws with a carriage return and clears the line when done', () => {
    const stream = capture(true);
    const bar = new ProgressBar(stream, 2, undefined);
    bar.add(record(0, 'success'));
    expect(stream.text.startsWith('\r[')).toBe(true);
    bar.finish();
    expect(stream.text.endsWith('\r\x1b[K')).toBe(true);
  });
});
