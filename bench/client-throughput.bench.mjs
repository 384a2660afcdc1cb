/**
 * Client throughput: goodput's client against a minimal raw reader (undici + line split +
 * JSON.parse), side by side against a zero-delay server of the bench's own (child process),
 * at concurrency 64 and 512. Prints `client chunks/s ratio (goodput/raw) @C: X`; the target
 * is ≥ 0.9. This machine is noisy (the server shares its two cores): the readers run in
 * back-to-back pairs (order alternating) and the headline ratio is the median of the pairs'
 * ratios (single pairs swing from 0.5 to 1.9). The ratio of each reader's best round and the
 * CPU time per chunk of the client process (the server's is not in it) are printed beside, as
 * two more views of the same cost.
 */
import { performance } from 'node:perf_hooks';
import { createClient } from '../dist/client/index.js';
import { benchBody, benchClient, benchItem, closedLoop, percentile } from './lib/load.mjs';
import { createRawReader } from './lib/raw-reader.mjs';
import { startStreamServer } from './lib/stream-server.mjs';

const CHUNKS = 100;
const TARGET = 0.9;
const ROUNDS = Number(process.env.GOODPUT_BENCH_ROUNDS ?? 15);
const BUDGET_MS = 14_000;
const clock = { now: () => performance.now() };

async function measureGoodput(url, concurrency, total) {
  const client = benchClient(createClient, url, concurrency, CHUNKS, clock);
  await client.warmup(concurrency);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const records = await closedLoop(concurrency, total, (i) =>
    client.send(benchItem(i, `g-${i}`, CHUNKS), { scheduledMs: clock.now() }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await client.close();
  const failed = records.filter((r) => r.outcome !== 'success');
  if (failed.length > 0)
    throw new Error(`goodput: ${failed.length} failed, e.g. ${JSON.stringify(failed[0].error)}`);
  const chunks = records.reduce((n, r) => n + r.chunkMs.length, 0);
  return { rate: chunks / seconds, cpuUsPerChunk: (cpu.user + cpu.system) / chunks };
}

async function measureRaw(url, concurrency, total) {
  const raw = createRawReader(url, concurrency);
  await raw.warmup(concurrency);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const results = await closedLoop(concurrency, total, (i) => raw.send(benchBody(`r-${i}`, CHUNKS)));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await raw.close();
  const chunks = results.reduce((n, r) => n + r.chunks.length, 0);
  return { rate: chunks / seconds, cpuUsPerChunk: (cpu.user + cpu.system) / chunks };
}

const server = await startStreamServer({ mode: 'burst', chunks: CHUNKS, splits: 4 });
let missed = false;
try {
  for (const concurrency of [64, 512]) {
    const total = Math.max(concurrency, 192);
    // Untimed passes of each warm the JIT (the first thousand requests run slower code).
    for (let i = 0; i < 2; i++) {
      await measureRaw(server.url, concurrency, total);
      await measureGoodput(server.url, concurrency, total);
    }
    const pairs = [];
    const started = performance.now();
    // Paired rounds, order alternating: each pair runs back to back, under the same outside load.
    for (let round = 0; round < ROUNDS && (round < 3 || performance.now() - started < BUDGET_MS); round++) {
      let g;
      let r;
      if (round % 2 === 0) {
        r = await measureRaw(server.url, concurrency, total);
        g = await measureGoodput(server.url, concurrency, total);
      } else {
        g = await measureGoodput(server.url, concurrency, total);
        r = await measureRaw(server.url, concurrency, total);
      }
      pairs.push({ g, r, ratio: g.rate / r.rate, cpuRatio: r.cpuUsPerChunk / g.cpuUsPerChunk });
    }
    const pairedMedian = percentile(
      pairs.map((p) => p.ratio),
      50,
    );
    const cpuRatio = percentile(
      pairs.map((p) => p.cpuRatio),
      50,
    );
    const bestRaw = Math.max(...pairs.map((p) => p.r.rate));
    const bestGoodput = Math.max(...pairs.map((p) => p.g.rate));
    const best = {
      goodput: { cpuUsPerChunk: Math.min(...pairs.map((p) => p.g.cpuUsPerChunk)) },
      raw: { cpuUsPerChunk: Math.min(...pairs.map((p) => p.r.cpuUsPerChunk)) },
    };
    const ratio = pairedMedian;
    const ok = ratio >= TARGET;
    missed ||= !ok;
    const us = (x) => x.toFixed(2);
    console.log(
      `  @${concurrency}: goodput ${Math.round(bestGoodput)} chunks/s (${us(best.goodput.cpuUsPerChunk)} µs CPU/chunk), ` +
        `raw ${Math.round(bestRaw)} chunks/s (${us(best.raw.cpuUsPerChunk)} µs CPU/chunk)`,
    );
    console.log(
      `  @${concurrency}: ${pairs.length} paired rounds, ratios ${pairs
        .map((p) => p.ratio.toFixed(2))
        .join(' ')} (best round of each ${(bestGoodput / bestRaw).toFixed(2)}); ` +
        `chunks per CPU-second ratio (goodput/raw) ${cpuRatio.toFixed(2)}`,
    );
    console.log(
      `client chunks/s ratio (goodput/raw) @${concurrency}: ${ratio.toFixed(2)} (median of paired rounds; target >= ${TARGET}: ${ok ? 'met' : 'MISSED'})`,
    );
  }
} finally {
  await server.close();
}
if (missed) process.exitCode = 1;
