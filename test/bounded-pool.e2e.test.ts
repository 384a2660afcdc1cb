/**
 * Connections as a real client uses them, against a server with a bounded pool of HTTP threads
 * (test/helpers/bounded-pool-server.ts, as llama.cpp's): at 3 req/s goodput's TTFT stays
 * within 10 % of a client that opens one connection per request, on the same schedule (it used
 * to open 64 connections, 60 of them parked unserved, and most requests waited on those until
 * the deadline); above the pool's size the run says the server limited connections, not that
 * the client was the bottleneck; `--connections per-request` is the one-per-request client.
 *
 * @module
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import type { RequestRecord } from '../src/types.js';
import { type BoundedPoolServer, startBoundedPoolServer } from './helpers/bounded-pool-server.js';
import { jsonlLines, readRunSummary, runCliInProcess } from './helpers/cli.js';
import { sleep } from './helpers/loopback.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'goodput-bounded-pool-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let server: BoundedPoolServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Four threads, idle connections closed after 1 s; about 500 ms an answer, the first token at 300 ms. */
const POOL = { workers: 8, idleMs: 1000, ttftMs: 300, tokens: 8, itlMs: 30 };
const DURATION_MS = 4000;

/** One request on a connection of its own (Connection: close), timed as vLLM's client does: TTFT from the send. */
async function oneConnectionTtft(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    reset: true,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
  });
  let ttft = Number.NaN;
  for await (const chunk of res.body) {
    if (Number.isNaN(ttft) && String(chunk).includes('"content"')) ttft = performance.now() - t0;
  }
  return ttft;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('a server with a bounded pool of HTTP threads', () => {
  it('at 3 req/s: TTFT within 10 % of a one-connection-per-request client on the same schedule, every request answered', async () => {
    server = await startBoundedPoolServer(POOL);
    const out = join(work, 'open');
    const { summary } = await runBenchmark(
      benchmarkConfig({
        url: server.url,
        model: 'm',
        load: { rate: 3, durationMs: DURATION_MS },
        sampling: { maxTokens: 8 },
        serverMetrics: { enabled: false },
        outDir: out,
      }),
      { cwd: work, quiet: true },
    );
    const records = (jsonlLines(join(out, 'requests.jsonl')).slice(1) as RequestRecord[]).filter(
      (r) => !r.warmup,
    );
    const start = Math.min(...records.map((r) => r.scheduledMs));
    // Everything due a second before the deadline (twice an answer's length) was answered.
    const due = records.filter((r) => r.scheduledMs - start < DURATION_MS - 1000);
    expect(due.length).toBeGreaterThanOrEqual(6);
    expect(due.filter((r) => r.outcome !== 'success')).toEqual([]);
    const ttft = due.map((r) => r.firstTokenMs! - r.sentMs);

    // The reference: the same schedule, one connection per request, on a fresh server.
    await server.close();
    server = await startBoundedPoolServer(POOL);
    const url = server.url;
    const t0 = performance.now();
    const reference = await Promise.all(
      due.map(async (r) => {
        await sleep(Math.max(0, r.scheduledMs - start - (performance.now() - t0)));
        return oneConnectionTtft(url);
      }),
    );
    expect(reference.every(Number.isFinite)).toBe(true);
    expect(median(ttft) / median(reference)).toBeLessThan(1.1);
    expect(mean(ttft) / mean(reference)).toBeLessThan(1.1);
    // Sized to the load: a couple of connections opened first, never more than the server serves.
    expect(summary.load.connections).toMatchObject({ mode: 'pooled', serverLimited: false });
    expect(summary.load.connections!.warmed).toBeLessThanOrEqual(POOL.workers);
    expect(summary.load.connections!.peakOpen).toBeLessThanOrEqual(POOL.workers);
  }, 60_000);

  it('-c above its threads: the run says the server limited connections, not that the client was the bottleneck', async () => {
    server = await startBoundedPoolServer({ ...POOL, workers: 4, ttftMs: 50, tokens: 4, itlMs: 10 });
    const out = join(work, 'closed');
    const r = await runCliInProcess(
      [
        'run',
        '--url',
        server.url,
        '--model',
        'm',
        '-c',
        '8',
        '--duration',
        '2s',
        '--max-tokens',
        '4',
        '--out',
        out,
      ],
      { cwd: work },
    );
    const text = r.stdout + r.stderr;
    expect(text).toMatch(
      /the server served 4 connections at once; requests waited for a connection, not for the GPU/,
    );
    // The client's own CPU may still be flagged on a busy machine (event-loop delay), never the server's wait.
    expect(text).not.toMatch(/client queue wait/);
    const summary = readRunSummary(out);
    expect(summary.load.connections).toMatchObject({
      mode: 'pooled',
      limit: 8,
      peakServed: 4,
      serverLimited: true,
    });
    expect(summary.load.clientBoundReason ?? '').not.toMatch(/queue wait/);
    const kinds = (summary.diagnosis ?? []).map((f) => f.kind);
    expect(kinds).toContain('server-connections');
    if (!summary.load.clientBound) expect(kinds).not.toContain('client-bound');
    expect(server.stats.maxServed).toBe(4);
  }, 60_000);

  it('--connections per-request: a new connection for every request, recorded as such', async () => {
    server = await startBoundedPoolServer({ ...POOL, ttftMs: 50, tokens: 4, itlMs: 10 });
    const out = join(work, 'per-request');
    const r = await runCliInProcess(
      [
        'run',
        '--url',
        server.url,
        '--model',
        'm',
        '-c',
        '2',
        '--requests',
        '6',
        '--max-tokens',
        '4',
        '--connections',
        'per-request',
        '--out',
        out,
      ],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/load .*· connections per-request/);
    const summary = readRunSummary(out);
    expect(summary.meta.load.connections).toEqual({ mode: 'per-request' });
    expect(summary.load.connections).toMatchObject({ mode: 'per-request', warmed: 0, serverLimited: false });
    expect(summary.counts.completed).toBe(6);
    // One connection per request (beside the model check's and the metrics probe's).
    expect(server.stats.completionConnections).toBe(6);
  }, 60_000);
});
