// Store benchmark: a month of 5-minute rounds for one target (10 requests × 32 output tokens
// per round, realistic latency spread) must stay under 2 MB, and a week's exact p99 (recomputed
// from the week's merged histograms) must read in under half a second.
// Run: npm run build && node bench/store.bench.mjs
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreHistogram, WatchStore } from '../dist/store/index.js';
import { createRng } from '../dist/workload/index.js';

const ROUND_MS = 5 * 60_000;
const ROUNDS = 30 * 24 * 12; // a month
const REQUESTS = 10;
const OUTPUT_TOKENS = 32;
const dir = mkdtempSync(join(tmpdir(), 'goodput-store-bench-'));
const path = join(dir, 'goodput.db');
const store = WatchStore.open(path);
store.targetId('prod', 'https://llm.example.com', 'meta-llama/Llama-3.1-8B-Instruct');
const rng = createRng('store-bench');
const logNormal = (median, sigma) => median * Math.exp(sigma * rng.normal());
const t0 = Date.UTC(2025, 0, 1);
const all = [];
const write = store.db.transaction((from, to) => {
  for (let k = from; k < to; k++) {
    const h = {
      ttft: new StoreHistogram(),
      tpot: new StoreHistogram(),
      itl: new StoreHistogram(),
      e2el: new StoreHistogram(),
    };
    const slow = k % 500 < 20 ? 3 : 1; // an incident now and then
    let good = 0;
    for (let r = 0; r < REQUESTS; r++) {
      const ttft = logNormal(120 * slow, 0.35);
      let e2el = ttft;
      for (let i = 1; i < OUTPUT_TOKENS; i++) {
        const gap = logNormal(12 * slow, 0.15);
        h.itl.record(gap);
        e2el += gap;
      }
      h.ttft.record(ttft);
      h.tpot.record((e2el - ttft) / (OUTPUT_TOKENS - 1));
      h.e2el.record(e2el);
      if (ttft < 500) good++;
      if (k >= ROUNDS - 7 * 24 * 12) all.push(ttft);
    }
    store.addRound({
      target: 'prod',
      round: k + 1,
      startedAt: t0 + k * ROUND_MS + Math.round(rng.next() * 30_000),
      durationMs: 900,
      valid: true,
      attempted: REQUESTS,
      completed: REQUESTS,
      failed: 0,
      good,
      outputTokens: REQUESTS * OUTPUT_TOKENS,
      proberLagMs: 1.2,
      errors: {},
      histograms: h,
    });
  }
});
for (let k = 0; k < ROUNDS; k += 1000) write(k, Math.min(ROUNDS, k + 1000));
store.db.pragma('wal_checkpoint(TRUNCATE)');
store.db.exec('VACUUM');
store.close();
const bytes = statSync(path).size;

const reader = WatchStore.open(path, { readonly: true });
const weekFrom = t0 + (ROUNDS - 7 * 24 * 12) * ROUND_MS;
// warm once, then time the best of three
reader.windows(7 * 24 * 3_600_000, { target: 'prod', since: weekFrom });
let best = Number.POSITIVE_INFINITY;
let p99 = 0;
for (let i = 0; i < 3; i++) {
  const start = performance.now();
  const week = new StoreHistogram();
  for (const r of reader.rounds({ target: 'prod', since: weekFrom })) week.merge(r.histograms.ttft);
  p99 = week.percentile(99);
  best = Math.min(best, performance.now() - start);
}
reader.close();
all.sort((a, b) => a - b);
const exact = all[Math.ceil(0.99 * all.length) - 1];
console.log(
  `store size, a month of 5-min rounds (${ROUNDS} rounds): ${(bytes / 1e6).toFixed(2)} MB (${Math.round(bytes / ROUNDS)} B/round); target < 2 MB: ratio ${(bytes / 2e6).toFixed(2)}`,
);
console.log(`week exact p99 read: ${best.toFixed(0)} ms; target < 500 ms: ratio ${(best / 500).toFixed(2)}`);
console.log(
  `week ttft p99 from merged histograms ${p99.toFixed(2)} ms vs exact nearest-rank ${exact.toFixed(2)} ms (${(((p99 - exact) / exact) * 100).toFixed(3)} %)`,
);
rmSync(dir, { recursive: true, force: true });
if (bytes >= 2e6 || best >= 500) process.exitCode = 1;
