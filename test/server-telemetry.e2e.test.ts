/**
 * More server telemetry end to end over real loopback HTTP: a server exposing vLLM's
 * speculative-decoding counters (the documented names) → the run's server block carries the
 * acceptance rate and mean accepted length over the run (counter deltas, not lifetime totals).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metric } from '../src/metrics/index.js';
import { runBenchmark } from '../src/runner/index.js';
import { startTinyServer, type TinyServer } from './helpers/sse-server.js';

let work: string;
let tiny: TinyServer;
let metricsServer: Server;
let metricsUrl: string;
/** Scrapes answered: every scrape the counters advance by one fixed step. */
let scrapes = 0;

/** vLLM V1 exposition with counters that started at a lifetime total before the run. */
function specExposition(n: number): string {
  const lbl = '{engine="0",model_name="m"}';
  return [
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running${lbl} 1`,
    '# TYPE vllm:spec_decode_num_drafts_total counter',
    `vllm:spec_decode_num_drafts_total${lbl} ${5000 + 10 * n}`,
    '# TYPE vllm:spec_decode_num_draft_tokens_total counter',
    `vllm:spec_decode_num_draft_tokens_total${lbl} ${15000 + 30 * n}`,
    '# TYPE vllm:spec_decode_num_accepted_tokens_total counter',
    // Lifetime acceptance 14000/15000; during the run 18 of every 30 drafted tokens.
    `vllm:spec_decode_num_accepted_tokens_total${lbl} ${14000 + 18 * n}`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-telemetry-e2e-'));
  tiny = await startTinyServer({ ttftMs: 5, gapMs: 5, chunks: 4 });
  metricsServer = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(specExposition(scrapes++));
  });
  await new Promise<void>((r) => metricsServer.listen(0, '127.0.0.1', r));
  metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`;
});
afterAll(async () => {
  await tiny.close();
  await new Promise<void>((r) => metricsServer.close(() => r()));
  rmSync(work, { recursive: true, force: true });
});

describe('speculative decoding in the server block', () => {
  it('acceptance rate and mean accepted length are the run deltas', async () => {
    const { summary } = await runBenchmark(
      {
        url: tiny.url,
        api: 'chat',
        sampling: { temperature: 0, maxTokens: 4, ignoreEos: true, seed: 1 },
        workload: { promptTokens: 16 },
        load: { mode: 'closed', concurrency: 2, requests: 12, warmup: 0, timeoutMs: 10_000, maxRetries: 0 },
        slo: {},
        seed: 1,
        outDir: join(work, 'spec'),
        serverMetrics: { enabled: true, url: metricsUrl, intervalMs: 20 },
      },
      { cwd: work, quiet: true },
    );
    const server = summary.server!;
    expect(server.engine).toBe('vllm');
    expect(server.samples).toBeGreaterThanOrEqual(2);
    expect(server.specAcceptanceRate).toBeCloseTo(18 / 30, 12);
    expect(server.specMeanAcceptedLength).toBeCloseTo(1 + 18 / 10, 12);
    // The catalogue reads the same figures (gate, compare, report).
    expect(metric('spec_acceptance_rate')!.read(summary)).toBe(server.specAcceptanceRate);
    expect(metric('spec_mean_accepted_length')!.read(summary)).toBe(server.specMeanAcceptedLength);
  });
});
