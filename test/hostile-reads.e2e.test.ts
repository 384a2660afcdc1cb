/**
 * Every read from a server is bounded in size and time: the goodput binary against servers
 * that trickle a byte at a time or never end their body, with its peak memory read from the
 * child process itself and compared with the same binary printing its version.
 */

import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimServer, startSim } from '../src/sim/index.js';
import { ensureBuilt, PEAK_RSS_ARGS, peakRssMiB, runBin } from './helpers/cli.js';
import { type Loopback, startLoopback } from './helpers/loopback.js';
import { writeEndless, writeTrickle } from './helpers/misbehave.js';

const KEY = 'test-hostile-reads-0123456789abcdef';
/** Peak memory a bounded read may add over the idle binary (an unbounded one adds gigabytes). */
const MAX_EXTRA_MIB = 200;

let work: string;
let baselineMiB: number;
let sim: SimServer;
const servers: Loopback[] = [];
beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'goodput-hostile-reads-'));
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 5, slowdown: 0.05 });
  const idle = await runBin(['--version'], { cwd: work, nodeArgs: PEAK_RSS_ARGS });
  baselineMiB = peakRssMiB(idle.stderr);
}, 180_000);
afterAll(async () => {
  await sim.close();
  for (const s of servers) await s.close();
  rmSync(work, { recursive: true, force: true });
});

/** A server whose GET /v1/models (and /metrics) misbehaves as `kind` says. */
async function hostileModels(kind: 'trickle' | 'endless-401' | 'endless-200'): Promise<string> {
  const lb = await startLoopback((req, res) => {
    if (kind === 'trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      writeTrickle(res, '{"data":[{"id":"m"}]}', 1000);
    } else if (kind === 'endless-401') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.write(`{"error":{"message":"denied for ${req.headers.authorization}`);
      writeEndless(res);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      writeEndless(res, Buffer.alloc(64 * 1024, ' '));
    }
  });
  servers.push(lb);
  return lb.url;
}

const env = { GOODPUT_API_KEY: KEY };

describe('doctor against a hostile /v1/models', () => {
  it('a model list trickled a byte a second fails the models stage at --timeout, not later', async () => {
    const url = await hostileModels('trickle');
    const t0 = performance.now();
    const r = await runBin(['doctor', '--url', url, '--timeout', '2s'], {
      cwd: work,
      env,
      timeoutMs: 30_000,
    });
    expect(r.code).toBe(12);
    expect(r.stdout).toMatch(/no whole answer within 2 s/);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  it('SIGTERM during a trickled model list stops doctor at once (exit 130)', async () => {
    let asked!: () => void;
    const modelsAsked = new Promise<void>((r) => {
      asked = r;
    });
    const lb = await startLoopback((_req, res) => {
      asked();
      res.writeHead(200, { 'content-type': 'application/json' });
      writeTrickle(res, '{"data":[{"id":"m"}]}', 1000);
    });
    servers.push(lb);
    let killedAt = 0;
    const r = await runBin(['doctor', '--url', lb.url, '--timeout', '60s'], {
      cwd: work,
      env,
      timeoutMs: 30_000,
      onSpawn: (child) => {
        void modelsAsked.then(() =>
          setTimeout(() => {
            killedAt = performance.now();
            child.kill('SIGTERM');
          }, 300),
        );
      },
    });
    expect(r.code).toBe(130);
    expect(killedAt).toBeGreaterThan(0);
    expect(performance.now() - killedAt).toBeLessThan(5_000);
  });

  it('an endless 401 body: models fail with the server words, memory bounded, the key nowhere', async () => {
    const url = await hostileModels('endless-401');
    const r = await runBin(['doctor', '--url', url, '--timeout', '10s'], {
      cwd: work,
      env,
      timeoutMs: 60_000,
      nodeArgs: PEAK_RSS_ARGS,
    });
    expect(r.code).toBe(12);
    expect(r.stdout).toMatch(/answered HTTP 401/);
    expect(r.stdout).toMatch(/denied for Bearer \[REDACTED\]/);
    expect(r.stdout + r.stderr).not.toContain(KEY.slice(0, 6));
    expect(peakRssMiB(r.stderr)).toBeLessThan(baselineMiB + MAX_EXTRA_MIB);
  });
});

describe('files that never end (/dev/zero) where a small file is expected', () => {
  it.each([
    [
      'doctor --config',
      () => ['doctor', '--url', sim.url, '--config', '/dev/zero'],
      10,
      /cannot read config file \/dev\/zero \(larger than \d+ bytes\)/,
    ],
    [
      'run --api-key-file',
      () => ['run', '--url', sim.url, '--api-key-file', '/dev/zero', '--requests', '1'],
      2,
      /cannot read --api-key-file \/dev\/zero \(larger than 65536 bytes\)/,
    ],
    [
      'sim --profile-file',
      () => ['sim', '--port', '0', '--profile-file', '/dev/zero'],
      2,
      /cannot read --profile-file \/dev\/zero: larger than 1048576 bytes/,
    ],
  ] as const)('%s: refused at its bound, memory bounded', async (_, argv, code, message) => {
    const r = await runBin([...argv()], { cwd: work, timeoutMs: 30_000, nodeArgs: PEAK_RSS_ARGS });
    expect(r.code, r.stderr).toBe(code);
    expect(r.stdout + r.stderr).toMatch(message);
    expect(peakRssMiB(r.stderr)).toBeLessThan(baselineMiB + MAX_EXTRA_MIB);
  });
});

describe('run against hostile reads', () => {
  const SMALL = ['--requests', '4', '--concurrency', '2', '--prompt-tokens', '16', '--max-tokens', '4'];

  it('without --model, an endless model list stops at 8 MiB with a usage hint, memory bounded', async () => {
    const url = await hostileModels('endless-200');
    const r = await runBin(['run', '--url', url, ...SMALL, '--out', join(work, 'no-model')], {
      cwd: work,
      env,
      timeoutMs: 60_000,
      nodeArgs: PEAK_RSS_ARGS,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/more than 8 MiB/);
    expect(r.stderr).toMatch(/--model/);
    expect(peakRssMiB(r.stderr)).toBeLessThan(baselineMiB + MAX_EXTRA_MIB);
  });

  it('an endless --metrics-url body: the run completes, each scrape cut at 16 MiB, memory bounded', async () => {
    const metrics = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      writeEndless(res, Buffer.from('vllm:num_requests_running{model_name="m"} 1\n'.repeat(1000)));
    });
    servers.push(metrics);
    const out = join(work, 'endless-metrics');
    // The same run scraping the engine's own /metrics is the memory baseline (a run loads the
    // tokenizer and the client, which `--version` does not).
    const healthy = await runBin(
      [
        'run',
        '--url',
        sim.url,
        '--model',
        sim.model,
        ...SMALL,
        '--metrics-url',
        `${sim.url}/metrics`,
        '--out',
        `${out}-healthy`,
      ],
      { cwd: work, env, timeoutMs: 60_000, nodeArgs: PEAK_RSS_ARGS },
    );
    expect(healthy.code).toBe(0);
    const r = await runBin(
      [
        'run',
        '--url',
        sim.url,
        '--model',
        sim.model,
        ...SMALL,
        '--metrics-url',
        `${metrics.url}/metrics`,
        '--out',
        out,
      ],
      { cwd: work, env, timeoutMs: 60_000, nodeArgs: PEAK_RSS_ARGS },
    );
    expect(r.code).toBe(0);
    expect(peakRssMiB(r.stderr)).toBeLessThan(peakRssMiB(healthy.stderr) + MAX_EXTRA_MIB);
  });
});

describe('run with a dataset that never ends', () => {
  const SMALL = ['--requests', '2', '--concurrency', '1', '--max-tokens', '4'];

  it('--dataset /dev/zero is a usage error (exit 2) naming the line limit, memory bounded', async () => {
    const r = await runBin(
      [
        'run',
        '--url',
        sim.url,
        '--model',
        sim.model,
        '--dataset',
        '/dev/zero',
        ...SMALL,
        '--out',
        join(work, 'zero'),
      ],
      { cwd: work, timeoutMs: 60_000, nodeArgs: PEAK_RSS_ARGS },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 1 is longer than 16 MiB/);
    expect(peakRssMiB(r.stderr)).toBeLessThan(baselineMiB + MAX_EXTRA_MIB);
  });

  it('the first Ctrl-C stops a run waiting on a FIFO dataset (exit 130)', async () => {
    const fifo = join(work, 'prompts.fifo');
    execFileSync('mkfifo', [fifo]);
    let killedAt = 0;
    let writer: number | undefined;
    const r = await runBin(
      [
        'run',
        '--url',
        sim.url,
        '--model',
        sim.model,
        '--dataset',
        fifo,
        ...SMALL,
        '--out',
        join(work, 'fifo'),
      ],
      {
        cwd: work,
        timeoutMs: 30_000,
        onSpawn: (child) => {
          // Once the run has the FIFO open for reading, hold a writer that never writes, then Ctrl-C.
          const poll = setInterval(() => {
            try {
              writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
            } catch {
              return; // no reader yet (ENXIO)
            }
            clearInterval(poll);
            setTimeout(() => {
              killedAt = performance.now();
              child.kill('SIGINT');
            }, 300);
          }, 50);
          child.on('close', () => clearInterval(poll));
        },
      },
    );
    if (writer !== undefined) closeSync(writer);
    expect(r.stderr).toMatch(/SIGINT: stopping/);
    expect(r.code).toBe(130);
    expect(killedAt).toBeGreaterThan(0);
    expect(performance.now() - killedAt).toBeLessThan(5_000);
  });
});
