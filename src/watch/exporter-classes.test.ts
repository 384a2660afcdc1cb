import { afterEach, describe, expect, test } from 'vitest';
import { classesMeta, ofClass, streamed } from '../../test/fixtures/records.js';
import { summarizeRecords } from '../metrics/index.js';
import { WatchExporter } from './exporter.js';

let exporter: WatchExporter | undefined;
afterEach(async () => {
  await exporter?.close();
  exporter = undefined;
});

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("watch's exporter: traffic classes", () => {
  test("each class's catalogue figures of the last valid round, beside the run's", async () => {
    const meta = classesMeta([
      { name: 'chat', share: 0.5, slo: { ttftMs: 150 } },
      { name: 'batch', share: 0.5 },
    ]);
    const summary = summarizeRecords(
      [
        ofClass(streamed({ index: 0, sentMs: 0, ttft: 100, gap: 10, tokens: 5 }), 'chat'),
        ofClass(streamed({ index: 1, sentMs: 10, ttft: 300, gap: 10, tokens: 5 }), 'chat'),
        ofClass(streamed({ index: 2, sentMs: 20, ttft: 1500, gap: 10, tokens: 5 }), 'batch'),
      ],
      meta,
    );
    exporter = new WatchExporter();
    exporter.setRoundMetrics('a', 'm', summary, 1_000);
    const text = await exporter.metrics();
    const l = 'target="a",model="m"';
    expect(sample(text, `goodput_round_class_metric{${l},class="chat",metric="attainment"}`)).toBe(0.5);
    expect(sample(text, `goodput_round_class_metric{${l},class="batch",metric="attainment"}`)).toBe(1);
    expect(sample(text, `goodput_round_class_metric{${l},class="batch",metric="ttft_max"}`)).toBe(1500);
    expect(sample(text, `goodput_round_class_metric{${l},class="chat",metric="ttft_max"}`)).toBe(300);
    // The run's own series is the whole run's.
    expect(sample(text, `goodput_round_metric{${l},metric="ttft_max"}`)).toBe(1500);
    // What a class's view does not hold (the server's figures) is no class series.
    expect(text).not.toMatch(/goodput_round_class_metric\{[^}]*metric="preemptions"/);
  });
});
