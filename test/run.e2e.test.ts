// runs alone: asserts the live dispatch lag
/**
 * `goodput run` end to end against the embedded engine and loopback servers: in-process
 * through the command with an injected context, and as a real `node dist/cli/main.js`
 * subprocess (stdout purity, key leaks, Ctrl-C, unreachable targets, usage errors).
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands/index.js';
import { runCommand } from '../src/cli/commands/run.js';
import { runCli } from '../src/cli/dispatch.js';
import { ExitCode, REQUEST_ERRORS } from '../src/errors.js';
import { parseArgv } from '../src/flags/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import {
  capture,
  context,
  ensureBuilt,
  filesUnder,
  jsonlLines,
  readRunSummary,
  runBin,
} from './helpers/cli.js';
import { freePort } from './helpers/loopback.js';

const SMALL = ['--requests', '12', '--concurrency', '4', '--prompt-tokens', '64', '--max-tokens', '16'];

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'goodput-run-e2e-'));
  ensureBuilt();
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('goodput run in-process (embedded engine)', () => {
  it('writes a summary with the vLLM keys and one streamed record per request', async () => {
    const out = join(work, 'inproc');
    const args = parseArgv(runCommand, [...SMALL, '--warmup', '2', '--out', out, '--label', 'case=inproc']);
    const ctx = context(args, work);
    expect(await runCommand.run(ctx)).toBe(ExitCode.OK);

    const summary = readRunSummary(out);
    for (const key of [
      'mean_ttft_ms',
      'median_ttft_ms',
      'p99_ttft_ms',
      'p99_tpot_ms',
      'p99_itl_ms',
      'p99_e2el_ms',
      'request_throughput',
      'output_throughput',
      'total_token_throughput',
      'request_goodput',
      'completed',
      'failed',
    ]) {
      expect(summary, key).toHaveProperty(key);
      expect(Number.isFinite((summary as unknown as Record<string, number>)[key]), key).toBe(true);
    }
    expect(summary.schemaVersion).toBe(1);
    expect(summary.completed).toBe(12);
    expect(summary.failed).toBe(0);
    expect(summary.counts.warmup).toBe(2);
    expect(summary.meta.target.embedded).toBe(true);
    expect(summary.meta.labels).toEqual({ case: 'inproc' });
    expect(summary.meta.sampling.temperature).toBe(0);
    expect(summary.meta.load).toMatchObject({ mode: 'closed', concurrency: 4, requests: 12, warmup: 2 });
    // Sane numbers: TTFT below E2EL, TPOT positive, throughput consistent with the counts.
    expect(summary.mean_ttft_ms).toBeGreaterThan(0);
    expect(summary.mean_ttft_ms).toBeLessThan(summary.mean_e2el_ms);
    expect(summary.mean_tpot_ms).toBeGreaterThan(0);
    expect(summary.request_throughput).toBeCloseTo(summary.completed / summary.duration, 6);
    expect(summary.load.peakInFlight).toBeLessThanOrEqual(4);

    const lines = jsonlLines(join(out, 'requests.jsonl'));
    expect(lines[0]).toMatchObject({ schemaVersion: 1, kind: 'goodput.requests', runId: summary.meta.runId });
    const records = lines.slice(1) as RequestRecord[];
    expect(records).toHaveLength(14);
    expect(records.filter((r) => r.warmup)).toHaveLength(2);
    expect(new Set(records.map((r) => r.id)).size).toBe(14);
    expect(ctx.stdout.text).toContain('TTFT');
    expect(ctx.stderr.text).toContain(out);
  });

  it('open loop with --rate measures dispatch lag for every request', async () => {
    const out = join(work, 'open');
    const args = parseArgv(runCommand, [
      '--rate',
      '25',
      '--requests',
      '10',
      '--max-tokens',
      '8',
      '--out',
      out,
      '--json',
    ]);
    const ctx = context(args, work);
    expect(await runCommand.run(ctx)).toBe(ExitCode.OK);
    const summary = JSON.parse(ctx.stdout.text) as RunSummary;
    expect(summary.meta.load).toMatchObject({ mode: 'open', rate: 25, burstiness: 1 });
    expect(summary.load.dispatchLag.count).toBe(10);
    expect(summary.load.dispatchLag.p50).toBeGreaterThanOrEqual(0);
    expect(summary.load.dispatchLag.p50).toBeLessThan(50);
    expect(summary.latency.ttftFromScheduled.count).toBe(summary.completed);
    expect(readRunSummary(out).load.dispatchLag.count).toBe(10);
  });

  it('simulated users who give up are aborted, counted as cancelled and their tokens as wasted', async () => {
    const out = join(work, 'cancel');
    const args = parseArgv(runCommand, [
      ...SMALL.slice(0, 4),
      '--max-tokens',
      '200',
      '--ignore-eos',
      '--cancel-after-ms',
      '150',
      '--cancel-rate',
      '0.5',
      '--out',
      out,
      '--quiet',
    ]);
    const ctx = context(args, work);
    expect(await runCommand.run(ctx)).toBe(ExitCode.OK);
    expect(ctx.stdout.text).toBe('');
    const summary = readRunSummary(out);
    const records = jsonlLines(join(out, 'requests.jsonl')).slice(1) as RequestRecord[];
    const aborted = records.filter((r) => r.error?.code === 'ABORTED');
    expect(aborted.length).toBe(summary.counts.cancelled);
    expect(summary.counts.cancelled).toBeGreaterThan(0);
    expect(summary.counts.cancelled).toBeLessThan(12);
    // The user gives up 150 ms after the request was due (its scheduled time).
    expect(aborted.every((r) => r.outcome === 'cancelled' && r.endMs - r.scheduledMs >= 149)).toBe(true);
    expect(summary.goodput.wastedOutputTokens).toBeGreaterThan(0);
    expect(summary.goodput.tokenGoodputRatio).toBeLessThan(1);
    expect(summary.goodput.attainment).toBeCloseTo(summary.completed / summary.counts.attempted, 9);
  });

  it('rejects an unknown flag with exit 2 and a did-you-mean hint', async () => {
    const io = {
      stdout: capture(),
      stderr: capture(),
      env: {},
      cwd: work,
      signal: new AbortController().signal,
    };
    expect(await runCli(['run', '--concurency', '8'], io, COMMANDS)).toBe(ExitCode.USAGE);
    expect(io.stderr.text).toMatch(/^error\[E_USAGE\]: unknown option --concurency/);
    expect(io.stderr.text).toContain('hint: did you mean --concurrency?');
    expect(io.stdout.text).toBe('');
  });

  it('rejects a config file with a mistyped field, naming its path', async () => {
    const file = join(work, 'settings.json');
    writeFileSync(
      file,
      JSON.stringify({ base_url: 'http://127.0.0.1:1', model_id: 'm', slo: { ttft_ms: 'fast' } }),
    );
    const io = {
      stdout: capture(),
      stderr: capture(),
      env: {},
      cwd: work,
      signal: new AbortController().signal,
    };
    expect(await runCli(['run', '--config', file], io, COMMANDS)).toBe(ExitCode.USAGE);
    expect(io.stderr.text).toMatch(/error\[E_CONFIG\]/);
    expect(io.stderr.text).toMatch(/slo\.ttft_ms/);
    expect(io.stderr.text).not.toMatch(/\n\s+at /);
  });
});

describe('goodput run as a subprocess (node dist/cli/main.js)', () => {
  it('--json prints the summary and nothing else on stdout', async () => {
    const out = join(work, 'json');
    const res = await runBin(['run', ...SMALL, '--json', '--out', out], { cwd: work });
    expect(res.code).toBe(0);
    const printed = JSON.parse(res.stdout) as RunSummary;
    expect(printed.kind).toBe('goodput.run');
    expect(printed.completed).toBe(12);
    expect(printed).toEqual(readRunSummary(out));
    expect(res.stderr).toContain(out);
  });

  it('never writes or prints the API key', async () => {
    const canary = `sk-canary-${randomBytes(12).toString('hex')}`;
    const sim: SimServer = await startSim({ seed: 3, apiKey: canary });
    try {
      const out = join(work, 'canary');
      const res = await runBin(['run', '--url', sim.url, ...SMALL, '--out', out, '--label', 'k=v'], {
        cwd: work,
        env: { GOODPUT_API_KEY: canary },
      });
      expect(res.code, res.stderr).toBe(0);
      // The key was used (the engine requires it), and appears nowhere.
      expect(readRunSummary(out).completed).toBe(12);
      const files = filesUnder(out);
      expect(files.map((f) => f.path.slice(out.length + 1)).sort()).toEqual(
        expect.arrayContaining(['requests.jsonl', 'summary.json']),
      );
      for (const f of files) expect(f.text.includes(canary), f.path).toBe(false);
      expect(res.stdout.includes(canary)).toBe(false);
      expect(res.stderr.includes(canary)).toBe(false);
    } finally {
      await sim.close();
    }
  });

  it('Ctrl-C stops the load, writes what was measured and exits 130', async () => {
    const out = join(work, 'sigint');
    let sent = false;
    const res = await runBin(
      ['run', '--requests', '100000', '--concurrency', '4', '--max-tokens', '64', '--out', out],
      {
        cwd: work,
        timeoutMs: 25_000,
        onStderr: (text, child) => {
          if (!sent && text.includes('results:')) {
            sent = true;
            setTimeout(() => child.kill('SIGINT'), 1_200);
          }
        },
      },
    );
    expect(sent).toBe(true);
    expect(res.code, res.stderr).toBe(ExitCode.INTERRUPTED);
    const summary = readRunSummary(out);
    expect(summary.interrupted).toBe(true);
    const records = jsonlLines(join(out, 'requests.jsonl')).slice(1) as RequestRecord[];
    expect(records.length).toBe(summary.counts.attempted + summary.counts.warmup);
    expect(summary.counts.attempted).toBeGreaterThan(0);
    expect(summary.counts.attempted).toBeLessThan(100000);
    expect(records.some((r) => r.error?.code === 'INTERRUPTED')).toBe(true);
  });

  it("the README's command: no flags runs the default load (~10 s) on the embedded engine and prints the baseline", async () => {
    const res = await runBin(['run'], { cwd: work, timeoutMs: 60_000 });
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/embedded engine: http:\/\/127\.0\.0\.1:\d+ .*own thread/);
    expect(res.stdout).toMatch(/^TTFT +80 /m);
    expect(res.stdout).toMatch(/^TPOT +\d+ /m);
    expect(res.stdout).toMatch(/SLO attainment/);
    const dir = /results: (.+)/.exec(res.stderr)![1]!.trim();
    const summary = readRunSummary(dir);
    expect(summary.completed).toBe(80);
    // "about ten seconds": the default load is sized for it on the default profile.
    expect(summary.duration).toBeGreaterThan(3);
    expect(summary.duration).toBeLessThan(20);
  }, 90_000);

  it('every request failing exits 3 with the cause and the fix', async () => {
    const port = await freePort();
    const out = join(work, 'dead');
    const res = await runBin(
      [
        'run',
        '--url',
        `http://127.0.0.1:${port}`,
        '--model',
        'm',
        '--requests',
        '6',
        '--concurrency',
        '2',
        '--max-retries',
        '0',
        '--out',
        out,
      ],
      { cwd: work },
    );
    expect(res.code).toBe(ExitCode.UNMEASURABLE);
    expect(res.stderr).toContain('error[E_ALL_FAILED]');
    expect(res.stderr).toContain('CONNECTION_REFUSED');
    expect(res.stderr).toContain(REQUEST_ERRORS.CONNECTION_REFUSED.cause);
    expect(res.stderr).toContain(`hint: ${REQUEST_ERRORS.CONNECTION_REFUSED.hint}`);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    const summary = readRunSummary(out);
    expect(summary.counts.attempted).toBe(6);
    expect(summary.completed).toBe(0);
  });
});
