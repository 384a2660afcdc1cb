/**
 * `--workers N`: the load split across load workers, one requests.jsonl written by the main
 * thread, one summary of the same shape as a one-worker run. From the TypeScript sources the
 * workers run in process (same code and messages); the last block runs the built package,
 * where they are threads of their own.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoodputError } from '../src/errors.js';
import {
  type BenchmarkConfigInput,
  type BenchmarkIo,
  type BenchmarkResult,
  benchmarkConfig,
  rebuildSummary,
  runBenchmark,
} from '../src/runner/index.js';
import { shareArrivals } from '../src/runner/workers/index.js';
import type { RequestRecord } from '../src/types.js';
import { Part } from '../src/workload/index.js';
import { capture, ensureBuilt, REPO } from './helpers/cli.js';
import { startTinyServer, type TinyServer } from './helpers/sse-server.js';

let server: TinyServer;
let cwd: string;
beforeAll(async () => {
  server = await startTinyServer({ chunks: 4, ttftMs: 5, gapMs: 2 });
  cwd = mkdtempSync(join(tmpdir(), 'goodput-workers-'));
});
afterAll(async () => {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
});

let runs = 0;
/** A small run of the tiny server; `make` is benchmarkConfig from the sources or from dist. */
function config(input: BenchmarkConfigInput, make: typeof benchmarkConfig = benchmarkConfig) {
  return make({
    url: server.url,
    model: 'tiny-model',
    serverMetrics: { enabled: false },
    workload: { promptTokens: 16 },
    sampling: { maxTokens: 4 },
    outDir: join(cwd, `run-${++runs}`),
    ...input,
  });
}

function records(dir: string): RequestRecord[] {
  const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n');
  return lines.slice(1).map((l) => JSON.parse(l) as RequestRecord);
}

/** Every key path of a JSON value (array items as []), to compare shapes. */
function shape(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return [path, ...(v.length > 0 ? shape(v[0], `${path}[]`) : [])];
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [`${path}.${k}`, ...shape(x, `${path}.${k}`)]);
  return [path];
}

describe('--workers 2 (in process, from the sources)', () => {
  it('closed loop: the right count, one requests.jsonl with every record, the summary of both workers', async () => {
    const stderr = capture();
    const two = await runBenchmark(
      config({ load: { concurrency: 4, requests: 40, warmup: 4, workers: 2 } }),
      {
        cwd,
        stderr,
      },
    );
    expect(stderr.text).toContain('load: 2 load workers on this thread');
    const rs = records(two.dir);
    expect(rs).toHaveLength(44);
    // Every item exactly once: the workers took them from one shared counter.
    expect(rs.map((r) => r.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 44 }, (_, i) => i));
    expect(
      rs
        .filter((r) => r.warmup)
        .map((r) => r.index)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3]);
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
    const s = two.summary;
    expect(s.meta.load.workers).toBe(2);
    expect(s.counts.completed).toBe(40);
    expect(s.latency.ttft.count).toBe(40);
    expect(s.load.peakInFlight).toBe(4);
    // The summary is the one its records give, and has the shape of a one-worker run.
    const rebuilt = await rebuildSummary(two.dir);
    expect(rebuilt.summary.latency.ttft).toEqual(s.latency.ttft);
    expect(rebuilt.summary.histograms).toEqual(s.histograms);
    const one = await runBenchmark(config({ load: { concurrency: 4, requests: 40, warmup: 4 } }), { cwd });
    expect(one.summary.meta.load.workers).toBeUndefined();
    // (clientBoundReason and diagnosis are there only when something was found: a loaded machine;
    // the connection figures only when the client ran on the run's own thread.)
    const optional = ['.meta.load.workers', '.load.clientBoundReason', '.diagnosis', '.load.connections'];
    const keys = (r: BenchmarkResult) =>
      new Set(shape(r.summary).filter((k) => !optional.some((o) => k.startsWith(o))));
    expect(keys(two)).toEqual(keys(one));
  });

  it('open loop, Poisson: each worker sends every 2nd item on its own Poisson share of rate/2', async () => {
    const { summary, dir } = await runBenchmark(
      config({ load: { mode: 'open', rate: 400, burstiness: 1, requests: 60, workers: 2 } }),
      { cwd },
    );
    expect(summary.counts.attempted).toBe(60);
    const rs = records(dir);
    expect(rs).toHaveLength(60);
    for (const k of [0, 1]) {
      const mine = rs.filter((r) => r.index % 2 === k).sort((a, b) => a.index - b.index);
      expect(mine).toHaveLength(30);
      const at = shareArrivals({ rate: 400, burstiness: 1 }, summary.meta.seed, Part.whole.sub(k, 2));
      // Relative to its first send: the worker's measured start is its own (within µs of the other's).
      const base = mine[0]!.scheduledMs - at(0);
      mine.forEach((r, j) => {
        expect(r.scheduledMs - base).toBeCloseTo(at(j), 2);
      });
    }
  });

  it('--duration stops every worker and keeps what was measured', async () => {
    const started = performance.now();
    const { summary, dir } = await runBenchmark(
      config({ load: { mode: 'open', rate: 100, durationMs: 600, maxConcurrency: 16, workers: 2 } }),
      { cwd },
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    const rs = records(dir);
    expect(rs.length).toBe(summary.counts.attempted);
    // About 60 due in 0.6 s at 100/s: sent, or counted as dropped (a loaded machine).
    expect(rs.length).toBeGreaterThan(5);
    expect(rs.length + summary.load.dropped).toBeLessThan(120);
    // Nothing scheduled past the deadline of either worker (their measured starts are within ms).
    const first = Math.min(...rs.map((r) => r.scheduledMs));
    expect(Math.max(...rs.map((r) => r.scheduledMs)) - first).toBeLessThan(600 + 5);
  });

  it('Ctrl-C stops every worker: interrupted, records and summary kept', async () => {
    const stop = new AbortController();
    let seen = 0;
    const io: BenchmarkIo = {
      cwd,
      signal: stop.signal,
      onRecord: () => {
        if (++seen === 20) stop.abort();
      },
    };
    const { summary, dir } = await runBenchmark(
      config({ load: { concurrency: 4, durationMs: 60_000, workers: 2 } }),
      io,
    );
    expect(summary.interrupted).toBe(true);
    const rs = records(dir);
    expect(rs.length).toBeGreaterThanOrEqual(20);
    expect(rs.length).toBe(summary.counts.attempted + summary.counts.warmup);
    expect(summary.meta.load.workers).toBe(2);
  });

  it('a lagging event loop makes the run client-bound, naming the worker', async () => {
    // In process every worker shares this thread: a sink that blocks it lags them all.
    const block = () => {
      const until = performance.now() + 120;
      while (performance.now() < until) {}
    };
    let n = 0;
    const { summary } = await runBenchmark(config({ load: { concurrency: 2, requests: 16, workers: 2 } }), {
      cwd,
      onRecord: () => {
        if (++n % 2 === 0) block();
      },
    });
    expect(summary.load.clientBound).toBe(true);
    expect(summary.load.clientBoundReason).toMatch(/worker 1 of 2: event-loop delay p99 [\d.]+ ms/);
    expect(summary.load.clientBoundReason).toContain('worker 2 of 2');
  });

  it('with --shard and --start-at: the workers send the shard’s items, from the shared instant', async () => {
    const startAtMs = Date.now() + 1500;
    const { summary, dir } = await runBenchmark(
      config({
        load: { concurrency: 4, requests: 20, workers: 2 },
        shard: { index: 1, count: 2 },
        startAtMs,
      }),
      { cwd },
    );
    const rs = records(dir);
    expect(rs.map((r) => r.index).sort((a, b) => a - b)).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    expect(summary.meta.load.workers).toBe(2);
    expect(summary.meta.shard).toMatchObject({ index: 1, count: 2 });
    expect(summary.load.startSkewMs).toBeGreaterThanOrEqual(0);
    expect(summary.load.startSkewMs).toBeLessThan(200);
  });

  it('virtual time refuses more than one worker, with a hint', async () => {
    const err = await runBenchmark(
      benchmarkConfig({
        sim: { timeMode: 'virtual' },
        load: { requests: 4, workers: 2 },
        outDir: join(cwd, 'v'),
      }),
      { cwd },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GoodputError);
    expect((err as GoodputError).code).toBe('E_USAGE');
    expect((err as GoodputError).hint).toContain('drop --workers');
  });
});

describe('--workers 2 from the built package (worker threads)', () => {
  let run: typeof runBenchmark;
  let config1: typeof benchmarkConfig;
  beforeAll(async () => {
    ensureBuilt();
    const mod = (await import(pathToFileURL(join(REPO, 'dist', 'runner', 'index.js')).href)) as {
      runBenchmark: typeof runBenchmark;
      benchmarkConfig: typeof benchmarkConfig;
    };
    run = mod.runBenchmark;
    config1 = mod.benchmarkConfig;
  }, 120_000);

  it('runs the load on two threads: right count, one requests.jsonl, merged summary', async () => {
    const stderr = capture();
    const { summary, dir } = await run(
      config({ outDir: join(cwd, 'threads'), load: { concurrency: 4, requests: 30, workers: 2 } }, config1),
      { cwd, stderr },
    );
    expect(stderr.text).toContain('load: 2 worker threads');
    const rs = records(dir);
    expect(rs.map((r) => r.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(summary.counts.completed).toBe(30);
    expect(summary.latency.ttft.count).toBe(30);
    expect(summary.meta.load.workers).toBe(2);
    // The worker clocks share the main thread's t0: every record lies in the run's window.
    for (const r of rs) {
      expect(r.sentMs).toBeGreaterThanOrEqual(0);
      expect(r.endMs).toBeGreaterThanOrEqual(r.sentMs);
    }
  });

  it('Ctrl-C reaches the threads: interrupted, what was measured kept', async () => {
    const stop = new AbortController();
    let seen = 0;
    const { summary, dir } = await run(
      config(
        { outDir: join(cwd, 'threads-stop'), load: { concurrency: 4, durationMs: 60_000, workers: 2 } },
        config1,
      ),
      {
        cwd,
        signal: stop.signal,
        onRecord: () => {
          if (++seen === 10) stop.abort();
        },
      },
    );
    expect(summary.interrupted).toBe(true);
    expect(records(dir).length).toBe(summary.counts.attempted);
  });
});
