/**
 * RSS through a 1,000,000-request closed-loop run (issue 30: flat after warm-up, every sample
 * from 10 % to 100 % of the run within 10 % of each other). The run is the embedded engine
 * in virtual time (`--time virtual`: the whole `goodput run` path — workload, client records,
 * requests.jsonl, the accumulator's histograms — without sockets; a live loopback run does
 * about 1,200 requests/s here, 14 minutes for a million), at concurrency 64, 32 prompt tokens,
 * 4 output tokens.
 *
 * Samples RSS (and the JS heap in use) after a forced GC at every 10 % of the requests
 * (node --expose-gc, as bench/run.mjs starts it), prints them, and fails when the largest
 * RSS from 10 % on is more than 1.1× the smallest. MILLION_BENCH_REQUESTS=N runs N instead.
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
const step = TOTAL / 10;
const started = performance.now();
let summary;
try {
  ({ summary } = await runBenchmark(config, {
    cwd: out,
    quiet: true,
    onRecord: (r) => {
      if (r.warmup) return;
      measured++;
      if (measured % step === 0) samples.push({ at: measured, ...read() });
    },
  }));
} finally {
  rmSync(out, { recursive: true, force: true });
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `${cpus().length} cores; ${summary.completed}/${TOTAL} requests ok in ${seconds.toFixed(0)} s of wall time (embedded engine, virtual time, c=64)`,
);
for (const s of samples) {
  console.log(
    `     ${String((100 * s.at) / TOTAL).padStart(3)} %  rss ${s.rss.toFixed(1).padStart(6)} MB  heap in use ${s.heap.toFixed(1).padStart(5)} MB`,
  );
}
const rss = samples.map((s) => s.rss);
const ratio = Math.max(...rss) / Math.min(...rss);
const heaps = samples.map((s) => s.heap);
const ok = samples.length === 10 && ratio <= TARGET;
console.log(
  `${ok ? 'ok  ' : 'FAIL'} rss from 10 % to 100 %: max/min ${ratio.toFixed(3)} (target ≤ ${TARGET}); heap in use max/min ${(Math.max(...heaps) / Math.min(...heaps)).toFixed(3)}`,
);
process.exit(ok ? 0 : 1);
