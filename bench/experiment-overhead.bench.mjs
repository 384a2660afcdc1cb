/**
 * The experiment's own overhead per configuration: `runExperiment` with three `goodput sim`
 * subprocess servers (one short run each), its recorded start-up (spawn → health answered) and
 * stop times, beside the server's own start time (spawn → its "listening" line on stderr,
 * measured by starting the same command directly, interleaved with the experiment's starts).
 * overhead = start-up − the server's own start: the health polling and the process-group
 * bookkeeping. The direct starts run before and after the experiment (the machine is shared: a
 * negative overhead means its load moved between them). Target: median overhead ≤ 0.5 s (the
 * poll interval is 0.2 s).
 *
 * Exits non-zero when the target is missed.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchmarkConfig, runExperiment } from '../dist/index.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'main.js');
const CONFIGS = 3;
const TARGET_S = 0.5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Spawn → the simulator's first stderr line (it prints it once listening), then stop it. */
function ownStartMs() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, 'sim', '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.once('data', () => {
      const ms = performance.now() - t0;
      child.once('exit', () => resolve(ms));
      child.kill('SIGTERM');
    });
    child.once('error', reject);
  });
}

const work = mkdtempSync(join(tmpdir(), 'goodput-bench-experiment-'));
try {
  const own = [];
  for (let i = 0; i < CONFIGS; i++) own.push(await ownStartMs());
  const serve = (mnbt) => ({
    argv: [process.execPath, BIN, 'sim', '--port', '{port}', '--max-num-batched-tokens', String(mnbt)],
    env: {},
    cwd: work,
    health: 'http://127.0.0.1:{port}/health',
    url: 'http://127.0.0.1:{port}',
    startupTimeoutMs: 120_000,
    stopSignal: 'SIGTERM',
    graceMs: 10_000,
  });
  const t0 = performance.now();
  const { state } = await runExperiment(
    {
      name: 'overhead',
      dir: join(work, 'experiment'),
      configurations: Array.from({ length: CONFIGS }, (_, i) => ({
        name: `C${i}`,
        params: {},
        target: { kind: 'serve', serve: serve(1024 * 2 ** i) },
      })),
      runs: 1,
      order: { mode: 'interleaved' },
      cooldownMs: 0,
      restart: 'per-config',
      virtual: false,
      cacheReset: { kind: 'auto' },
      measurement: benchmarkConfig({
        load: { concurrency: 2, requests: 4 },
        workload: { promptTokens: 16 },
        sampling: { maxTokens: 4 },
      }),
      plan: {},
      planSha256: 'bench',
    },
    { cwd: work, quiet: true },
  );
  const wallS = (performance.now() - t0) / 1000;
  for (let i = 0; i < CONFIGS; i++) own.push(await ownStartMs());
  const starts = state.configurations.flatMap((c) => c.serve?.starts ?? []);
  if (starts.length !== CONFIGS || state.status !== 'done')
    throw new Error(
      `experiment ${state.status}: ${JSON.stringify(state.configurations.map((c) => c.failure))}`,
    );
  const ownMs = median(own);
  for (const c of state.configurations) {
    const s = c.serve.starts[0];
    console.log(
      `${c.name}: start-up ${(s.startupMs / 1000).toFixed(2)} s (server's own start ${(ownMs / 1000).toFixed(2)} s, overhead ${((s.startupMs - ownMs) / 1000).toFixed(2)} s), stop ${(s.stopMs / 1000).toFixed(2)} s (${s.stop})`,
    );
  }
  const overheadS = median(starts.map((s) => s.startupMs - ownMs)) / 1000;
  console.log(`experiment of ${CONFIGS} configurations × 1 run: ${wallS.toFixed(1)} s wall`);
  console.log(
    `experiment overhead per configuration (median start-up − server's own start): ${overheadS.toFixed(2)} s (target ≤ ${TARGET_S} s)`,
  );
  if (overheadS > TARGET_S) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
