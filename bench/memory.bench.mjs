/**
 * Memory: RSS after 100,000 requests must be at most 1.5× the RSS after 10,000, because
 * records stream to requests.jsonl and aggregates are fixed-size histograms.
 *
 * The whole `goodput run` path (option parsing, runBenchmark, client, JSONL writer,
 * accumulator) runs against a zero-delay loopback server of the bench's own, at
 * concurrency 64. A second pass turns on server-metrics scraping every 100 ms (the server
 * answers /metrics in vLLM's names, so fragmentation is derived from the client's records):
 * there the JS heap in use after GC must stay flat (≤ 1.2×); its RSS is printed too, though
 * V8 reserves more heap under the higher allocation rate without using it. RSS is read after a forced GC (node --expose-gc, as bench/run.mjs starts it).
 *
 * Prints: memory: rss@10k … MB, rss@100k … MB, ratio … (target ≤ 1.5), and the heap ratio
 * of the pass with server metrics (target ≤ 1.2).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../dist/cli/commands/run.js';
import { parseArgv, resolveBenchmarkConfig } from '../dist/flags/index.js';
import { runBenchmark } from '../dist/runner/index.js';

const TOTAL = Number(process.env.MEMORY_BENCH_REQUESTS ?? 100_000);
const EARLY = TOTAL / 10;
const TARGET_RATIO = 1.5;

// Zero-delay server: the whole response in one write.
const chunk = (delta) =>
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta }] })}\n\n`;
const body =
  chunk({ content: 'alpha ' }) +
  chunk({ content: 'beta ' }) +
  chunk({ content: 'gamma ' }) +
  chunk({ content: 'delta' }) +
  `data: ${JSON.stringify({ id: 'b', choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 32, completion_tokens: 4, total_tokens: 36 } })}\n\n` +
  'data: [DONE]\n\n';
let generated = 0;
const metricsText = () =>
  [
    '# TYPE vllm:num_requests_running gauge',
    'vllm:num_requests_running{engine="0",model_name="bench-model"} 64.0',
    'vllm:num_requests_waiting{engine="0",model_name="bench-model"} 0.0',
    'vllm:kv_cache_usage_perc{engine="0",model_name="bench-model"} 0.5',
    '# TYPE vllm:generation_tokens_total counter',
    `vllm:generation_tokens_total{engine="0",model_name="bench-model"} ${generated}.0`,
    'vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="2048"} 1.0',
    '',
  ].join('\n');
const server = createServer((req, res) => {
  if (req.url === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(metricsText());
    return;
  }
  if (req.url === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":[{"id":"bench-model"}]}');
    return;
  }
  req.resume();
  req.on('end', () => {
    generated += 4;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}`;

const HEAP_TARGET = 1.2;

/** One pass: RSS and heap in use (after GC) at EARLY and at TOTAL requests. */
async function pass(serverMetrics) {
  const out = mkdtempSync(join(tmpdir(), 'goodput-memory-bench-'));
  const flags = serverMetrics ? ['--scrape-interval', '100ms'] : ['--no-server-metrics'];
  const args = parseArgv(runCommand, [
    '--url',
    url,
    '--model',
    'bench-model',
    '--requests',
    String(TOTAL),
    '--concurrency',
    '64',
    '--prompt-tokens',
    '32',
    '--max-tokens',
    '4',
    ...flags,
    '--out',
    out,
  ]);
  const config = await resolveBenchmarkConfig(args, {}, process.cwd());
  const read = () => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20 };
  };
  let measured = 0;
  let early;
  const started = performance.now();
  const { summary } = await runBenchmark(config, {
    cwd: out,
    quiet: true,
    onRecord: (r) => {
      if (r.warmup) return;
      measured++;
      if (measured === EARLY) early = read();
    },
  });
  const late = read();
  rmSync(out, { recursive: true, force: true });
  return { summary, early, late, seconds: (performance.now() - started) / 1000 };
}

let failed = false;
const plain = await pass(false);
const ratio = plain.late.rss / plain.early.rss;
console.log(
  `memory: ${plain.summary.completed}/${TOTAL} requests ok in ${plain.seconds.toFixed(1)}s ` +
    `(${(TOTAL / plain.seconds).toFixed(0)} req/s); rss@${EARLY / 1000}k ${plain.early.rss.toFixed(1)} MB, ` +
    `rss@${TOTAL / 1000}k ${plain.late.rss.toFixed(1)} MB`,
);
console.log(
  `memory ratio rss@${TOTAL / 1000}k / rss@${EARLY / 1000}k: ${ratio.toFixed(2)} (target ≤ ${TARGET_RATIO})`,
);
if (!(ratio <= TARGET_RATIO)) {
  console.log('FAIL: memory grows with the number of requests');
  failed = true;
}

const scraped = await pass(true);
const heapRatio = scraped.late.heap / scraped.early.heap;
const sm = scraped.summary.server;
console.log(
  `with server metrics (${sm?.samples ?? 0} scrapes, fragmentation ${sm?.fragmentationSource ?? 'none'}): ` +
    `heap in use ${scraped.early.heap.toFixed(1)} → ${scraped.late.heap.toFixed(1)} MB, ratio ${heapRatio.toFixed(2)} ` +
    `(target ≤ ${HEAP_TARGET}); rss ratio ${(scraped.late.rss / scraped.early.rss).toFixed(2)}`,
);
if (sm?.fragmentationSource !== 'derived') {
  console.log('FAIL: the server metrics were not scraped, or fragmentation was not derived');
  failed = true;
}
if (!(heapRatio <= HEAP_TARGET)) {
  console.log('FAIL: heap in use grows with the number of requests when server metrics are scraped');
  failed = true;
}
for (const { summary } of [plain, scraped]) {
  if (summary.completed !== TOTAL) {
    console.log(
      `FAIL: ${TOTAL - summary.completed} requests failed: ${JSON.stringify(summary.errors.slice(0, 3))}`,
    );
    failed = true;
  }
}
server.closeAllConnections();
server.close();
if (failed) process.exit(1);
