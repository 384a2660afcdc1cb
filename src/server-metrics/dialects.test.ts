/**
 * The dialects of TensorRT-LLM, Triton, NVIDIA Dynamo and vLLM's renamed metrics, each
 * normalised from a fixture written from the engine's documented names (see each fixture's
 * header and dialects.ts), and the engine told from its names; trtllm-serve's metrics found at
 * /prometheus/metrics on a loopback server that speaks as trtllm-serve does.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerSample } from '../types.js';
import { chooseMetricsUrl } from './choose.js';
import { detectEngine, normalizeExposition } from './normalize.js';
import { parsePrometheusText } from './parse.js';
import { summarizeServer } from './summarize.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const normalize = (text: string) => normalizeExposition(parsePrometheusText(text));

describe('dialects from their fixtures', () => {
  it('TensorRT-LLM (trtllm-serve): gauges, token counters, cached prompt tokens, KV layout, spec decoding', () => {
    const { engine, values } = normalize(fixture('trtllm.prom'));
    expect(engine).toBe('trtllm');
    expect(values).toEqual({
      running: 48,
      waiting: 6,
      kvUsage: 0.625,
      promptTokensTotal: 204800,
      generationTokensTotal: 51200,
      prefixCacheQueriesTotal: 204800,
      prefixCacheHitsTotal: 51200,
      serverTtftSecondsSum: 24,
      serverTtftCount: 200,
      serverItlSecondsSum: 3.2,
      serverItlCount: 200,
      blockSize: 32,
      numBlocks: 4096,
      specDraftTokensTotal: 9000,
      specAcceptedTokensTotal: 6300,
    });
  });

  it('TensorRT-LLM through Dynamo 0.7 (`trtllm:`), KV usage from used / max blocks when the ratio is absent', () => {
    const text = fixture('trtllm.prom')
      .split('\n')
      .filter((l) => !l.includes('kv_cache_utilization'))
      .join('\n')
      .replaceAll('trtllm_', 'trtllm:');
    const { engine, values } = normalize(text);
    expect(engine).toBe('trtllm');
    expect(values.kvUsage).toBe(2560 / 4096);
    expect(values.running).toBe(48);
  });

  it('Triton with the TensorRT-LLM backend: figures by label, token totals from the length histograms', () => {
    const { engine, values } = normalize(fixture('triton.prom'));
    expect(engine).toBe('triton');
    expect(values).toEqual({
      running: 30,
      waiting: 5,
      kvUsage: 1560 / 6240,
      promptTokensTotal: 256000,
      generationTokensTotal: 64000,
      blockSize: 64,
      numBlocks: 6240,
      gpuPowerW: 612.4,
    });
  });

  it('Triton without LLM metrics: the pending request count is the queue, its GPU power kept, nothing guessed', () => {
    const text = fixture('triton.prom')
      .split('\n')
      .filter((l) => !/nv_trt_llm_|nv_llm_/.test(l))
      .join('\n');
    const { engine, values } = normalize(text);
    expect(engine).toBe('triton');
    expect(values).toEqual({ waiting: 3, gpuPowerW: 612.4 });
  });

  it('NVIDIA Dynamo: the frontend’s requests, tokens and latencies, the workers’ KV statistics', () => {
    const { engine, values } = normalize(fixture('dynamo-frontend.prom'));
    expect(engine).toBe('dynamo');
    expect(values).toEqual({
      running: 40,
      waiting: 9,
      kvUsage: 0.4,
      promptTokensTotal: 409600,
      generationTokensTotal: 51400,
      prefixCacheQueriesTotal: 409600,
      prefixCacheHitsTotal: 102400,
      serverTtftSecondsSum: 60,
      serverTtftCount: 400,
      serverItlSecondsSum: 765,
      serverItlCount: 51000,
      blockSize: 16,
      numBlocks: 16384,
    });
  });

  it('vLLM in a renaming window: the new names win over the deprecated ones beside them', () => {
    const { engine, values } = normalize(fixture('vllm-v1-transition.prom'));
    expect(engine).toBe('vllm');
    expect(values).toEqual({
      running: 8,
      waiting: 1,
      kvUsage: 0.42,
      prefixCacheQueriesTotal: 1000,
      prefixCacheHitsTotal: 250,
      serverItlSecondsSum: 8,
      serverItlCount: 400,
    });
  });

  it('summarised over a run, a new dialect gives the server block its figures', () => {
    const at = (tMs: number, text: string): ServerSample => ({ tMs, ...normalize(text) });
    const later = fixture('trtllm.prom')
      .replace(/prompt_tokens_total\{(.*)\} 204800.0/, 'prompt_tokens_total{$1} 214800.0')
      .replace(/prompt_cached_tokens_total\{(.*)\} 51200.0/, 'prompt_cached_tokens_total{$1} 53700.0')
      .replace(/generation_tokens_total\{(.*)\} 51200.0/, 'generation_tokens_total{$1} 55200.0');
    const summary = summarizeServer([at(0, fixture('trtllm.prom')), at(10_000, later)], {
      metricsUrl: 'http://127.0.0.1:1/prometheus/metrics',
    });
    expect(summary.engine).toBe('trtllm');
    expect(summary.prefixCacheHitRate).toBeCloseTo(2500 / 10000, 9);
    expect(summary.generatedTokens).toBe(4000);
  });
});

describe('detectEngine', () => {
  const names = (...list: string[]) => list.map((name) => ({ name, labels: {}, value: 1 }));
  it.each([
    [['trtllm_num_requests_running'], 'trtllm'],
    [['trtllm:num_requests_running'], 'trtllm'],
    [['nv_inference_request_success'], 'triton'],
    [['nv_trt_llm_request_metrics'], 'triton'],
    [['dynamo_frontend_inflight_requests'], 'dynamo'],
    [['dynamo_component_kvstats_total_blocks'], 'dynamo'],
    // A Dynamo worker passes its engine's metrics through: the engine's own names say more.
    [['dynamo_component_uptime_seconds', 'vllm:num_requests_running'], 'vllm'],
    [['dynamo_component_uptime_seconds', 'trtllm_num_requests_running'], 'trtllm'],
    // Triton serving vLLM exposes vLLM's names beside its own: the first engine named wins.
    [['vllm:num_requests_running', 'nv_inference_request_success'], 'vllm'],
    [['nv_gpu_utilization', 'process_cpu_seconds_total'], 'unknown'],
  ] as const)('%j → %s', (list, engine) => {
    expect(detectEngine(names(...list))).toBe(engine);
  });
});

describe('trtllm-serve: the default metrics path', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('a server whose /metrics is JSON is scraped at /prometheus/metrics when that page is TensorRT-LLM’s', async () => {
    const page = fixture('trtllm.prom');
    const server = createServer((req, res) => {
      if (req.url === '/prometheus/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        res.end(page);
      } else if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[{"iter": 12, "numActiveRequests": 3}]');
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    close = () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const chosen = await chooseMetricsUrl({ enabled: true }, `${base}/v1`);
    expect(chosen.url).toBe(`${base}/prometheus/metrics`);
    expect(chosen.baseline?.engine).toBe('trtllm');
    expect(chosen.baseline?.values.running).toBe(48);
  });
});
