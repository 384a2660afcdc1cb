/**
 * What a command loads: `goodput sim --help` and a serving `goodput sim` load neither the
 * runner, the client nor undici (the dispatcher imports a command's module when it runs,
 * flags/index.ts loads resolveBenchmarkConfig when it is called, sim calibrate loads when
 * picked); nor does `goodput emit`, whose artefacts are text (it checks watch's flags against
 * watch's option table alone), nor `goodput history`, which reads the store (the store, history
 * and the HTML report import server-metrics' pure files, not its index with the scrapers);
 * `goodput run --url` loads neither the simulator nor zod (the results' readers load the
 * schemas on first use). The built bin runs under module hooks that write every module's URL
 * as it loads.
 */

import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeAdr } from '../src/adr/index.js';
import { StoreHistogram, WatchStore } from '../src/store/index.js';
import { BIN, ensureBuilt } from './helpers/cli.js';

const HOOK = join(import.meta.dirname, 'helpers', 'module-trace.mjs');
const dir = mkdtempSync(join(tmpdir(), 'goodput-modules-'));
let traces = 0;

// A fresh build when the sources are newer (the first e2e file of a run pays for it).
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FORBIDDEN = /\/dist\/(runner|client)\/|\/node_modules\/undici\//;

function traceFile(): string {
  traces += 1;
  return join(dir, `trace-${traces}.txt`);
}

function loaded(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

/** Runs the bin to its end under the hooks; the modules it loaded. */
function modulesOf(args: string[]): string[] {
  const file = traceFile();
  const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], {
    env: { ...process.env, GOODPUT_MODULE_TRACE: file },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return loaded(file);
}

/** Starts `goodput sim` on port 0 under the hooks, stops it once it listens; the modules it loaded. */
async function modulesOfServingSim(): Promise<{ modules: string[]; stderr: string }> {
  const file = traceFile();
  const child = spawn(process.execPath, ['--import', HOOK, BIN, 'sim', '--port', '0'], {
    env: { ...process.env, GOODPUT_MODULE_TRACE: file },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/goodput sim: http:\/\/127\.0\.0\.1:\d+/.test(stderr)) resolve();
    });
    child.on('exit', () => resolve());
  });
  child.kill('SIGTERM');
  await exited;
  clearTimeout(timer);
  return { modules: loaded(file), stderr };
}

describe('a command loads only what it runs', () => {
  it('the trace sees the runner and undici where they load (goodput run --help)', () => {
    const modules = modulesOf(['run', '--help']);
    expect(modules.some((m) => m.endsWith('/dist/cli/commands/run.js'))).toBe(true);
    expect(modules.filter((m) => FORBIDDEN.test(m)).length).toBeGreaterThan(0);
  });

  it('goodput sim --help loads neither the runner, the client nor undici', () => {
    const modules = modulesOf(['sim', '--help']);
    expect(modules.some((m) => m.endsWith('/dist/sim/command.js'))).toBe(true);
    expect(modules.filter((m) => FORBIDDEN.test(m))).toEqual([]);
    expect(modules.some((m) => m.includes('/dist/calibrate/'))).toBe(false);
  });

  it('goodput sim serving on port 0 loads neither the runner, the client nor undici', async () => {
    const { modules, stderr } = await modulesOfServingSim();
    expect(stderr).toMatch(/goodput sim: http:\/\/127\.0\.0\.1:\d+ serving/);
    expect(modules.some((m) => m.endsWith('/dist/sim/server.js'))).toBe(true);
    expect(modules.filter((m) => FORBIDDEN.test(m))).toEqual([]);
  });

  it('goodput sim calibrate --help loads the calibration it runs', () => {
    const modules = modulesOf(['sim', 'calibrate', '--help']);
    expect(modules.some((m) => m.endsWith('/dist/calibrate/command.js'))).toBe(true);
  });

  it('goodput emit loads neither the runner, the client nor undici, for each of its artefacts', () => {
    const adr = join(dir, 'ADR-20250102-001-x.md');
    writeFileSync(
      adr,
      serializeAdr(
        {
          schemaVersion: 1,
          id: 'ADR-20250102-001',
          title: 'x',
          date: '2025-01-02',
          status: 'accepted',
          gate: { ttft_p99_ms: 350 },
          rollback: { metric: 'ttft_p99_ms', above: 500, for: '10m' },
        } as never,
        '# x\n',
      ),
    );
    const runs: string[][] = [
      ['emit', 'prometheus-rules', '--adr', adr, '-o', join(dir, 'rules.yml'), '--tests'],
      ['emit', 'grafana-dashboard', '--adr', adr],
      [
        'emit',
        'k8s-job',
        '--shards',
        '2',
        '--image',
        'img',
        '--',
        '--url',
        'http://vllm:8000',
        '--rate',
        '4',
      ],
      [
        'emit',
        'k8s-watch',
        '--image',
        'img',
        '--',
        '--url',
        'http://vllm:8000',
        '--model',
        'm',
        '--every',
        '1m',
      ],
    ];
    for (const argv of runs) {
      const modules = modulesOf(argv);
      expect(
        modules.some((m) => m.endsWith('/dist/emit/command.js')),
        argv[1],
      ).toBe(true);
      expect(
        modules.filter((m) => FORBIDDEN.test(m)),
        argv[1],
      ).toEqual([]);
    }
    expect(readFileSync(join(dir, 'rules.yml'), 'utf8')).toContain('GoodputProbesStale');
  });

  it('goodput history, which reads the store, loads neither the runner, the client nor undici', () => {
    const path = join(dir, 'history.db');
    const store = WatchStore.open(path);
    const h = {
      ttft: new StoreHistogram(),
      tpot: new StoreHistogram(),
      itl: new StoreHistogram(),
      e2el: new StoreHistogram(),
    };
    h.ttft.record(120);
    h.e2el.record(900);
    store.addRound({
      target: 't',
      round: 1,
      startedAt: Date.now() - 60_000,
      durationMs: 1000,
      valid: true,
      attempted: 1,
      completed: 1,
      failed: 0,
      good: 1,
      outputTokens: 8,
      proberLagMs: 1,
      errors: {},
      histograms: h,
    });
    store.close();
    for (const argv of [
      ['--format', 'json'],
      ['--report', '-o', join(dir, 'trend.html')],
    ]) {
      const modules = modulesOf(['history', '--store', path, ...argv]);
      expect(
        modules.some((m) => m.endsWith('/dist/store/windows.js')),
        argv[0],
      ).toBe(true);
      expect(
        modules.filter((m) => FORBIDDEN.test(m) || m.endsWith('/dist/util/undici.js')),
        argv[0],
      ).toEqual([]);
    }
    expect(readFileSync(join(dir, 'trend.html'), 'utf8')).toContain('<html');
  });

  it('goodput run --url loads no simulator module and no zod (the embedded engine loads only when it starts, the schemas when a file is read)', async () => {
    const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
    const server = createServer((req, res) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"data":[{"id":"m"}]}');
        return;
      }
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          sse({ id: 'a', choices: [{ index: 0, delta: { content: 'hi' } }] }) +
            sse({
              id: 'a',
              choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
              usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
            }) +
            'data: [DONE]\n\n',
        );
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const file = traceFile();
    // Async: the loopback server in this process answers while the child runs.
    const child = spawn(
      process.execPath,
      ['--import', HOOK, BIN, 'run', '--url', url, '--requests', '1', '--out', join(dir, 'run-url')],
      { env: { ...process.env, GOODPUT_MODULE_TRACE: file }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code] = await once(child, 'exit');
    clearTimeout(timer);
    server.close();
    expect(code, stderr).toBe(0);
    const modules = loaded(file);
    expect(modules.some((m) => m.endsWith('/dist/runner/target.js'))).toBe(true);
    expect(modules.filter((m) => m.includes('/dist/sim/'))).toEqual([]);
    // The results are written without their schemas, and no config file is read.
    expect(modules.some((m) => m.endsWith('/dist/results/jsonl.js'))).toBe(true);
    expect(modules.filter((m) => /\/node_modules\/zod\/|\/dist\/results\/schema/.test(m))).toEqual([]);
  });
});
