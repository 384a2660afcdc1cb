import { describe, expect, it } from 'vitest';
import { failed, streamed } from '../../test/fixtures/records.js';
import type { RequestRecord } from '../types.js';
import { ObservationColumns, observe } from './observations.js';

const records: Array<[string, RequestRecord]> = [
  ['a streamed success', streamed({ index: 1, sentMs: 1000, ttft: 120, gap: 15, tokens: 9 })],
  ['one token (no TPOT)', streamed({ index: 2, sentMs: 1500, ttft: 80, tokens: 1 })],
  ['a failure (no TTFT, an error code)', failed('HTTP_SERVER_ERROR', { index: 3, sentMs: 2000 })],
  [
    'a cancel after tokens',
    streamed({ index: 4, outcome: 'cancelled', error: { code: 'ABORTED', message: 'gave up' }, tokens: 3 }),
  ],
  ['the server counted the prompt', streamed({ index: 5, promptTokens: 100, serverPromptTokens: 117 })],
  ['sent late (queue wait)', streamed({ index: 6, scheduledMs: 900, sentMs: 1000, firstSentMs: 960 })],
];

describe('ObservationColumns', () => {
  it.each(records)('gives back what observe makes of %s', (_name, record) => {
    const columns = new ObservationColumns(4);
    columns.write(2, record);
    expect(columns.read(3)[2]).toEqual(observe(record));
  });

  it('a slot written again holds only the latest record: no optional figure or error code is left over', () => {
    const columns = new ObservationColumns(1);
    columns.write(0, failed('TIMEOUT', { index: 7 }));
    const success = streamed({ index: 8, tokens: 1 });
    columns.write(0, success);
    expect(columns.read(1)).toEqual([observe(success)]);
    const withTpot = streamed({ index: 9, tokens: 5 });
    columns.write(0, withTpot);
    columns.write(0, failed('TIMEOUT', { index: 10 }));
    expect(columns.read(1)[0]).not.toHaveProperty('tpotMs');
    expect(columns.read(1)[0]).not.toHaveProperty('ttftMs');
  });

  it('reads no more than it holds', () => {
    const columns = new ObservationColumns(2);
    columns.write(0, streamed());
    expect(columns.read(1)).toHaveLength(1);
    expect(columns.read(10)).toHaveLength(2);
  });
});

describe('observe', () => {
  it('takes the figures diagnosis needs from the record and its metrics', () => {
    const r = streamed({
      index: 1,
      scheduledMs: 900,
      sentMs: 1000,
      firstSentMs: 960,
      ttft: 120,
      gap: 15,
      tokens: 9,
    });
    r.serverPromptTokens = 140;
    expect(observe(r)).toEqual({
      scheduledMs: 900,
      sentMs: 1000,
      endMs: r.endMs,
      outcome: 'success',
      promptTokens: 140,
      outputTokens: 9,
      e2elMs: r.endMs - 1000,
      dispatchLagMs: 60,
      ttftMs: 120,
      tpotMs: (r.endMs - 1000 - 120) / 8,
    });
  });

  it('a failure has its error code and neither TTFT nor TPOT', () => {
    const o = observe(failed('TIMEOUT', { index: 2, sentMs: 500 }));
    expect(o).toMatchObject({ outcome: 'error', errorCode: 'TIMEOUT', outputTokens: 0, promptTokens: 128 });
    expect(o).not.toHaveProperty('ttftMs');
    expect(o).not.toHaveProperty('tpotMs');
  });

  it('each call gives an observation of its own', () => {
    const a = observe(streamed({ index: 3, sentMs: 100 }));
    const b = observe(streamed({ index: 4, sentMs: 200 }));
    expect(a.sentMs).toBe(100);
    expect(b.sentMs).toBe(200);
  });
});
