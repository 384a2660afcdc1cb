import { describe, expect, test } from 'vitest';
import { failed, runMeta, streamed } from '../../test/fixtures/records.js';
import type { RunSummary } from '../types.js';
import {
  CAVEAT_KINDS,
  caveatedPointPhrase,
  GC_HEAP_FLAG,
  GC_PRETENURING_FLAG,
  mergeSummaries,
  runCaveats,
  summarizeRecords,
} from './index.js';

/** A clean run of two successful requests, then changed by each case. */
function clean(): RunSummary {
  return summarizeRecords([streamed({ index: 1 }), streamed({ index: 2 })], runMeta());
}

const ids = (s: RunSummary) => runCaveats(s).map((c) => c.id);

describe('runCaveats', () => {
  test('a clean run has none', () => {
    expect(runCaveats(clean())).toEqual([]);
  });

  const cases: Array<[string, (s: RunSummary) => void, string, RegExp]> = [
    ['interrupted', (s) => Object.assign(s, { interrupted: true }), 'interrupted', /interrupted/],
    [
      'client-bound with its reason',
      (s) => Object.assign(s.load, { clientBound: true, clientBoundReason: 'event-loop delay p99 80 ms' }),
      'client-bound',
      /client was the bottleneck \(event-loop delay p99 80 ms\)/,
    ],
    [
      'connections short',
      (s) => {
        s.load.connectionWarmup = { requested: 16, ok: 8, ms: 2000, reason: 'budget' };
      },
      'connections-short',
      /8 of 16 connections ready/,
    ],
    [
      'the server limited connections',
      (s) => {
        Object.assign(s.load, { peakInFlight: 8 });
        s.load.connections = {
          mode: 'pooled',
          limit: 8,
          warmed: 8,
          sizing: '8 opened first for concurrency 8, at most 8',
          peakOpen: 8,
          peakServed: 4,
          waited: 4,
          longestWaitMs: 3000,
          serverLimited: true,
        };
      },
      'server-limited-connections',
      /the server served 4 connections at once while 8 requests were in flight: requests waited for a connection, not for the GPU/,
    ],
    [
      'the open-file limit held the pool below the load',
      (s) => {
        Object.assign(s.load, { peakInFlight: 300 });
        s.load.connections = {
          mode: 'pooled',
          limit: 64,
          warmed: 64,
          sizing:
            "64 opened first for concurrency 300, at most 300; at most 64 within this process's open-file limit (ulimit -n 128)",
          peakOpen: 64,
          peakServed: 64,
          waited: 0,
          longestWaitMs: 0,
          serverLimited: false,
          openFilesLimit: 128,
        };
      },
      'open-files-limit',
      /at most 64 connections: this process's open-file limit \(ulimit -n 128\) left room for no more; .*the server saw at most 64 at once/,
    ],
    [
      'dropped sends',
      (s) => Object.assign(s.load, { dropped: 3 }),
      'dropped-sends',
      /3 requests could not be sent/,
    ],
    ['late sends', (s) => Object.assign(s.load, { lateSends: 2 }), 'late-sends', /sent late/],
    [
      'usage missing',
      (s) => Object.assign(s.counts, { usageMissing: 1 }),
      'usage-missing',
      /1 response carried/,
    ],
    [
      'tokenizer mismatch without server totals',
      (s) => Object.assign(s.counts, { promptTokenMismatch: 80 }),
      'tokenizer-mismatch',
      /80 prompts counted differently/,
    ],
    [
      'tokenizer mismatch with both counts',
      (s) => {
        s.counts.promptTokenMismatch = 80;
        s.serverTokens = {
          requests: 80,
          inputTokens: 80 * 329,
          clientInputTokens: 80 * 256,
          outputTokens: 0,
        };
      },
      'tokenizer-mismatch',
      /the server counted 329 tokens per prompt on average against 256 sent/,
    ],
  ];
  test.each(cases)('%s', (_, change, id, text) => {
    const s = clean();
    change(s);
    const found = runCaveats(s);
    expect(found.map((c) => c.id)).toEqual([id]);
    expect(found[0]!.text).toMatch(text);
  });

  test('every request failed', () => {
    const s = summarizeRecords([failed('HTTP_SERVER_ERROR')], runMeta());
    expect(ids(s)).toEqual(['no-completions']);
  });

  test('a full warm-up is no caveat, and several caveats keep the table order', () => {
    const s = clean();
    s.load.connectionWarmup = { requested: 4, ok: 4, ms: 10 };
    expect(runCaveats(s)).toEqual([]);
    s.load.dropped = 1;
    s.interrupted = true;
    s.load.clientBound = true;
    expect(ids(s)).toEqual(['interrupted', 'client-bound', 'dropped-sends']);
  });

  test('GC pauses: a caveat when one is long or they add up to more than 2 % of the run', () => {
    const s = clean();
    const seconds = s.duration;
    s.load.gcPauses = { count: 10, totalMs: seconds * 1000 * 0.01, p99Ms: 3, maxMs: 40 };
    expect(ids(s)).toEqual([]);
    s.load.gcPauses.maxMs = 60;
    expect(runCaveats(s)[0]?.text).toMatch(
      /paused for garbage collection 10 times \(p99 3\.0 ms, longest 60\.0 ms, 1\.0 % of the run\)/,
    );
    // Started with neither GC flag (not through the goodput command): the hint names both.
    const plain = runCaveats(s)[0]?.text;
    expect(plain).toContain(`the goodput command starts node with ${GC_HEAP_FLAG} ${GC_PRETENURING_FLAG}`);
    expect(plain).toContain(`give node ${GC_HEAP_FLAG} ${GC_PRETENURING_FLAG}`);
    // With a larger heap but pretenuring on: the hint names the one flag it lacked.
    s.load.gcPauses.heapFlag = '--initial-heap-size=256';
    const heapOnly = runCaveats(s)[0]?.text;
    expect(heapOnly).toContain(
      `started with V8's allocation-site pretenuring (without ${GC_PRETENURING_FLAG})`,
    );
    expect(heapOnly).toMatch(new RegExp(`give node ${GC_PRETENURING_FLAG}$`));
    expect(heapOnly).not.toContain('--workers N');
    // With pretenuring off but node's default heap: the heap flag alone.
    delete s.load.gcPauses.heapFlag;
    s.load.gcPauses.pretenuringFlag = GC_PRETENURING_FLAG;
    expect(runCaveats(s)[0]?.text).toMatch(new RegExp(`give node ${GC_HEAP_FLAG}$`));
    // Started with both already: the hint names what is left, not the flags again.
    s.load.gcPauses.heapFlag = '--initial-heap-size=256';
    const started = runCaveats(s)[0]?.text;
    expect(started).toContain('started with a larger heap (--initial-heap-size=256)');
    expect(started).toContain('--workers N');
    expect(started).not.toContain(GC_HEAP_FLAG);
    expect(started).not.toContain('give node');
    s.load.gcPauses = { count: 400, totalMs: seconds * 1000 * 0.03, p99Ms: 8, maxMs: 12 };
    expect(ids(s)).toEqual(['gc-pauses']);
  });

  test.each([
    [
      'a cold start, lagging 20× the rest',
      { sends: 2000, p99Ms: 30, laterSends: 18000, laterP99Ms: 1.5 },
      4000,
    ],
    ['at 150 req/s, the advice rounded up', { sends: 150, p99Ms: 12, laterSends: 900, laterP99Ms: 1 }, 300],
    ['a first second at exactly 3×', { sends: 500, p99Ms: 12, laterSends: 500, laterP99Ms: 4 }, 1000],
  ])('client warming up: %s is a caveat, with the warmup to send', (_name, w, warmup) => {
    const s = clean();
    s.load.startWindow = { ms: 1000, ...w };
    expect(ids(s)).toEqual(['client-warming-up']);
    const text = runCaveats(s)[0]!.text;
    expect(text).toContain(
      `dispatch lag p99 of ${w.p99Ms.toFixed(1)} ms, against ${w.laterP99Ms.toFixed(1)} ms`,
    );
    expect(text).toMatch(new RegExp(`--warmup ${warmup}$`));
  });

  test.each([
    ['a first second under 3× the rest', { sends: 2000, p99Ms: 11.9, laterSends: 18000, laterP99Ms: 4 }],
    ['a first second not late (10 ms)', { sends: 2000, p99Ms: 10, laterSends: 18000, laterP99Ms: 0.5 }],
    ['fewer than 100 sends in it', { sends: 99, p99Ms: 40, laterSends: 9000, laterP99Ms: 1 }],
    ['a run shorter than twice the window', { sends: 2000, p99Ms: 40, laterSends: 1999, laterP99Ms: 1 }],
  ])('client warming up: %s is none', (_name, w) => {
    const s = clean();
    s.load.startWindow = { ms: 1000, ...w };
    expect(ids(s)).toEqual([]);
  });

  test('ids are unique', () => {
    const all = CAVEAT_KINDS.map((k) => k.id);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe("the server's own token totals", () => {
  // The server counts 329 tokens where the client built and counted 256 (another tokenizer).
  const records = [1, 2, 3].map((index) =>
    streamed({ index, promptTokens: 256, serverPromptTokens: 329, tokens: 10 }),
  );
  const counted = streamed({ index: 4, promptTokens: 256, tokens: 7, outputTokensSource: 'counted' });

  test('summed beside the client count; vLLM keys keep the client count', () => {
    const s = summarizeRecords([...records, counted], runMeta());
    expect(s.serverTokens).toEqual({
      requests: 3,
      inputTokens: 987,
      clientInputTokens: 768,
      outputTokens: 30,
    });
    expect(s.total_input_tokens).toBe(4 * 256);
    expect(s.total_output_tokens).toBe(37);
    expect(s.total_token_throughput).toBeCloseTo((4 * 256 + 37) / s.duration, 6);
    const mismatch = runCaveats(s).find((c) => c.id === 'tokenizer-mismatch');
    expect(mismatch?.text).toMatch(
      /the server counted 329 tokens per prompt on average against 256 sent \(3 prompts/,
    );
  });

  test('absent when no usage stated prompt_tokens; added up by a merge', () => {
    expect(summarizeRecords([counted], runMeta()).serverTokens).toBeUndefined();
    const a = summarizeRecords(records.slice(0, 1), runMeta({ runId: 'a' }));
    const b = summarizeRecords(records.slice(1), runMeta({ runId: 'b' }));
    expect(mergeSummaries([a, b]).serverTokens).toEqual({
      requests: 3,
      inputTokens: 987,
      clientInputTokens: 768,
      outputTokens: 30,
    });
  });
});

describe('caveatedPointPhrase', () => {
  test.each([
    [[], ''],
    [['client-bound'], 'a point the client limited'],
    [['client-bound', 'client-bound'], 'a point the client limited'],
    [['client-bound', 'dropped-sends'], 'a point the client limited and with dropped sends'],
    [['from-the-future'], 'a point with caveat from-the-future'],
  ])('%j', (given, phrase) => {
    expect(caveatedPointPhrase(given)).toBe(phrase);
  });
});
