/**
 * `goodput experiment --search` speed and the experiment's own cost per configuration.
 *
 * 1. A 100-configuration grid search in virtual time (max-num-seqs × max-num-batched-tokens ×
 *    chunked prefill × prefix caching on the embedded engine, 100 requests of a 768-token
 *    prompt with a shared system prompt each, concurrency 32), through the CLI as a user runs
 *    it (`goodput experiment PLAN --search grid --search-only`): target under 60 s; prints the
 *    time and configurations per second.
 * 2. The experiment's overhead per serve: configuration: start (spawn to the first healthy
 *    /health) and stop (SIGTERM to exit) of a `goodput sim --port {port}` subprocess through the
 *    experiment's own startServer, beside the server's own start (spawn to its "listening" log
 *    line, the same command spawned directly), interleaved rounds, medians, as a ratio. Reported,
 *    not asserted: most of it is Node's and the simulator's start, which the experiment waits for.
 *
 * Exits non-zero when the search misses its target. Run after `npm run build`.
 */

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../dist/experiment/index.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'main.js');
const TARGET_S = 60;
const ROUNDS = 5;
const dir = mkdtempSync(join(tmpdir(), 'goodput-bench-search-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`cores: ${availableParallelism()}`);

// 1. The search.
const plan = join(dir, 'plan.yaml');
writeFileSync(
  plan,
  `name: bench
grid:
  max-num-seqs: [16, 32, 64, 128, 256]
  max-num-batched-tokens: [1024, 2048, 4096, 8192, 16384]
  enable-chunked-prefill: [true, false]
  enable-prefix-caching: [true, false]
run:
  concurrency: 32
  requests: 100
  prompt-tokens: 512
  system-prompt-tokens: 256
  max-tokens: 64
  ignore-eos: true
  slo: ttft=300,tpot=30
`,
);
const t0 = performance.now();
const res = spawnSync(
  process.execPath,
  [BIN, 'experiment', plan, '--search', 'grid', '--search-only', '--quiet', '--out', join(dir, 'out')],
  { encoding: 'utf8' },
);
const searchS = (performance.now() - t0) / 1000;
if (res.status !== 0) {
  console.error(res.stderr);
  process.exit(1);
}
const found = JSON.parse(readFileSync(join(dir, 'out', 'search', 'search.json'), 'utf8'));
const ok = found.evaluations.length === 100 && searchS < TARGET_S;
console.log(
  `${ok ? 'ok  ' : 'FAIL'} search of ${found.evaluations.length} configurations (grid, virtual time, ${found.requests} simulated requests): ` +
    `${searchS.toFixed(1)} s wall (target < ${TARGET_S} s), ${(found.evaluations.length / searchS).toFixed(2)} configurations/s; ` +
    `the search itself ${(found.wallMs / 1000).toFixed(1)} s (${found.evaluationsPerS.toFixed(2)}/s), the rest the CLI's start and the plan`,
);
console.log(
  `     best: ${Object.entries(found.top[0].params)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')} (goodput ${found.top[0].objective.toFixed(2)} req/s)`,
);

// 2. Start, health and stop of a serve: configuration, beside the server's own start.
const serveArgv = [process.execPath, BIN, 'sim', '--port', '{port}'];
const template = {
  argv: serveArgv,
  env: {},
  cwd: dir,
  health: 'http://127.0.0.1:{port}/health',
  url: 'http://127.0.0.1:{port}',
  startupTimeoutMs: 60_000,
  stopSignal: 'SIGTERM',
  graceMs: 10_000,
};

/** Spawn → the "goodput sim: http://…" line (the server listens), then SIGTERM and wait. */
function ownStart() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'sim', '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      if (/goodput sim: http/.test(text) && !child.killed) {
        const ms = performance.now() - started;
        child.once('exit', () => resolve(ms));
        child.kill('SIGTERM');
      }
    });
    child.once('error', reject);
  });
}

async function experimentStart(i) {
  const started = performance.now();
  const server = await startServer({
    configuration: `bench-${i}`,
    template,
    params: {},
    dir,
    logPath: join(dir, `server-${i}.log`),
  });
  const healthyMs = performance.now() - started;
  const stopStarted = performance.now();
  await server.stop();
  return { healthyMs, stopMs: performance.now() - stopStarted };
}

await ownStart(); // warm the file cache
const own = [];
const exp = [];
for (let i = 0; i < ROUNDS; i++) {
  own.push(await ownStart());
  exp.push(await experimentStart(i));
}
const ownMs = median(own);
const healthyMs = median(exp.map((e) => e.healthyMs));
const stopMs = median(exp.map((e) => e.stopMs));
console.log(
  `     experiment overhead per serve: configuration (median of ${ROUNDS}): spawn→healthy ${healthyMs.toFixed(0)} ms + stop ${stopMs.toFixed(0)} ms = ${(healthyMs + stopMs).toFixed(0)} ms; ` +
    `the server's own start (spawn→listening) ${ownMs.toFixed(0)} ms; ratio ${((healthyMs + stopMs) / ownMs).toFixed(2)}× ` +
    `(${(healthyMs + stopMs - ownMs).toFixed(0)} ms beyond the server's own start: health polling and the stop)`,
);
rmSync(dir, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
