/**
 * Client timing accuracy: against a paced server of the bench's own (child process; first
 * chunk 100 ms after the request arrived, then one chunk every 20 ms) that records when it
 * wrote each chunk, compare per request the TTFT and per chunk the ITL measured by goodput's
 * client and by a minimal raw reader with the server's own record, at concurrency 1, 100
 * and 300. Connections are opened before the clock starts.
 *
 * Errors are differences of durations, each on one process's clock:
 * TTFT error = (first chunk − sent) on the client − (first write − request arrival) on the server;
 * ITL error = |client gap − server gap| for each pair of consecutive chunks.
 *
 * This machine is noisy: the readers run in alternating rounds (goodput, raw, raw, goodput, …)
 * and each figure is the median over rounds, so a burst of outside load hits both alike.
 *
 * Targets: goodput's error ≤ raw + 1 ms at p50 and ≤ raw + 3 ms at p99; at 300, goodput's median
 * ITL within 1 ms of the server's median gap.
 */
import { performance } from 'node:perf_hooks';
import { createClient } from '../dist/client/index.js';
import { benchBody, benchClient, benchItem, closedLoop, percentile } from './lib/load.mjs';
import { createRawReader } from './lib/raw-reader.mjs';
import { startStreamServer } from './lib/stream-server.mjs';

const CHUNKS = 20;
const TTFT_MS = 100;
const GAP_MS = 20;
const ROUNDS = Number(process.env.GOODPUT_BENCH_ROUNDS ?? 3);
const clock = { now: () => performance.now() };

/** Median over rounds of each figure. */
function medianOf(runs) {
  const out = {};
  for (const key of Object.keys(runs[0]))
    out[key] = percentile(
      runs.map((r) => r[key]),
      50,
    );
  return out;
}

/** Errors of one run against the server's record: per-request TTFT, per-gap ITL. */
function errors(samples, truth) {
  const ttft = [];
  const itl = [];
  const clientGaps = [];
  const serverGaps = [];
  for (const { id, sent, chunks } of samples) {
    const t = truth.get(id);
    if (!t || chunks.length !== t.writes.length) throw new Error(`request ${id}: no matching server record`);
    ttft.push(chunks[0] - sent - (t.writes[0] - t.recv));
    for (let k = 1; k < chunks.length; k++) {
      const c = chunks[k] - chunks[k - 1];
      const s = t.writes[k] - t.writes[k - 1];
      clientGaps.push(c);
      serverGaps.push(s);
      itl.push(Math.abs(c - s));
    }
  }
  return {
    ttftP50: percentile(ttft, 50),
    ttftP99: percentile(ttft, 99),
    itlP50: percentile(itl, 50),
    itlP99: percentile(itl, 99),
    itlMedianClient: percentile(clientGaps, 50),
    itlMedianServer: percentile(serverGaps, 50),
  };
}

async function runGoodput(server, concurrency, total) {
  const client = benchClient(createClient, server.url, concurrency, CHUNKS, clock);
  await client.warmup(concurrency);
  await server.records();
  const records = await closedLoop(concurrency, total, (i) =>
    client.send(benchItem(i, `g${concurrency}-${i}`, CHUNKS), { scheduledMs: clock.now() }),
  );
  await client.close();
  const bad = records.find((r) => r.outcome !== 'success' || r.connectMs !== undefined);
  if (bad) throw new Error(`goodput: request ${bad.id} ${bad.outcome} ${JSON.stringify(bad.error ?? {})}`);
  const samples = records.map((r) => ({ id: r.id.slice(0), sent: r.sentMs, chunks: r.chunkMs }));
  return errors(samples, await server.records());
}

async function runRaw(server, concurrency, total) {
  const raw = createRawReader(server.url, concurrency);
  await raw.warmup(concurrency);
  await server.records();
  const samples = await closedLoop(concurrency, total, async (i) => {
    const id = `r${concurrency}-${i}`;
    return { id, ...(await raw.send(benchBody(id, CHUNKS))) };
  });
  await raw.close();
  return errors(samples, await server.records());
}

const server = await startStreamServer({ mode: 'paced', chunks: CHUNKS, ttftMs: TTFT_MS, gapMs: GAP_MS });
let missed = false;
const f = (x) => x.toFixed(2).padStart(6);
try {
  console.log(`server: TTFT ${TTFT_MS} ms, then ${CHUNKS - 1} gaps of ${GAP_MS} ms; errors in ms`);
  // An untimed pass of each reader first: the first requests through a cold JIT are slow.
  await runGoodput(server, 8, 16);
  await runRaw(server, 8, 16);
  console.log('  conc | reader  | TTFT err p50  p99 | ITL |err| p50  p99 | ITL median client / server');
  for (const concurrency of [1, 100, 300]) {
    const total = concurrency === 1 ? 6 : concurrency;
    const gRuns = [];
    const rRuns = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        gRuns.push(await runGoodput(server, concurrency, total));
        rRuns.push(await runRaw(server, concurrency, total));
      } else {
        rRuns.push(await runRaw(server, concurrency, total));
        gRuns.push(await runGoodput(server, concurrency, total));
      }
    }
    const g = medianOf(gRuns);
    const r = medianOf(rRuns);
    for (const [name, e] of [
      ['goodput', g],
      ['raw', r],
    ]) {
      console.log(
        `  ${String(concurrency).padStart(4)} | ${name.padEnd(7)} |    ${f(e.ttftP50)} ${f(e.ttftP99)} |      ${f(e.itlP50)} ${f(e.itlP99)} | ${f(e.itlMedianClient)} / ${f(e.itlMedianServer)}`,
      );
    }
    const checks = [
      ['TTFT p50', g.ttftP50 <= r.ttftP50 + 1],
      ['TTFT p99', g.ttftP99 <= r.ttftP99 + 3],
      ['ITL p50', g.itlP50 <= r.itlP50 + 1],
      ['ITL p99', g.itlP99 <= r.itlP99 + 3],
    ];
    if (concurrency === 300)
      checks.push(['ITL median within 1 ms of truth', Math.abs(g.itlMedianClient - g.itlMedianServer) <= 1]);
    const failedChecks = checks.filter(([, ok]) => !ok).map(([name]) => name);
    missed ||= failedChecks.length > 0;
    console.log(
      `client timing error (goodput - raw) @${concurrency}: TTFT p50 ${(g.ttftP50 - r.ttftP50).toFixed(2)} ms, p99 ${(g.ttftP99 - r.ttftP99).toFixed(2)} ms; ` +
        `ITL p50 ${(g.itlP50 - r.itlP50).toFixed(2)} ms, p99 ${(g.itlP99 - r.itlP99).toFixed(2)} ms ` +
        `(${failedChecks.length === 0 ? 'targets met' : `MISSED: ${failedChecks.join(', ')}`})`,
    );
  }
} finally {
  await server.close();
}
if (missed) process.exitCode = 1;
