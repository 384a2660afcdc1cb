/**
 * Peak RSS at 1,000 concurrent streams (issue 30: goodput ≤ 1.2× the raw reader's in the same
 * run). Each reader is a process of its own against one paced server of the bench's own (a
 * child process: 32 chunks, the first after 20 ms, then one every 40 ms, so the 1,000 streams
 * are open together for about 1.3 s per request): `goodput run --url … --concurrency 1000`
 * (the whole run: imports, workload, client, records to requests.jsonl, summary; node started
 * with the options the `goodput` command gives it, bench/lib/cli-node-flags.mjs) and the raw
 * reader (undici Pool + line split + JSON.parse, bench/lib/raw-reader-run.mjs), each sending
 * 2,000 requests. Peak RSS is each process's own maxRSS. The pairs run in alternating order,
 * ROUNDS of them (3 by default); the medians and their ratio are printed with the core count.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliNodeFlags } from './lib/cli-node-flags.mjs';
import { startStreamServer } from './lib/stream-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = process.env.GOODPUT_BIN ?? join(here, '..', 'dist', 'cli', 'main.js');
/** The goodput command's node options on this machine (its sh lines, run once). */
const NODE_FLAGS = cliNodeFlags();
const ROUNDS = Number(process.env.C1000_BENCH_ROUNDS ?? 3);
const CONCURRENCY = 1000;
const TOTAL = 2000;
const CHUNKS = 32;
const TARGET = 1.2;

const server = await startStreamServer({ mode: 'paced', chunks: CHUNKS, ttftMs: 20, gapMs: 40 });
const dir = mkdtempSync(join(tmpdir(), 'goodput-c1000-bench-'));
const preload = join(dir, 'peak.cjs');
writeFileSync(
  preload,
  `process.on('exit', () => require('node:fs').writeFileSync(process.env.PEAK_FILE, String(process.resourceUsage().maxRSS)));\n`,
);

function run(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(-800)}`));
      else resolve(stdout);
    });
  });
}

let n = 0;
async function goodputPeak() {
  const peakFile = join(dir, `peak-${n}`);
  const out = join(dir, `run-${n++}`);
  await run(
    [
      ...NODE_FLAGS,
      '-r',
      preload,
      BIN,
      'run',
      '--url',
      server.url,
      '--model',
      'bench-model',
      '--concurrency',
      String(CONCURRENCY),
      '--requests',
      String(TOTAL),
      '--prompt-tokens',
      '8',
      '--max-tokens',
      String(CHUNKS),
      '--no-server-metrics',
      '--progress',
      'none',
      '-o',
      out,
    ],
    { PEAK_FILE: peakFile },
  );
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  if (summary.completed !== TOTAL) throw new Error(`goodput: ${summary.completed}/${TOTAL} completed`);
  rmSync(out, { recursive: true, force: true });
  return Number(readFileSync(peakFile, 'utf8')) / 1024;
}

async function rawPeak() {
  const line = await run([
    join(here, 'lib', 'raw-reader-run.mjs'),
    server.url,
    String(CONCURRENCY),
    String(TOTAL),
    String(CHUNKS),
  ]);
  const r = JSON.parse(line.trim().split('\n').pop());
  if (r.chunks !== TOTAL * CHUNKS) throw new Error(`raw reader: ${r.chunks}/${TOTAL * CHUNKS} chunks`);
  return r.peakMb;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const peaks = { goodput: [], raw: [] };
try {
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? ['goodput', 'raw'] : ['raw', 'goodput'];
    for (const who of order) peaks[who].push(who === 'goodput' ? await goodputPeak() : await rawPeak());
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
const g = median(peaks.goodput);
const r = median(peaks.raw);
const ratio = g / r;
console.log(
  `${cpus().length} cores; c=${CONCURRENCY}, ${TOTAL} requests of ${CHUNKS} chunks each, ${ROUNDS} rounds: peak RSS goodput run ${g.toFixed(1)} MB [${peaks.goodput.map((x) => x.toFixed(0)).join(', ')}], raw reader ${r.toFixed(1)} MB [${peaks.raw.map((x) => x.toFixed(0)).join(', ')}]`,
);
const ok = ratio <= TARGET;
console.log(
  `${ok ? 'ok  ' : 'FAIL'} peak RSS at c=${CONCURRENCY}: goodput/raw ${ratio.toFixed(2)} (target ≤ ${TARGET})`,
);
process.exit(ok ? 0 : 1);
