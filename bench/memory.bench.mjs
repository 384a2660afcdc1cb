/**
 * Memory: RSS after 100,000 requests must be at most 1.5× the RSS after 10,000, because
 * records stream to requests.jsonl and aggregates are fixed-size histograms.
 *
 * The whole `goodput run` path (option parsing, runBenchmark, client, JSONL writer,
 * accumulator) runs against a zero-delay loopback server of the bench's own, at
 * concurrency 64. RSS is read after a forced GC (node --expose-gc, as bench/run.mjs starts it).
 *
 * Prints: memory: rss@10k … MB, rss@100k … MB, ratio … (target ≤ 1.5)
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../dist/cli/commands/run.js';
import { resolveBenchmarkConfig } from '../dist/cli/options.js';
import { parseArgv } from '../dist/cli/parse.js';
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
const server = createServer((req, res) => {
  if (req.url === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":[{"id":"bench-model"}]}');
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}`;

const out = mkdtempSync(join(tmpdir(), 'goodput-memory-bench-'));
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
  '--no-server-metrics',
  '--out',
  out,
]);
const config = await resolveBenchmarkConfig(args, {}, process.cwd());

const rssMb = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};

let measured = 0;
let rssEarly = 0;
const started = performance.now();
const { summary } = await runBenchmark(config, {
  cwd: out,
  quiet: true,
  onRecord: (r) => {
    if (r.warmup) return;
    measured++;
    if (measured === EARLY) rssEarly = rssMb();
  },
});
const rssLate = rssMb();
const seconds = (performance.now() - started) / 1000;
server.closeAllConnections();
server.close();
rmSync(out, { recursive: true, force: true });

const ratio = rssLate / rssEarly;
console.log(
  `memory: ${summary.completed}/${TOTAL} requests ok in ${seconds.toFixed(1)}s ` +
    `(${(TOTAL / seconds).toFixed(0)} req/s); rss@${EARLY / 1000}k ${rssEarly.toFixed(1)} MB, ` +
    `rss@${TOTAL / 1000}k ${rssLate.toFixed(1)} MB`,
);
console.log(
  `memory ratio rss@${TOTAL / 1000}k / rss@${EARLY / 1000}k: ${ratio.toFixed(2)} (target ≤ ${TARGET_RATIO})`,
);
if (summary.completed !== TOTAL) {
  console.log(
    `FAIL: ${TOTAL - summary.completed} requests failed: ${JSON.stringify(summary.errors.slice(0, 3))}`,
  );
  process.exit(1);
}
if (!(ratio <= TARGET_RATIO)) {
  console.log('FAIL: memory grows with the number of requests');
  process.exit(1);
}
