/**
 * More server telemetry end to end over real loopback HTTP: a server exposing vLLM's
 * speculative-decoding counters (the documented names) → the run's server block carries the
 * acceptance rate, mean accepted length and per-position acceptance rate over the run (counter
 * deltas, not lifetime totals), shown in the run table and kept through server-metrics.jsonl.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metric } from '../src/metrics/index.js';
import { renderRunMarkdown, renderRunTable } from '../src/report/index.js';
import { rebuildSummary, runBenchmark } from '../src/runner/index.js';
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
    '# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter',
    // Of every 10 drafts during the run, 9 kept their first token, 6 their second, 3 their third.
    `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} ${4900 + 9 * n}`,
    `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} ${4700 + 6 * n}`,
    `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="2"} ${4400 + 3 * n}`,
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
    const byPosition = server.specAcceptanceRateByPosition!;
    expect(byPosition).toHaveLength(3);
    for (const [k, rate] of [0.9, 0.6, 0.3].entries()) expect(byPosition[k]).toBeCloseTo(rate, 12);
    // The run table and the Markdown report show them.
    const table = renderRunTable(summary);
    expect(table).toMatch(/spec-decode acceptance rate\s+60\.0 %/);
    expect(table).toMatch(/spec-decode mean accepted length\s+2\.80/);
    expect(table).toMatch(/spec-decode acceptance by position\s+0: 90\.0 % · 1: 60\.0 % · 2: 30\.0 %/);
    expect(renderRunMarkdown(summary)).toContain('0: 90.0 % · 1: 60.0 % · 2: 30.0 %');
    // server-metrics.jsonl keeps the per-position counters: a rebuilt summary has the same figures.
    const rebuilt = await rebuildSummary(join(work, 'spec'));
    expect(rebuilt.summary.server?.specAcceptanceRateByPosition).toEqual(byPosition);
    // The catalogue reads the same figures (gate, compare, report).
    expect(metric('spec_acceptance_rate')!.read(summary)).toBe(server.specAcceptanceRate);
    expect(metric('spec_mean_accepted_length')!.read(summary)).toBe(server.specMeanAcceptedLength);
  });
});
