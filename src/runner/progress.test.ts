import { describe, expect, it } from 'vitest';
import { capture } from '../../test/helpers/cli.js';
import type { RequestRecord } from '../types.js';
import {
  barLine,
  etaSeconds,
  Progress,
  type ProgressState,
  plainLine,
  progressFraction,
  progressMode,
  progressText,
} from './progress.js';

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
    outputTokens: 10,
    outputTokensSource: 'counted',
    maxTokens: 1,
  };
}

const at = (over: Partial<ProgressState>): ProgressState => ({
  elapsedMs: 10_000,
  done: 100,
  failed: 2,
  outputTokens: 5_000,
  ...over,
});

describe('progress figures', () => {
  it.each([
    { name: 'by count', s: at({ total: 400 }), fraction: 0.25, eta: 30 },
    { name: 'by time', s: at({ durationMs: 40_000 }), fraction: 0.25, eta: 30 },
    { name: 'the further of both', s: at({ total: 200, durationMs: 40_000 }), fraction: 0.5, eta: 10 },
    { name: 'neither known', s: at({}), fraction: 0, eta: undefined },
    { name: 'nothing done yet', s: at({ done: 0, failed: 0, total: 50 }), fraction: 0, eta: undefined },
    { name: 'past the deadline', s: at({ durationMs: 5_000 }), fraction: 1, eta: 0 },
  ])('$name', ({ s, fraction, eta }) => {
    expect(progressFraction(s)).toBeCloseTo(fraction, 9);
    const e = etaSeconds(s);
    if (eta === undefined) expect(e).toBeUndefined();
    else expect(e).toBeCloseTo(eta, 9);
  });

  it('shows counts, rates and ETA', () => {
    expect(progressText(at({ total: 400 }))).toBe(
      '100/400 req  10.0s  ok 98  failed 2  10.0 req/s  500 tok/s  ETA 30s',
    );
    expect(progressText(at({ durationMs: 130_000 }))).toContain('ETA 2m00s');
    expect(barLine(at({ total: 400 }))).toMatch(/^\[#{6}-{18}\] 100\/400 req/);
    expect(plainLine(at({ total: 400 }))).toBe(
      'progress: 25% 100/400 req  10.0s  ok 98  failed 2  10.0 req/s  500 tok/s  ETA 30s\n',
    );
  });

  it('chooses a bar on a terminal and lines elsewhere, unless told', () => {
    expect(progressMode(undefined, capture(true))).toBe('bar');
    expect(progressMode(undefined, capture(false))).toBe('lines');
    expect(progressMode('none', capture(true))).toBe('none');
    expect(progressMode('bar', capture(false))).toBe('bar');
    expect(progressMode('bar', undefined)).toBe('none');
  });
});

describe('Progress', () => {
  it('counts measured records only and draws what it counted', () => {
    let t = 0;
    const out = capture(false);
    const p = new Progress(out, 'lines', 4, undefined, () => t);
    p.add(record(0, 'success', true));
    p.add(record(1, 'success'));
    p.add(record(2, 'error'));
    t = 2_000;
    p.draw();
    expect(out.text).toBe('progress: 50% 2/4 req  2.0s  ok 1  failed 1  1.0 req/s  10 tok/s  ETA 2s\n');
    p.stop();
  });

  it('redraws the bar on its timer although no record lands, and clears it at the end', async () => {
    const out = capture(true);
    const p = new Progress(out, 'bar', undefined, 60_000).start();
    await new Promise((r) => setTimeout(r, 700));
    const draws = out.text.split('\r[').length - 1;
    expect(draws).toBeGreaterThanOrEqual(2);
    p.stop();
    expect(out.text.endsWith('\r\x1b[K')).toBe(true);
    const after = out.text.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(out.text.length).toBe(after);
  });
});
