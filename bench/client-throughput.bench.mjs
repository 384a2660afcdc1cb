/**
 * Client throughput: goodput's client against a minimal raw reader (undici + line split +
 * JSON.parse), side by side against a zero-delay server of the bench's own (child process),
 * at concurrency 64 and 512. Prints `client chunks/s ratio (goodput/raw) @C: X`; the target
 * is ≥ 0.95. This machine is noisy (the server shares its two cores): the readers run in
 * back-to-back rounds (one run of each, order rotating) and the headline ratio is the median of
 * the rounds' ratios (single rounds swing from 0.5 to 2.7). The ratio of each reader's best round and the
 * CPU time per chunk of the client process (the server's is not in it) are printed beside, as
 * two more views of the same cost.
 *
 * `--baseline OLD/dist/client/index.js` (an older build: its dist/ beside a node_modules link)
 * runs that build's client in the same rounds (order rotating over the three readers) and
 * prints its ratio to the raw reader beside; `--concurrency 64,512` picks the levels.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createClient } from '../dist/client/index.js';
import { benchBody, benchClient, benchItem, closedLoop, percentile } from './lib/load.mjs';
import { createRawReader } from './lib/raw-reader.mjs';
import { startStreamServer } from './lib/stream-server.mjs';

const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const OLD = arg('--baseline');
const oldCreateClient = OLD
  ? (await import(new URL(OLD, `file://${process.cwd()}/`).href)).createClient
  : undefined;
const LEVELS = (arg('--concurrency') ?? '64,512').split(',').map(Number);
const CHUNKS = 100;
const TARGET = 0.95;
const ROUNDS = Number(process.env.GOODPUT_BENCH_ROUNDS ?? 15);
const BUDGET_MS = 14_000;
const clock = { now: () => performance.now() };

async function measureGoodput(url, concurrency, total, factory = createClient) {
  const client = benchClient(factory, url, concurrency, CHUNKS, clock);
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
const readers = {
  goodput: (c, n) => measureGoodput(server.url, c, n),
  raw: (c, n) => measureRaw(server.url, c, n),
  ...(oldCreateClient ? { old: (c, n) => measureGoodput(server.url, c, n, oldCreateClient) } : {}),
};
const names = Object.keys(readers);
console.log(
  `${availableParallelism()} cores; readers ${names.join(', ')}${OLD ? ` (old = ${OLD})` : ''}; ${CHUNKS} chunks a request, no pacing`,
);
let missed = false;
try {
  for (const concurrency of LEVELS) {
    const total = Math.max(concurrency, 192);
    // Untimed passes of each warm the JIT (the first thousand requests run slower code).
    for (let i = 0; i < 2; i++) for (const name of names) await readers[name](concurrency, total);
    const rounds = [];
    const started = performance.now();
    // Rounds of one run per reader back to back, order rotating: each round under the same outside load.
    for (let round = 0; round < ROUNDS && (round < 3 || performance.now() - started < BUDGET_MS); round++) {
      const order = names.map((_, k) => names[(k + round) % names.length]);
      if (round % 2 === 1) order.reverse();
      const got = {};
      for (const name of order) got[name] = await readers[name](concurrency, total);
      rounds.push(got);
    }
    const median = (f) => percentile(rounds.map(f), 50);
    const ratio = median((r) => r.goodput.rate / r.raw.rate);
    const cpuRatio = median((r) => r.raw.cpuUsPerChunk / r.goodput.cpuUsPerChunk);
    const best = (name) => Math.max(...rounds.map((r) => r[name].rate));
    const leastCpu = (name) => Math.min(...rounds.map((r) => r[name].cpuUsPerChunk));
    const ok = ratio >= TARGET;
    missed ||= !ok;
    const us = (x) => x.toFixed(2);
    console.log(
      `  @${concurrency}: ${names.map((n) => `${n} ${Math.round(best(n))} chunks/s (${us(leastCpu(n))} µs CPU/chunk)`).join(', ')} (best rounds)`,
    );
    console.log(
      `  @${concurrency}: ${rounds.length} rounds, goodput/raw ${rounds
        .map((r) => (r.goodput.rate / r.raw.rate).toFixed(2))
        .join(' ')} (best round of each ${(best('goodput') / best('raw')).toFixed(2)}); ` +
        `chunks per CPU-second ratio (goodput/raw) ${cpuRatio.toFixed(2)}` +
        (oldCreateClient
          ? `; old/raw ${median((r) => r.old.rate / r.raw.rate).toFixed(2)}, old CPU ratio ${median((r) => r.raw.cpuUsPerChunk / r.old.cpuUsPerChunk).toFixed(2)}`
          : ''),
    );
    console.log(
      `client chunks/s ratio (goodput/raw) @${concurrency}: ${ratio.toFixed(2)} (median of rounds; target >= ${TARGET}: ${ok ? 'met' : 'MISSED'})`,
    );
  }
} finally {
  await server.close();
}
if (missed) process.exitCode = 1;
