/**
 * Server metrics and diagnosis end to end against the simulated engine over real loopback
 * HTTP: the scraped view must match the engine's own counts, and the diagnosis must name
 * what the configuration provokes.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/cli/commands/run.js';
import { parseArgv, resolveBenchmarkConfig } from '../src/flags/index.js';
import { type BenchmarkConfig, runBenchmark } from '../src/runner/index.js';
import { type EngineOptions, type SimServer, startSim } from '../src/sim/index.js';
import type { LoadSpec, ServerSample } from '../src/types.js';

let work: string;
const sims: SimServer[] = [];
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'goodput-sm-e2e-'));
});
afterAll(async () => {
  for (const s of sims) await s.close();
  rmSync(work, { recursive: true, force: true });
});

async function sim(engine: EngineOptions, slowdown = 1): Promise<SimServer> {
  const s = await startSim({ seed: 7, engine, slowdown });
  sims.push(s);
  return s;
}

function config(
  url: string,
  name: string,
  over: Omit<Partial<BenchmarkConfig>, 'load'> & { load?: Partial<LoadSpec> } = {},
) {
  const { load, ...rest } = over;
  const c: BenchmarkConfig = {
    url,
    api: 'chat',
    sampling: { temperature: 0, maxTokens: 24, ignoreEos: true, seed: 1 },
    workload: { promptTokens: 128 },
    load: {
      mode: 'closed',
      concurrency: 4,
      requests: 16,
      warmup: 0,
      timeoutMs: 30_000,
      maxRetries: 0,
      ...load,
    },
    slo: {},
    seed: 1,
    outDir: join(work, name),
    serverMetrics: { enabled: true, intervalMs: 100 },
    ...rest,
  };
  return c;
}

const io = () => ({ cwd: work, quiet: true });

function samplesOf(dir: string): ServerSample[] {
  const lines = readFileSync(join(dir, 'server-metrics.jsonl'), 'utf8').trim().split('\n');
  expect(JSON.parse(lines[0]!)).toMatchObject({ schemaVersion: 1, kind: 'goodput.server-metrics' });
  return lines.slice(1).map((l) => JSON.parse(l) as ServerSample);
}

/** A paged KV cache of 160 blocks of 16 tokens: a few long prompts fill it. */
const KV_TIGHT: EngineOptions = { numGpuBlocksOverride: 160, maxNumSeqs: 16, blockSize: 16 };

/** The "bad" configuration of examples/incident-replay.sh (docs/simulator.md, "Incident replay"). */
const INCIDENT_ENGINE: EngineOptions = {
  gpuMemoryUtilization: 0.27,
  enableChunkedPrefill: false,
  maxNumBatchedTokens: 65536,
};

describe('server metrics against the simulator', () => {
  it('records preemptions, generated tokens and KV usage that match the engine', async () => {
    const s = await sim(KV_TIGHT, 0.5);
    // The engine's own KV usage, read in-process while the run goes.
    let engineKvMax = 0;
    const poll = setInterval(() => {
      engineKvMax = Math.max(engineKvMax, s.engine.kv.usage());
    }, 2);
    // …and at every token the engine emits (a step's allocation is at its peak then).
    s.engine.listeners.push({
      onToken() {
        engineKvMax = Math.max(engineKvMax, s.engine.kv.usage());
      },
    });
    const { summary, dir } = await runBenchmark(
      config(s.url, 'match', {
        // 600 + 48 tokens = 41 blocks: four requests are admitted (38 blocks each) but cannot all grow.
        workload: { promptTokens: 600 },
        sampling: { temperature: 0, maxTokens: 48, ignoreEos: true, seed: 1 },
        load: { concurrency: 8, requests: 16 },
      }),
      io(),
    );
    clearInterval(poll);
    const server = summary.server!;
    expect(server.engine).toBe('goodput-sim');
    // Counters: the final scrape comes after the last request, so they equal the engine's.
    expect(s.engine.counters.preemptions).toBeGreaterThan(0);
    expect(server.preemptions).toBe(s.engine.counters.preemptions);
    expect(server.generatedTokens).toBe(s.engine.counters.generationTokens);
    expect(summary.goodput.tokenSource).toBe('server');
    // KV usage: what was scraped is what the engine held (never above its own peak, near it).
    const kv = server.series.kvUsage!;
    expect(kv.max).toBeLessThanOrEqual(engineKvMax + 1e-9);
    expect(kv.max).toBeGreaterThan(0.5 * engineKvMax);
    expect(server.series.numBlocks?.last).toBe(160);
    // The simulator exposes fragmentation itself; it is read, not derived.
    expect(server.fragmentationSource).toBe('server');
    expect(server.kvFragmentation).toBeGreaterThanOrEqual(0);
    // The file holds the same samples the summary counted.
    expect(samplesOf(dir).length).toBe(server.samples);
  });

  it('the incident replay is diagnosed as KV pressure and queueing', async () => {
    // examples/incident-replay.sh's load (64 concurrent, 2000-token shared system prompt + 200,
    // 128 output tokens) against its bad engine, 64 requests instead of 300, steps twice as fast.
    const s = await startSim({
      seed: 1,
      profile: 'h100:llama-3.1-8b',
      engine: INCIDENT_ENGINE,
      slowdown: 0.5,
    });
    sims.push(s);
    const { summary } = await runBenchmark(
      config(s.url, 'incident', {
        workload: { promptTokens: 200, systemPromptTokens: 2000 },
        sampling: { temperature: 0, maxTokens: 128, ignoreEos: true, seed: 1 },
        load: { concurrency: 64, requests: 64 },
      }),
      io(),
    );
    const kinds = (summary.diagnosis ?? []).map((f) => f.kind);
    expect(kinds).toContain('kv-pressure');
    expect(kinds).toContain('queueing');
    for (const f of summary.diagnosis!) {
      expect(f.evidence.length).toBeGreaterThan(10);
      expect(f.knob.length).toBeGreaterThan(10);
    }
    const kv = summary.diagnosis!.find((f) => f.kind === 'kv-pressure')!;
    expect(kv.evidence).toMatch(/preemption/);
    expect(kv.fromMs).toBeDefined();
  });

  it('with --no-abort-on-disconnect, cancelling clients lower the token goodput ratio and show as wasted work', async () => {
    const cancelling = {
      workload: { promptTokens: 128, cancelAfterMs: 120, cancelRate: 0.5 },
      sampling: { temperature: 0, maxTokens: 64, ignoreEos: true, seed: 1 },
      load: { concurrency: 6, requests: 24 },
    };
    const aborting = await sim({ abortOnDisconnect: true });
    const a = await runBenchmark(config(aborting.url, 'abort', cancelling), io());
    const keeping = await sim({ abortOnDisconnect: false });
    const k = await runBenchmark(config(keeping.url, 'keep', cancelling), io());

    expect(k.summary.counts.cancelled).toBeGreaterThan(0);
    expect(k.summary.goodput.tokenSource).toBe('server');
    expect(k.summary.goodput.tokenGoodputRatio).toBeLessThan(a.summary.goodput.tokenGoodputRatio);
    // The server kept generating for clients that had gone: its counter says how much.
    expect(k.summary.server!.wastedTokens!).toBeGreaterThan(a.summary.server!.wastedTokens ?? 0);
    const wasted = k.summary.diagnosis?.find((f) => f.kind === 'wasted-work');
    expect(wasted).toBeDefined();
    expect(wasted!.evidence).toMatch(/after the client had gone/);
  });
});

describe('--buckets', () => {
  const resolve = (argv: string[]) => resolveBenchmarkConfig(parseArgv(runCommand, argv), {}, work);
  it('takes pow2 (default), none, or ascending edges, and names the flag when wrong', async () => {
    expect((await resolve([])).promptBuckets).toBeUndefined();
    expect((await resolve(['--buckets', 'none'])).promptBuckets).toBe(false);
    expect((await resolve(['--buckets', '512,2048'])).promptBuckets).toEqual([512, 2048]);
    await expect(resolve(['--buckets', '2048,512'])).rejects.toThrow(/--buckets/);
  });
  it('breaks TTFT and E2EL down by the given edges', async () => {
    const s = await sim({}, 0.5);
    const c = config(s.url, 'buckets', {
      workload: { promptTokens: 300, promptTokensRange: 0.9 },
      load: { concurrency: 4, requests: 16 },
      promptBuckets: [128, 512],
    });
    const { summary } = await runBenchmark(c, io());
    const buckets = summary.buckets!;
    expect(buckets.map((b) => b.minTokens)).toEqual(
      [0, 128, 512].filter((m) => buckets.some((b) => b.minTokens === m)),
    );
    expect(buckets.reduce((a, b) => a + b.count, 0)).toBe(16);
  });
});
