/**
 * High-rate pacing: an open-loop run at 2,000 req/s for 10 s (Poisson arrivals) against a
 * zero-delay loopback server of the bench's own (child process, `burst` mode, short
 * responses). Reads the run's own summary: the dispatch lag p99 (sent − scheduled of every
 * measured send) must be ≤ 1 ms and the achieved send rate within 1 % of the requested one.
 * The achieved rate is the measured requests sent over the span of their schedule
 * (requests / (last scheduled − first scheduled)), so it is the rate of the arrival process
 * the client actually produced, not its random draw.
 *
 * It also prints where the late sends (over 1 ms) come from: how many were due during one of the
 * process's garbage-collection pauses (a PerformanceObserver of 'gc' entries, placed on the
 * run's clock through the records' completion times) and, on Linux, how often the kernel took
 * the CPU from the main thread during the run.
 *
 * Env: GOODPUT_BENCH_RATE (default 2000), GOODPUT_BENCH_SECONDS (default 10),
 * GOODPUT_BENCH_WARMUP (warmup requests, default 1000), GOODPUT_BENCH_REALTIME (a SCHED_FIFO
 * priority, 1–99, for the main thread alone, set with util-linux `chrt`; needs root or
 * CAP_SYS_NICE). The last one is a diagnosis, not a setting of goodput's: it shows how much of
 * the lag is the kernel handing the CPU to other threads (the server's, V8's) rather than the
 * client's own work. V8 flags go on node's command line, e.g.
 * `GOODPUT_BENCH_REALTIME=10 node --single-threaded-gc --no-allocation-site-pretenuring
 * --max-semi-space-size=8 bench/open-loop-pacing.bench.mjs`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { benchmarkConfig, runBenchmark } from '../dist/index.js';
import { startStreamServer } from './lib/stream-server.mjs';

const RATE = Number(process.env.GOODPUT_BENCH_RATE ?? 2000);
const SECONDS = Number(process.env.GOODPUT_BENCH_SECONDS ?? 10);
const LAG_P99_MS = 1;
const RATE_TOLERANCE = 0.01;
const WARMUP = Number(process.env.GOODPUT_BENCH_WARMUP ?? 1000);

const server = await startStreamServer({ mode: 'burst', chunks: 4, splits: 1 });
const realtime = process.env.GOODPUT_BENCH_REALTIME;
if (realtime) {
  // After the server's child process is spawned, so that it keeps the normal policy.
  try {
    execFileSync('chrt', ['-f', '-p', realtime, String(process.pid)], { stdio: 'pipe' });
    console.log(`  main thread at SCHED_FIFO priority ${realtime}`);
  } catch (e) {
    console.log(`  GOODPUT_BENCH_REALTIME ignored: chrt failed (${String(e.stderr ?? e.message).trim()})`);
  }
}
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
  const pauses = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ startMs: e.startTime, durationMs: e.duration });
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  // performance.now() − run clock: a record is handed over just after its endMs, so the least
  // difference seen places the run's clock on performance.now() within microseconds.
  let clockOffset = Number.POSITIVE_INFINITY;
  const onRecord = (r) => {
    clockOffset = Math.min(clockOffset, performance.now() - r.endMs);
  };
  const switches0 = involuntarySwitches();
  const { summary, dir } = await runBenchmark(config, { cwd, quiet: true, onRecord });
  const switches = involuntarySwitches() - switches0;
  gcObserver.disconnect();
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
  // Where the late sends come from.
  const first = Math.min(...records.map((r) => r.scheduledMs));
  const last = Math.max(...records.map((r) => r.scheduledMs));
  const measuredPauses = pauses
    .map((p) => ({ startMs: p.startMs - clockOffset, durationMs: p.durationMs }))
    .filter((p) => p.startMs + p.durationMs >= first && p.startMs <= last);
  const late = records.filter((r) => (r.firstSentMs ?? r.sentMs) - r.scheduledMs > LAG_P99_MS);
  const duringGc = late.filter((r) =>
    measuredPauses.some(
      (p) => r.scheduledMs >= p.startMs - LAG_P99_MS && r.scheduledMs <= p.startMs + p.durationMs,
    ),
  ).length;
  const pauseTotal = measuredPauses.reduce((a, p) => a + p.durationMs, 0);
  const pauseMax = Math.max(0, ...measuredPauses.map((p) => p.durationMs));
  console.log(
    `  late by over ${LAG_P99_MS} ms: ${late.length} sends (${((100 * late.length) / records.length).toFixed(2)} %), ${duringGc} of them due during a GC pause; GC in the measured phase: ${measuredPauses.length} pauses, ${pauseTotal.toFixed(0)} ms in all, longest ${pauseMax.toFixed(1)} ms${switches === undefined ? '' : `; main thread preempted ${switches} times during the run`}`,
  );
  failed = !lagOk || !rateOk;
} finally {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;

/** The main thread's involuntary context switches so far (Linux), else undefined. */
function involuntarySwitches() {
  try {
    const status = readFileSync(`/proc/self/task/${process.pid}/status`, 'utf8');
    const m = /^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
