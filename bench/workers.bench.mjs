/**
 * Load workers (`--workers 2`) against one worker: the whole `goodput run` path (dist)
 * against a zero-delay loopback server of the bench's own (child process, `burst` mode, 100
 * chunks per response), closed loop at concurrency 64. Prints the client CPU per chunk
 * ratio (2 workers ÷ 1, target ≤ 1.10: splitting costs no more per chunk) and the chunks/s
 * ratio (target ≥ 1.8 on a machine with ≥ 4 cores; on fewer cores the server and both
 * workers share them, so that assertion is skipped with a message).
 *
 * Steady state only: CPU (process.cpuUsage covers every thread of the process) and time are
 * taken from the first measured record (after a warmup that also loads each worker's
 * tokenizer) to the end of the run. Runs alternate in pairs; the ratios are medians. Each pair
 * also runs the two workers on one thread (GOODPUT_WORKER_THREADS=0: the same split and
 * messages), printed but not asserted, to tell the threads' cost from the split's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchmarkConfig, runBenchmark } from '../dist/index.js';
import { percentile } from './lib/load.mjs';
import { startStreamServer } from './lib/stream-server.mjs';

const CHUNKS = 100;
const CONCURRENCY = 64;
const REQUESTS = Number(process.env.GOODPUT_BENCH_REQUESTS ?? 3000);
const PAIRS = Number(process.env.GOODPUT_BENCH_ROUNDS ?? 3);
const CPU_TARGET = 1.1;
const SCALE_TARGET = 1.8;
const cores = availableParallelism();

const server = await startStreamServer({ mode: 'burst', chunks: CHUNKS, splits: 4 });
const cwd = mkdtempSync(join(tmpdir(), 'goodput-workers-bench-'));
let runs = 0;

async function measure(workers, { threads = true } = {}) {
  if (threads) delete process.env.GOODPUT_WORKER_THREADS;
  else process.env.GOODPUT_WORKER_THREADS = '0';
  let cpu0;
  let t0;
  let chunks = 0;
  const { summary } = await runBenchmark(
    benchmarkConfig({
      url: server.url,
      model: 'bench-model',
      load: { concurrency: CONCURRENCY, requests: REQUESTS, warmup: CONCURRENCY * 2, maxRetries: 0, workers },
      sampling: { maxTokens: CHUNKS },
      workload: { promptTokens: 16 },
      serverMetrics: { enabled: false },
      outDir: join(cwd, `run-${++runs}`),
    }),
    {
      cwd,
      quiet: true,
      onRecord(r) {
        if (r.warmup) return;
        if (cpu0 === undefined) {
          cpu0 = process.cpuUsage();
          t0 = performance.now();
          return;
        }
        chunks += r.chunkMs.length;
      },
    },
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  delete process.env.GOODPUT_WORKER_THREADS;
  if (summary.counts.failed > 0) throw new Error(`${summary.counts.failed} requests failed`);
  return { rate: chunks / seconds, cpuUsPerChunk: (cpu.user + cpu.system) / chunks };
}

let failed = false;
try {
  console.log(`  cores: ${cores}`);
  await measure(1); // JIT warm-up
  const pairs = [];
  for (let i = 0; i < PAIRS; i++) {
    const [one, two] = i % 2 === 0 ? [await measure(1), await measure(2)] : [null, await measure(2)];
    const first = one ?? (await measure(1));
    const inline = await measure(2, { threads: false });
    pairs.push({
      one: first,
      two,
      cpu: two.cpuUsPerChunk / first.cpuUsPerChunk,
      speed: two.rate / first.rate,
      inlineCpu: inline.cpuUsPerChunk / first.cpuUsPerChunk,
    });
    console.log(
      `  pair ${i + 1}: 1 worker ${Math.round(first.rate)} chunks/s (${first.cpuUsPerChunk.toFixed(2)} µs CPU/chunk), ` +
        `2 workers ${Math.round(two.rate)} chunks/s (${two.cpuUsPerChunk.toFixed(2)} µs CPU/chunk), ` +
        `2 workers on one thread ${Math.round(inline.rate)} chunks/s (${inline.cpuUsPerChunk.toFixed(2)} µs CPU/chunk)`,
    );
  }
  const cpu = percentile(
    pairs.map((p) => p.cpu),
    50,
  );
  const speed = percentile(
    pairs.map((p) => p.speed),
    50,
  );
  const inlineCpu = percentile(
    pairs.map((p) => p.inlineCpu),
    50,
  );
  // Not asserted: the split and the record messages without threads (GOODPUT_WORKER_THREADS=0),
  // which tells what the threads themselves cost from what splitting the load costs.
  console.log(
    `client CPU per chunk ratio (2 workers on one thread / 1): ${inlineCpu.toFixed(2)} (the split and the record messages alone)`,
  );
  const cpuOk = cpu <= CPU_TARGET;
  console.log(
    `client CPU per chunk ratio (2 workers / 1): ${cpu.toFixed(2)} (median of ${pairs.length} pairs; target <= ${CPU_TARGET}: ${cpuOk ? 'met' : 'MISSED'})`,
  );
  if (cores >= 4) {
    const speedOk = speed >= SCALE_TARGET;
    console.log(
      `chunks/s ratio (2 workers / 1): ${speed.toFixed(2)} (target >= ${SCALE_TARGET}: ${speedOk ? 'met' : 'MISSED'})`,
    );
    failed ||= !speedOk;
  } else {
    console.log(
      `chunks/s ratio (2 workers / 1): ${speed.toFixed(2)} (scaling assertion skipped: ${cores} cores < 4, the server and both workers share them)`,
    );
  }
  failed ||= !cpuOk;
} finally {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;
