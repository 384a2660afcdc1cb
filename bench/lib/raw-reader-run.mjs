/**
 * The raw reader's closed loop as a process of its own, for benches that compare whole
 * processes (peak RSS): `node raw-reader-run.mjs URL CONCURRENCY TOTAL MAX_TOKENS` opens
 * CONCURRENCY connections, keeps CONCURRENCY requests in flight until TOTAL are done, and
 * prints one JSON line: { requests, chunks, seconds, peakMb } (peakMb: this process's
 * maxRSS).
 *
 * @module
 */
import { benchBody, closedLoop } from './load.mjs';
import { createRawReader } from './raw-reader.mjs';

const [url, concurrency, total, maxTokens] = process.argv.slice(2);
const c = Number(concurrency);
const n = Number(total);
const reader = createRawReader(url, c);
await reader.warmup(c);
const started = performance.now();
const results = await closedLoop(c, n, (i) => reader.send(benchBody(`raw-${i}`, Number(maxTokens))));
const seconds = (performance.now() - started) / 1000;
await reader.close();
const chunks = results.reduce((sum, r) => sum + r.chunks.length, 0);
console.log(
  JSON.stringify({
    requests: results.length,
    chunks,
    seconds,
    peakMb: process.resourceUsage().maxRSS / 1024,
  }),
);
