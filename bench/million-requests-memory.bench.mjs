/**
 * RSS through a 1,000,000-request closed-loop run (issue 30: flat after warm-up, every sample
 * from 10 % to 100 % of the run within 10 % of each other). The run is the embedded engine
 * in virtual time (`--time virtual`: the whole `goodput run` path — workload, client records,
 * requests.jsonl, the accumulator's histograms — without sockets; a live loopback run does
 * about 1,200 requests/s here, 14 minutes for a million), at concurrency 64, 32 prompt tokens,
 * 4 output tokens.
 *
 * Samples RSS (and the JS heap in use) after a forced GC at every 1 % of the requests
 * (node --expose-gc, as bench/run.mjs starts it) and takes the median of each tenth of the run
 * from 10 % on (10–19 %, 20–29 %, …, 90–100 %). One sample per tenth moved by up to 44 %
 * from one to the next with the JS heap in use flat within 2 % (V8's committed heap 51–65 MB,
 * the memory outside it 57–94 MB: a lone sample lands wherever the heap's and the allocator's
 * give-back stand); a leak lifts every sample of a tenth, and so its median. Prints each
 * tenth's median, least and largest, and fails when the largest median from 10 % on is more
 * than 1.1× the smallest.
 * MILLION_BENCH_REQUESTS=N runs N instead.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../dist/cli/commands/run.js';
import { parseArgv, resolveBenchmarkConfig } from '../dist/flags/index.js';
import { runBenchmark } from '../dist/runner/index.js';

const TOTAL = Number(process.env.MILLION_BENCH_REQUESTS ?? 1_000_000);
const TARGET = 1.1;
const out = mkdtempSync(join(tmpdir(), 'goodput-million-bench-'));
const args = parseArgv(runCommand, [
  '--time',
  'virtual',
  '--requests',
  String(TOTAL),
  '--concurrency',
  '64',
  '--prompt-tokens',
  '32',
  '--max-tokens',
  '4',
  '--seed',
  '1',
  '--out',
  out,
]);
const config = await resolveBenchmarkConfig(args, {}, process.cwd());
const read = () => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20 };
};

const samples = [];
let measured = 0;
const step = TOTAL / 100;
const started = performance.now();
let summary;
try {
  ({ summary } = await runBenchmark(config, {
    cwd: out,
    quiet: true,
    onRecord: (r) => {
      if (r.warmup) return;
      measured++;
      if (measured % step === 0) samples.push({ at: Math.round(measured / step), ...read() });
    },
  }));
} finally {
  rmSync(out, { recursive: true, force: true });
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `${cpus().length} cores; ${summary.completed}/${TOTAL} requests ok in ${seconds.toFixed(0)} s of wall time (embedded engine, virtual time, c=64)`,
);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Tenths of the run from 10 % on: 10–19 %, …, 80–89 %, and 90–100 % (the last sample with them). */
const tenths = [];
for (let k = 1; k <= 9; k++) {
  const of = samples.filter((s) => s.at >= 10 * k && (k === 9 ? s.at <= 100 : s.at < 10 * (k + 1)));
  if (of.length === 0) continue;
  const rss = of.map((s) => s.rss);
  tenths.push({
    from: 10 * k,
    n: of.length,
    rss: median(rss),
    least: Math.min(...rss),
    most: Math.max(...rss),
    heap: median(of.map((s) => s.heap)),
  });
}
for (const t of tenths) {
  console.log(
    `     ${String(t.from).padStart(3)} % on (${t.n} samples)  rss median ${t.rss.toFixed(1).padStart(6)} MB (${t.least.toFixed(1)}–${t.most.toFixed(1)})  heap in use ${t.heap.toFixed(1).padStart(5)} MB`,
  );
}
const rss = tenths.map((t) => t.rss);
const ratio = Math.max(...rss) / Math.min(...rss);
const heaps = tenths.map((t) => t.heap);
const ok = samples.length === 100 && tenths.length === 9 && ratio <= TARGET;
console.log(
  `${ok ? 'ok  ' : 'FAIL'} rss from 10 % to 100 % (medians of each tenth): max/min ${ratio.toFixed(3)} (target ≤ ${TARGET}); heap in use max/min ${(Math.max(...heaps) / Math.min(...heaps)).toFixed(3)}`,
);
process.exit(ok ? 0 : 1);
