import { describe, expect, it } from 'vitest';
import { failed, ofClass, runMeta, streamed } from '../../test/fixtures/records.js';
import type { RequestRecord, RunMeta } from '../types.js';
import { summarizeRecords } from './accumulator.js';
import { METRICS } from './catalogue.js';
import { classView } from './classes.js';
import { mergeSummaries } from './merge.js';

function meta(): RunMeta {
  const m = runMeta();
  return {
    ...m,
    slo: { tpotMs: 50 },
    workload: {
      ...m.workload,
      classes: [
        { name: 'chat', share: 0.5, slo: { ttftMs: 150 }, priority: 0 },
        { name: 'batch', share: 0.5, slo: { ttftMs: 1000 }, model: 'lora-b' },
      ],
    },
  };
}

/** Chat: one good, one TTFT miss under its 150 ms, one failure. Batch: TTFT 400 and 900 (good under 1 s), one TPOT miss. */
function records(): RequestRecord[] {
  return [
    ofClass(streamed({ index: 0, sentMs: 0, ttft: 100, gap: 20, tokens: 11 }), 'chat'),
    ofClass(streamed({ index: 1, sentMs: 100, ttft: 400, gap: 20, tokens: 11 }), 'chat'),
    ofClass(failed('TIMEOUT', { index: 2, sentMs: 200 }), 'chat'),
    ofClass(streamed({ index: 3, sentMs: 300, ttft: 400, gap: 20, tokens: 11, promptTokens: 2000 }), 'batch'),
    ofClass(streamed({ index: 4, sentMs: 400, ttft: 900, gap: 30, tokens: 11, promptTokens: 2000 }), 'batch'),
    ofClass(streamed({ index: 5, sentMs: 500, ttft: 900, gap: 80, tokens: 11, promptTokens: 2000 }), 'batch'),
  ];
}

describe('per-class figures', () => {
  it("judges each class by its own SLO over the run's, and the run by each request's class", () => {
    const s = summarizeRecords(records(), meta());
    const [chat, batch] = s.classes!;
    expect(chat!.name).toBe('chat');
    expect(chat!.goodput.slo).toEqual({ tpotMs: 50, ttftMs: 150 });
    expect(batch!.goodput.slo).toEqual({ tpotMs: 50, ttftMs: 1000 });
    expect(chat!.counts).toMatchObject({ attempted: 3, completed: 2, failed: 1 });
    expect(chat!.goodput.goodRequests).toBe(1);
    expect(chat!.goodput.attainment).toBeCloseTo(1 / 3, 12);
    expect(batch!.goodput.goodRequests).toBe(2);
    expect(batch!.goodput.attainment).toBeCloseTo(2 / 3, 12);
    expect(chat!.priority).toBe(0);
    expect(batch!.model).toBe('lora-b');
    // The run: 3 good of 6, each judged by its class's SLO (the run's own SLO sets no TTFT bound).
    expect(s.goodput.goodRequests).toBe(3);
    expect(s.goodput.attainment).toBeCloseTo(0.5, 12);
    // Classes run side by side: rates per second of the whole run add up to the run's.
    expect(chat!.throughput.requestsPerS + batch!.throughput.requestsPerS).toBeCloseTo(
      s.throughput.requestsPerS,
      9,
    );
    expect(chat!.goodput.requestGoodput + batch!.goodput.requestGoodput).toBeCloseTo(
      s.goodput.requestGoodput,
      9,
    );
    expect(chat!.latency.ttft.max).toBe(400);
    expect(batch!.latency.ttft.min).toBe(400);
    expect(chat!.errors.map((e) => e.code)).toEqual(['TIMEOUT']);
    expect(batch!.tokens.input).toBe(6000);
  });

  it('reads every catalogue figure of a class through its view, and nothing of the server', () => {
    const s = summarizeRecords(records(), meta());
    const view = classView(s, 'batch')!;
    const read = (id: string) => METRICS.find((m) => m.id === id)!.read(view);
    expect(read('ttft_max')).toBe(900);
    expect(read('attainment')).toBeCloseTo(2 / 3, 12);
    expect(read('request_goodput')).toBe(s.classes![1]!.goodput.requestGoodput);
    expect(read('completed')).toBe(3);
    expect(view.p99_ttft_ms).toBe(s.classes![1]!.latency.ttft.p99);
    expect(view.server).toBeUndefined();
    expect(classView(s, 'nope')).toBeUndefined();
  });

  it("gives each class its requests' per-user tokens/s, read through its view as the run's are", () => {
    const s = summarizeRecords(records(), meta());
    const [chat, batch] = s.classes!;
    // Per-user tokens/s = (tokens − 1) / (E2EL − TTFT): the fixture ends 1 ms after its last chunk.
    const tps = (gap: number) => (10 * 1000) / (10 * gap + 1);
    const chatTps = chat!.perUser!.outputTokensPerS;
    const batchTps = batch!.perUser!.outputTokensPerS;
    expect(chatTps.count).toBe(2); // the failure has none
    expect(chatTps.min).toBeCloseTo(tps(20), 6);
    expect(chatTps.max).toBeCloseTo(tps(20), 6);
    expect(batchTps.count).toBe(3);
    expect(batchTps.min).toBeCloseTo(tps(80), 6);
    expect(batchTps.max).toBeCloseTo(tps(20), 6);
    const read = (id: string, name: string) => METRICS.find((m) => m.id === id)!.read(classView(s, name)!);
    expect(read('user_tps_p50', 'chat')).toBe(chat!.perUser!.outputTokensPerS.p50);
    expect(read('user_tps_min', 'batch')).toBe(batchTps.min);
    // The run's figure is over both classes: not a class's.
    expect(s.perUser!.outputTokensPerS.count).toBe(5);
  });

  it('merges the classes of concurrent runs exactly, as if recorded in one place', () => {
    const all = records();
    const whole = summarizeRecords(all, meta());
    const halves = [all.filter((r) => r.index % 2 === 0), all.filter((r) => r.index % 2 === 1)];
    const merged = mergeSummaries(
      halves.map((h) => summarizeRecords(h, meta(), { durationS: whole.duration })),
    );
    for (const [i, c] of merged.classes!.entries()) {
      const w = whole.classes![i]!;
      expect(c.name).toBe(w.name);
      expect(c.counts).toEqual(w.counts);
      expect(c.goodput.goodRequests).toBe(w.goodput.goodRequests);
      expect(c.latency.ttft.max).toBe(w.latency.ttft.max);
      expect(c.latency.ttft.count).toBe(w.latency.ttft.count);
      expect(c.perUser?.outputTokensPerS.count).toBe(w.perUser?.outputTokensPerS.count);
      expect(c.perUser?.outputTokensPerS.min).toBe(w.perUser?.outputTokensPerS.min);
    }
    expect(merged.goodput.goodRequests).toBe(whole.goodput.goodRequests);
  });

  it('keeps summaries without classes as they were', () => {
    const s = summarizeRecords(
      records().map(({ class: _, ...r }) => r),
      { ...meta(), workload: runMeta().workload },
    );
    expect(s.classes).toBeUndefined();
  });
});
