// runs alone: replays a trace live and bounds its dispatch lag
/**
 * Trace replay end to end (issue 13.2): a Mooncake trace of 1,000 requests written here is
 * replayed in virtual time on its exact schedule and live against the embedded engine at
 * 0.3× its times (its first 200 lines); `trace analyze` reads it; a bad trace stops before anything is sent; an ADR
 * of a trace run makes `gate --adr` replay the same file and refuse a changed one.
 */

import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { collect, readRecords } from '../src/results/index.js';
import type { RunSummary } from '../src/types.js';
import { createRng } from '../src/workload/index.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';

const REQUESTS = 1000;
/** The live replay takes the trace's first lines: 0.3× of their ~10 s keeps the test short. */
const LIVE_REQUESTS = 200;
let work: string;
let tracePath: string;
let liveTracePath: string;
let times: number[];

/** A Mooncake-style trace: 20 req/s on average over ~50 s, prompts that share prefix blocks by group. */
function mooncakeTrace(n: number): { text: string; times: number[] } {
  const rng = createRng('trace-e2e');
  const lines: string[] = [];
  const ts: number[] = [];
  let t = 0;
  let next = 10_000;
  for (let i = 0; i < n; i++) {
    t += Math.round(rng.gamma(1, 50));
    const group = rng.int(8);
    const shared = 1;
    const own = rng.int(2);
    const ids = [
      ...Array.from({ length: shared }, (_, k) => group * 100 + k),
      ...Array.from({ length: own }, () => next++),
    ];
    const input = (ids.length - 1) * 512 + 1 + rng.int(512);
    lines.push(
      JSON.stringify({ timestamp: t, input_length: input, output_length: 1 + rng.int(24), hash_ids: ids }),
    );
    ts.push(t);
  }
  return { text: `${lines.join('\n')}\n`, times: ts };
}

const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'goodput-trace-e2e-'));
  const made = mooncakeTrace(REQUESTS);
  tracePath = join(work, 'mooncake.jsonl');
  times = made.times;
  await writeFile(tracePath, made.text);
  liveTracePath = join(work, 'mooncake-head.jsonl');
  await writeFile(liveTracePath, `${made.text.split('\n').slice(0, LIVE_REQUESTS).join('\n')}\n`);
});

describe('run --trace', () => {
  it('replays 1,000 requests in virtual time, each sent within 1 ms of its trace time', async () => {
    const out = join(work, 'virtual');
    const r = await cli(['run', '--trace', tracePath, '--time', 'virtual', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const summary = JSON.parse(r.stdout) as RunSummary;
    expect(summary.meta.workload.kind).toBe('trace');
    expect(summary.meta.workload.trace).toMatchObject({
      format: 'mooncake',
      entries: REQUESTS,
      blockSize: 512,
      timeScale: 1,
    });
    expect(summary.meta.workload.trace!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.meta.load).toMatchObject({ mode: 'open', requests: REQUESTS });
    const records = (await collect(readRecords(out))).sort((a, b) => a.index - b.index);
    expect(records).toHaveLength(REQUESTS);
    const start = records[0]!.scheduledMs;
    records.forEach((rec, k) => {
      expect(rec.scheduledMs - start).toBeCloseTo(times[k]! - times[0]!, 6);
      expect(Math.abs(rec.sentMs - rec.scheduledMs)).toBeLessThanOrEqual(1);
    });
    expect(summary.load.dispatchLag.count).toBe(REQUESTS);
    expect(summary.load.dispatchLag.max).toBeLessThanOrEqual(1);
    expect(summary.load.dropped).toBe(0);
    // The engine's prefix cache sees the shared hash blocks in virtual time too.
    expect(summary.server?.prefixCacheHitRate).toBeGreaterThan(0.1);
  }, 120_000);

  it('replays it live against the embedded engine at 0.3× its times (≤ 5 s) and reports the dispatch lag', async () => {
    const out = join(work, 'live');
    const scale = 0.3;
    const last = times[LIVE_REQUESTS - 1]!;
    expect((last - times[0]!) * scale).toBeLessThan(5_000);
    const r = await cli([
      'run',
      '--trace',
      liveTracePath,
      '--time-scale',
      String(scale),
      '--out',
      out,
      '--no-server-metrics',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    expect(r.stdout).toMatch(/dispatch lag\s+p50 [\d.]+ ms · p99 [\d.]+ ms/);
    const summary = readRunSummary(out);
    expect(summary.load.dispatchLag.count + summary.load.dropped).toBe(LIVE_REQUESTS);
    expect(summary.load.dispatchLag.p99).toBeGreaterThanOrEqual(0);
    expect(summary.counts.attempted).toBe(LIVE_REQUESTS);
    const records = await collect(readRecords(out));
    expect(records).toHaveLength(LIVE_REQUESTS);
    // The schedule is the trace's, at 0.3× its times.
    const sorted = records.sort((a, b) => a.index - b.index);
    expect(sorted.at(-1)!.scheduledMs - sorted[0]!.scheduledMs).toBeCloseTo((last - times[0]!) * scale, 6);
  }, 120_000);

  it('refuses a bad trace before sending anything, naming the line and the field (exit 2)', async () => {
    const cases: [string, string, RegExp][] = [
      [
        'back.jsonl',
        '{"timestamp": 5, "input_length": 3, "output_length": 1}\n{"timestamp": 4, "input_length": 3, "output_length": 1}\n',
        /back\.jsonl:2: field "timestamp": timestamp 4 goes back in time/,
      ],
      [
        'neg.jsonl',
        '{"timestamp": 5, "input_length": -3, "output_length": 1}\n',
        /neg\.jsonl:1: field "input_length": expected a whole number ≥ 1, got -3/,
      ],
      [
        'cols.csv',
        'TIMESTAMP,ContextTokens\n2024-01-01 00:00:00,5\n',
        /cols\.csv:1: field "timestamp": no such column in the header/,
      ],
    ];
    for (const [name, text, message] of cases) {
      const path = join(work, name);
      await writeFile(path, text);
      const out = join(work, `bad-${name}`);
      const r = await cli(['run', '--trace', path, '--time', 'virtual', '--out', out]);
      expect(r.code, name).toBe(ExitCode.USAGE);
      expect(r.stderr).toMatch(message);
    }
    const azureMissing = join(work, 'azure.csv');
    await writeFile(azureMissing, 'TIMESTAMP,ContextTokens\n2024-01-01 00:00:00,5\n');
    const r = await cli([
      'run',
      '--trace',
      azureMissing,
      '--trace-format',
      'azure',
      '--time',
      'virtual',
      '--out',
      join(work, 'bad-azure'),
    ]);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toMatch(/azure\.csv:1: field "GeneratedTokens": no such column/);
  }, 60_000);

  it('refuses flags that a trace replaces', async () => {
    const r = await cli(['run', '--trace', tracePath, '--rate', '5']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toMatch(/--rate cannot be used with --trace/);
    const s = await cli(['run', '--time-scale', '0.5']);
    expect(s.code).toBe(ExitCode.USAGE);
    expect(s.stderr).toMatch(/--time-scale needs --trace/);
  });
});

describe('trace analyze', () => {
  it('prints the distributions and the cache-hit bound, and --json gives the same numbers', async () => {
    const text = await cli(['trace', 'analyze', tracePath]);
    expect(text.code, text.stderr).toBe(ExitCode.OK);
    const json = await cli(['trace', 'analyze', tracePath, '--json']);
    expect(json.code).toBe(ExitCode.OK);
    const a = JSON.parse(json.stdout);
    expect(a.requests).toBe(REQUESTS);
    expect(a.durationMs).toBe(times.at(-1)! - times[0]!);
    expect(a.prefixCache.hitRate).toBeGreaterThan(0.2);
    expect(a.prefixCache.hitRate).toBeLessThan(1);
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    expect(text.stdout).toContain(`requests      ${fmt(REQUESTS)}`);
    expect(text.stdout).toContain(`best possible hit rate ${(a.prefixCache.hitRate * 100).toFixed(1)}%`);
    expect(text.stdout).toContain(
      `${fmt(a.prefixCache.hitTokens)} of ${fmt(a.prefixCache.promptTokens)} prompt tokens`,
    );
    for (const k of ['min', 'p50', 'p90', 'p99', 'max'] as const) {
      expect(text.stdout).toContain(fmt(a.input[k]));
      expect(text.stdout).toContain(fmt(a.output[k]));
    }
    expect(a.rateOverTime.reduce((n: number, b: { requests: number }) => n + b.requests, 0)).toBe(REQUESTS);
  });

  it('reads an Azure trace CSV', async () => {
    const path = join(work, 'AzureLLMInferenceTrace_conv.csv');
    await writeFile(
      path,
      'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n2023-11-16 18:15:51.2000000,879,25\n',
    );
    const r = await cli(['trace', 'analyze', path, '--json']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const a = JSON.parse(r.stdout);
    expect(a).toMatchObject({ format: 'azure', requests: 3, input: { min: 374, max: 879 } });
    expect(a.durationMs).toBeCloseTo(4519.41, 2);
    expect(a.prefixCache).toBeUndefined();
  });
});

describe('an ADR of a trace run', () => {
  it('records the trace with its sha256, so gate --adr replays the same file and refuses a changed one', async () => {
    const small = join(work, 'small.jsonl');
    const lines = (await readFile(tracePath, 'utf8')).split('\n').slice(0, 60).join('\n');
    await writeFile(small, `${lines}\n`);
    for (const name of ['base', 'cand']) {
      const r = await cli([
        'run',
        '--trace',
        small,
        '--time-scale',
        '0.5',
        '--time',
        'virtual',
        '--out',
        join(work, `adr-${name}`),
        ...(name === 'cand' ? ['--quiet'] : []),
      ]);
      expect(r.code, r.stderr).toBe(ExitCode.OK);
      // The header says what was sent: the trace's times and max_tokens, not the flags' defaults.
      if (name === 'base') {
        expect(r.stdout).toMatch(/load\s+sends followed the trace \(times × 0\.5\)/);
        expect(r.stdout).toMatch(/workload\s+trace .* · max_tokens from the trace ·/);
        expect(r.stdout).not.toMatch(/all at once|--rate inf|max \d+ output tokens/);
      }
    }
    const made = await cli([
      'adr',
      'new',
      '--title',
      'Trace replay',
      '--baseline',
      'adr-base',
      '--candidate',
      'adr-cand',
      '--date',
      '2026-01-02',
    ]);
    expect(made.code, made.stderr).toBe(ExitCode.OK);
    const adrPath = made.stdout.trim();
    const adrText = await readFile(adrPath, 'utf8');
    const recorded = readRunSummary(join(work, 'adr-cand'));
    expect(adrText).toContain(recorded.meta.workload.trace!.sha256);
    expect(adrText).toMatch(/Load: sends followed the trace \(times × 0\.5\), .*max_tokens from the trace;/);

    const gated = await cli([
      'gate',
      '--adr',
      adrPath,
      '--time',
      'virtual',
      '--out',
      join(work, 'adr-gate'),
      '--quiet',
    ]);
    expect([ExitCode.OK, ExitCode.THRESHOLD_BREACH], gated.stderr).toContain(gated.code);
    const rerun = readRunSummary(join(work, 'adr-gate'));
    expect(rerun.meta.workload).toEqual(recorded.meta.workload);
    expect(rerun.meta.load).toEqual(recorded.meta.load);
    expect(rerun.counts.attempted).toBe(60);

    await writeFile(small, `${lines.split('\n').slice(0, 59).join('\n')}\n`);
    const changed = await cli([
      'gate',
      '--adr',
      adrPath,
      '--time',
      'virtual',
      '--out',
      join(work, 'adr-gate-2'),
      '--quiet',
    ]);
    expect(changed.code).toBe(ExitCode.USAGE);
    expect(changed.stderr).toMatch(/trace .*small\.jsonl is not the one recorded \(sha256/);
  }, 120_000);
});
