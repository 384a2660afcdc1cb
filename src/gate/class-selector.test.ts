import { describe, expect, it } from 'vitest';
import { classesMeta, failed, ofClass, streamed } from '../../test/fixtures/records.js';
import { summarizeRecords } from '../metrics/index.js';
import { evaluateThresholds, missingClasses, thresholdValue } from './evaluate.js';
import { formatThreshold, parseThreshold } from './grammar.js';

describe('threshold grammar: {class=NAME}', () => {
  it.each([
    ['p99(ttft){class=chat}<500', 'chat', 'p99(ttft){class=chat} < 500 ms'],
    ['p50(tpot) { class = batch-2 } <= 0.04s', 'batch-2', 'p50(tpot){class=batch-2} <= 40 ms'],
    ['attainment{class=a.b_c}>=0.95', 'a.b_c', 'attainment{class=a.b_c} >= 0.95'],
    ['p99(ttft)<500', undefined, 'p99(ttft) < 500 ms'],
  ])('%s', (text, cls, canonical) => {
    const t = parseThreshold(text);
    expect(t.class).toBe(cls);
    expect(formatThreshold(t)).toBe(canonical);
    // The canonical text parses back to the same threshold.
    expect(parseThreshold(formatThreshold(t)).class).toBe(cls);
  });

  it.each([
    ['p99(ttft){model=x}<500', /column 11: expected class=NAME in the selector, not 'model'/],
    ['p99(ttft){class}<500', /expected '=' after class/],
    ['p99(ttft){class=}<500', /expected a class name/],
    ['p99(ttft){class=chat<500', /expected '}'/],
    ['p99(ttft)<500{class=chat}', /unexpected/],
  ])('refuses %s, naming the column', (text, message) => {
    expect(() => parseThreshold(text)).toThrow(message);
  });
});

describe('evaluation of a class threshold', () => {
  const meta = classesMeta([
    { name: 'chat', share: 0.5, slo: { ttftMs: 150 } },
    { name: 'batch', share: 0.5, slo: { ttftMs: 2000 } },
  ]);
  const summary = summarizeRecords(
    [
      ofClass(streamed({ index: 0, sentMs: 0, ttft: 100, gap: 10, tokens: 5 }), 'chat'),
      ofClass(streamed({ index: 1, sentMs: 10, ttft: 120, gap: 10, tokens: 5 }), 'chat'),
      ofClass(streamed({ index: 2, sentMs: 20, ttft: 1500, gap: 10, tokens: 5 }), 'batch'),
      ofClass(failed('TIMEOUT', { index: 3, sentMs: 30 }), 'batch'),
    ],
    meta,
  );

  it("reads the class's figure, not the run's, against each class's own threshold", () => {
    const thresholds = [
      'max(ttft){class=chat}<200',
      'max(ttft){class=batch}<2000',
      'attainment{class=batch}>=0.9',
    ].map(parseThreshold);
    expect(thresholdValue(thresholds[0]!, summary)).toBe(120);
    expect(thresholdValue(parseThreshold('max(ttft)<1'), summary)).toBe(1500);
    const result = evaluateThresholds(thresholds, summary);
    expect(result.outcomes.map((o) => o.passed)).toEqual([true, true, false]);
    expect(result.outcomes[2]!.value).toBeCloseTo(0.5, 12);
    expect(result.passed).toBe(false);
  });

  it('fails a threshold of a class the run does not have, and names it', () => {
    const t = parseThreshold('p99(ttft){class=search}<100');
    const outcome = evaluateThresholds([t], summary).outcomes[0]!;
    expect(outcome.passed).toBe(false);
    expect(outcome.value).toBeUndefined();
    expect(missingClasses([t, parseThreshold('p99(ttft){class=chat}<1'), t], summary)).toEqual(['search']);
  });
});
