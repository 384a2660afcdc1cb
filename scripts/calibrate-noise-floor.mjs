#!/usr/bin/env node
/**
 * Calibrates compare's noise floors (src/compare/noise-floor.ts): A/A pairs of `goodput run`'s
 * default configuration on the embedded engine, live (closed loop of 8, 80 requests, 256-token
 * prompts, 128 output tokens), one after the other as a user reruns, each run with a seed of its
 * own (pair k: seeds 2k+1 and 2k+2) and a fresh engine. For every compare row it prints the
 * per-run spread (CV: std of the runs' figures over their mean; for proportions the std in
 * points) and the A/A changes (median, 95th percentile and largest |change|), and how often the
 * within-run test alone (no floor) called an A/A pair better or worse, and which pairs compare
 * (with the floors of noise-floor.ts as built in dist/) still calls better or worse.
 *
 * Usage: npm run build && node scripts/calibrate-noise-floor.mjs [--pairs 20] [--requests 80]
 *        [--concurrency 8] [--time virtual]
 * About 10 s per run live (20 pairs: ~7 minutes). Run it on an otherwise idle machine and on a
 * loaded one: the floors in noise-floor.ts take the larger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compareRuns, loadRun } from '../dist/compare/index.js';
import { benchmarkConfig, runBenchmark } from '../dist/index.js';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '20' },
    requests: { type: 'string', default: '80' },
    concurrency: { type: 'string', default: '8' },
    time: { type: 'string', default: 'live' },
  },
});
const pairs = Number(values.pairs);
const work = mkdtempSync(join(tmpdir(), 'goodput-noise-'));

async function oneRun(seed) {
  const config = benchmarkConfig({
    seed,
    load: { concurrency: Number(values.concurrency), requests: Number(values.requests) },
    outDir: join(work, `run-${seed}`),
    sim: { timeMode: values.time === 'virtual' ? 'virtual' : 'live' },
  });
  const { dir } = await runBenchmark(config, { cwd: work, quiet: true });
  return loadRun(dir, `seed-${seed}`);
}

const pct = (v) => `${(v * 100).toFixed(1)}%`;
const perRun = new Map(); // key → figures of every run
const changes = new Map(); // key → |change| of every pair
const rejected = new Map(); // key → pairs whose within-run test (no floor) gave a verdict
const flaggedPairs = []; // pairs that compare, with the floors of noise-floor.ts, calls better or worse
const started = performance.now();
for (let k = 0; k < pairs; k++) {
  const a = await oneRun(2 * k + 1);
  const b = await oneRun(2 * k + 2);
  const report = compareRuns([a, b], { minEffect: 0, resamples: 1000 });
  for (const d of report.comparisons[0].deltas) {
    for (const v of [d.baseline, d.candidate]) if (v !== undefined) push(perRun, d.key, v);
    if (d.change !== undefined) push(changes, d.key, Math.abs(d.change));
    if (d.verdict === 'better' || d.verdict === 'worse') push(rejected, d.key, 1);
    if (!rejected.has(d.key)) rejected.set(d.key, []);
  }
  const floored = compareRuns([a, b], { resamples: 1000 }).comparisons[0].deltas.filter(
    (d) => d.verdict === 'better' || d.verdict === 'worse',
  );
  if (floored.length > 0)
    flaggedPairs.push(
      `pair ${k + 1}: ${floored.map((d) => `${d.key} ${d.verdict} ${pct(d.change)}`).join(', ')}`,
    );
  process.stderr.write(`pair ${k + 1}/${pairs} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
}
rmSync(work, { recursive: true, force: true });

function push(map, key, v) {
  if (!map.has(key)) map.set(key, []);
  map.get(key).push(v);
}
function quantile(xs, q) {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? Number.NaN;
}
function spread(xs) {
  const m = xs.reduce((s, v) => s + v, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((s, v) => s + (v - m) ** 2, 0) / Math.max(1, xs.length - 1));
  return { m, sd };
}
const points = new Set(['attainment', 'error_rate']);
console.log(
  `A/A pairs: ${pairs}, ${values.requests} requests at concurrency ${values.concurrency}, ${values.time} time, ${new Date().toISOString()}`,
);
console.log(['metric', 'per-run spread', '|Δ| p50', '|Δ| p95', '|Δ| max', 'within-run verdicts'].join('\t'));
for (const [key, xs] of perRun) {
  const { m, sd } = spread(xs);
  const ch = changes.get(key) ?? [];
  const fmt = points.has(key) ? (v) => `${(v * 100).toFixed(2)} pp` : pct;
  const per = points.has(key) ? fmt(sd) : m !== 0 ? pct(sd / Math.abs(m)) : '—';
  const hits = rejected.get(key)?.length ?? 0;
  console.log(
    [
      key,
      per,
      fmt(quantile(ch, 0.5)),
      fmt(quantile(ch, 0.95)),
      fmt(Math.max(...ch)),
      `${hits}/${pairs}`,
    ].join('\t'),
  );
}
console.log(`pairs with a better/worse verdict under the current floors: ${flaggedPairs.length}/${pairs}`);
for (const line of flaggedPairs) console.log(`  ${line}`);
