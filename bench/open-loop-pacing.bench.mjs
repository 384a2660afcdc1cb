/**
 * High-rate pacing: an open-loop run at 2,000 req/s for 10 s (Poisson arrivals) against a
 * zero-delay loopback server of the bench's own (child process, `burst` mode, short
 * responses). Reads the run's own summary: the dispatch lag p99 (sent − scheduled of every
 * measured send) must be ≤ 1 ms and the achieved send rate within 1 % of the requested one.
 * The achieved rate is the measured requests sent over the span of their schedule
 * (requests / (last scheduled − first scheduled)), so it is the rate of the arrival process
 * the client actually produced, not its random draw.
 *
 * Env: GOODPUT_BENCH_RATE (default 2000), GOODPUT_BENCH_SECONDS (default 10),
 * GOODPUT_BENCH_WARMUP (warmup requests, default 1000).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchmarkConfig, runBenchmark } from '../dist/index.js';
import { startStreamServer } from './lib/stream-server.mjs';

const RATE = Number(process.env.GOODPUT_BENCH_RATE ?? 2000);
const SECONDS = Number(process.env.GOODPUT_BENCH_SECONDS ?? 10);
const LAG_P99_MS = 1;
const RATE_TOLERANCE = 0.01;
const WARMUP = Number(process.env.GOODPUT_BENCH_WARMUP ?? 1000);

const server = await startStreamServer({ mode: 'burst', chunks: 4, splits: 1 });
const cwd = mkdtempSync(join(tmpdir(), 'goodput-pacing-'));
let failed = false;
try {
  const config = benchmarkConfig({
    url: server.url,
    model: 'bench-model',
    // A warmup first, as a serving engineer would run it: a cold process runs its first few
    // hundred requests in V8's interpreter, late by tens of milliseconds, and that start-up is
    // not pacing. (The warmup is a closed loop 64 wide, then the measured open loop starts.)
    load: { mode: 'open', rate: RATE, durationMs: SECONDS * 1000, maxRetries: 0, warmup: WARMUP },
    sampling: { maxTokens: 4 },
    workload: { promptTokens: 16 },
    serverMetrics: { enabled: false },
    outDir: join(cwd, 'run'),
  });
  const { summary, dir } = await runBenchmark(config, { cwd, quiet: true });
  const lag = summary.load.dispatchLag;
  // Sent and scheduled times of every measured request, from the run's own records.
  const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').slice(1);
  const records = lines.map((l) => JSON.parse(l)).filter((r) => !r.warmup && r.scheduledMs !== undefined);
  const sent = records.map((r) => r.firstSentMs ?? r.sentMs).sort((a, b) => a - b);
  const span = (sent[sent.length - 1] - sent[0]) / 1000;
  const achieved = (sent.length - 1) / span;
  const errors = records.filter((r) => r.outcome === 'error').length;
  const rateError = Math.abs(achieved - RATE) / RATE;
  const lagOk = lag.p99 <= LAG_P99_MS;
  const rateOk = rateError <= RATE_TOLERANCE;
  console.log(
    `  ${records.length} requests in ${span.toFixed(2)} s (${errors} errors); dispatch lag p50 ${lag.p50.toFixed(3)} ms, p99 ${lag.p99.toFixed(3)} ms, max ${lag.max.toFixed(3)} ms; client-bound ${summary.load.clientBound}`,
  );
  console.log(
    `dispatch lag p99 @${RATE} req/s: ${lag.p99.toFixed(3)} ms (target <= ${LAG_P99_MS} ms: ${lagOk ? 'met' : 'MISSED'})`,
  );
  console.log(
    `achieved/requested send rate @${RATE} req/s: ${(achieved / RATE).toFixed(4)} (${achieved.toFixed(1)} req/s; target within ${RATE_TOLERANCE * 100} %: ${rateOk ? 'met' : 'MISSED'})`,
  );
  failed = !lagOk || !rateOk;
} finally {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;
