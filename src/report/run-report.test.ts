import { describe, expect, test } from 'vitest';
import { failed, runMeta, streamed } from '../../test/fixtures/records.js';
import { REQUEST_ERRORS } from '../errors.js';
import { summarizeRecords } from '../metrics/index.js';
import type { LatencyStats, RunSummary } from '../types.js';
import { renderRunJson, renderRunMarkdown, renderRunTable } from './index.js';

/** A summary from real records, then given distinctive numbers so that each must show up verbatim. */
function givenSummary(): RunSummary {
  const s = summarizeRecords(
    [
      streamed({ index: 1, promptTokens: 100 }),
      streamed({ index: 2, promptTokens: 3000 }),
      failed('HTTP_RATE_LIMITED', {
        index: 3,
        httpStatus: 429,
        error: { code: 'HTTP_RATE_LIMITED', message: 'slow | down' },
      }),
    ],
    runMeta({
      slo: { ttftMs: 500, tpotMs: 100 },
      load: { mode: 'open', rate: 3, warmup: 0, timeoutMs: 1, maxRetries: 0 },
    }),
  );
  const stats = (base: number): LatencyStats => ({
    count: 41,
    mean: base + 0.11,
    std: 1,
    min: base,
    max: base + 9.99,
    p50: base + 1.23,
    p90: base + 2.34,
    p95: base + 3.45,
    p99: base + 4.56,
    p999: base + 5.67,
  });
  s.latency.ttft = stats(100);
  s.latency.tpot = stats(20);
  s.latency.itl = stats(30);
  s.latency.itlPerToken = stats(10);
  s.latency.e2el = stats(900);
  s.latency.queueWait = stats(1);
  s.latency.ttftFromScheduled = stats(200);
  s.throughput = {
    requestsPerS: 12.34,
    outputTokensPerS: 567.89,
    totalTokensPerS: 4321.09,
    peakOutputTokensPerS: 777,
  };
  s.goodput = { ...s.goodput, goodRequests: 37, attempted: 41, attainment: 37 / 41, requestGoodput: 11.11 };
  s.goodput = {
    ...s.goodput,
    usefulOutputTokens: 900,
    totalOutputTokens: 1000,
    wastedOutputTokens: 100,
    tokenGoodputRatio: 0.9,
  };
  s.counts = { ...s.counts, attempted: 41, completed: 38, failed: 2, cancelled: 1, retries: 5 };
  s.load = { ...s.load, clientBound: true, lateSends: 6, dropped: 4, peakInFlight: 17 };
  s.interrupted = true;
  s.server = {
    engine: 'goodput-sim',
    metricsUrl: 'http://127.0.0.1:9/metrics',
    samples: 12,
    series: {
      kvUsage: { min: 0.1, mean: 0.5, max: 0.975, last: 0.2 },
      waiting: { min: 0, mean: 2.5, max: 9, last: 1 },
    },
    preemptions: 13,
    prefixCacheHitRate: 0.425,
    specAcceptanceRate: 0.6125,
    specMeanAcceptedLength: 2.8375,
    specAcceptanceRateByPosition: [0.8125, 0.6384, 0.3876],
  };
  return s;
}

const cells = (st: LatencyStats) => [
  st.count.toFixed(0),
  ...[st.mean, st.p50, st.p90, st.p95, st.p99, st.p999, st.max].map((v) => v.toFixed(2)),
];

describe('renderRunTable', () => {
  const s = givenSummary();
  const text = renderRunTable(s);
  const lines = text.split('\n');

  test.each([
    ['TTFT', 'ttft'],
    ['TPOT', 'tpot'],
    ['ITL', 'itl'],
    ['ITL per token', 'itlPerToken'],
    ['E2EL', 'e2el'],
    ['Queue wait', 'queueWait'],
    ['TTFT from schedule', 'ttftFromScheduled'],
  ] as const)('%s row shows count, mean, p50, p90, p95, p99, p99.9, max in order', (label, key) => {
    const row = lines.find((l) => l.split(/\s{2,}/)[0] === label);
    expect(row, label).toBeDefined();
    const values = (row as string).slice(label.length).trim().split(/\s+/);
    expect(values).toEqual(cells(s.latency[key]));
  });

  test('throughput, goodput, counts and load numbers appear', () => {
    for (const n of [
      '12.34',
      '567.89',
      '4321.09',
      '777.00',
      '11.11 req/s',
      '90.2 %',
      '90.0 %',
      'TTFT ≤ 500 ms, TPOT ≤ 100 ms',
    ]) {
      expect(text).toContain(n);
    }
    expect(text).toMatch(/good requests\s+37 of 41 attempted/);
    expect(text).toMatch(/useful 900 of 1000 tokens, 100 wasted/);
    expect(text).toMatch(/retries\s+5/);
    expect(text).toMatch(/peak in flight\s+17/);
  });

  test('errors show code, count, status, message, cause and fix', () => {
    expect(text).toContain('HTTP_RATE_LIMITED ×1 (HTTP 429): slow | down');
    expect(text).toContain(REQUEST_ERRORS.HTTP_RATE_LIMITED.cause);
    expect(text).toContain(REQUEST_ERRORS.HTTP_RATE_LIMITED.hint);
  });

  test('load-honesty warnings', () => {
    expect(text).toContain('the client was the bottleneck');
    expect(text).toContain('6 of ');
    expect(text).toContain('4 requests could not be sent');
    expect(text).toContain('interrupted');
  });

  test('a client-bound run says why', () => {
    const why =
      'client queue wait p99 4000 ms > 250 ms (requests waited inside the client before being sent)';
    const bound = { ...s, load: { ...s.load, clientBound: true, clientBoundReason: why } };
    expect(renderRunTable(bound)).toContain(`the client was the bottleneck (${why})`);
  });

  test('server block and prompt buckets when present, absent otherwise', () => {
    expect(text).toContain('Server (goodput-sim, 12 samples');
    expect(text).toMatch(/KV usage\s+10\.0 %\s+50\.0 %\s+97\.5 %\s+20\.0 %/);
    expect(text).toMatch(/preemptions\s+13/);
    expect(text).toContain('42.5 %');
    expect(text).toMatch(/spec-decode acceptance rate\s+61\.3 %/);
    expect(text).toMatch(/spec-decode mean accepted length\s+2\.84/);
    expect(text).toMatch(/spec-decode acceptance by position\s+0: 81\.3 % · 1: 63\.8 % · 2: 38\.8 %/);
    expect(renderRunMarkdown(s)).toContain(
      '| spec-decode acceptance by position | 0: 81.3 % · 1: 63.8 % · 2: 38.8 % |',
    );
    expect(text).toMatch(/64–127\s+1\s+1/);
    expect(text).toMatch(/2048–4095\s+1\s+1/);
    const bare = { ...s, server: undefined, buckets: undefined, errors: [], interrupted: false };
    bare.load = { ...s.load, clientBound: false, lateSends: 0, dropped: 0 };
    const plain = renderRunTable(bare);
    expect(plain).not.toContain('Server (');
    expect(plain).not.toContain('Prompt-length buckets');
    expect(plain).not.toContain('Errors');
    expect(plain).not.toContain('Warnings');
  });

  test('colour only when asked', () => {
    const ansi = /\x1b\[/;
    expect(text).not.toMatch(ansi);
    const coloured = renderRunTable(s, { color: true });
    expect(coloured).toMatch(ansi);
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(text);
  });

  test('closed loop hides the from-schedule rows; an all-failed run says so', () => {
    const closed = summarizeRecords([failed('CONNECTION_REFUSED')], runMeta());
    const t = renderRunTable(closed);
    expect(t).not.toContain('TTFT from schedule');
    expect(t).toContain('every measured request failed');
    expect(t).toContain(REQUEST_ERRORS.CONNECTION_REFUSED.hint);
  });
});

describe('renderRunMarkdown', () => {
  const s = givenSummary();
  const md = renderRunMarkdown(s);

  test('latency table rows carry the given numbers', () => {
    const row = md.split('\n').find((l) => l.startsWith('| TTFT |'));
    expect(row).toBe(`| TTFT | ${cells(s.latency.ttft).join(' | ')} |`);
    const e2el = md.split('\n').find((l) => l.startsWith('| E2EL |'));
    expect(e2el).toBe(`| E2EL | ${cells(s.latency.e2el).join(' | ')} |`);
  });

  test('headline tables, escaped cells, warnings', () => {
    for (const h of [
      '### Latency',
      '### Throughput',
      '### Goodput',
      '### Requests',
      '### Errors',
      '### Warnings',
    ]) {
      expect(md).toContain(h);
    }
    expect(md).toContain('| requests/s | 12.34 |');
    expect(md).toContain('slow \\| down');
    expect(md).toContain('- ⚠ the client was the bottleneck');
    expect(md).toContain('### Prompt-length buckets');
  });
});

describe('renderRunJson', () => {
  test('is the summary, round-trippable, with vLLM keys at the top level', () => {
    const s = givenSummary();
    const json = renderRunJson(s);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(s)));
    expect(JSON.parse(json).p99_ttft_ms).toBe(s.p99_ttft_ms);
    expect(json.endsWith('\n')).toBe(true);
  });
});
