/**
 * Multi-turn sessions and load stages split across load workers (`--workers`) and shards
 * (`--shard i/N`), live against the embedded engine on a loopback port (issue 16: "sessions
 * stay on one worker").
 *
 * - Sessions, --workers 2: every session's turns come from one worker, in order, each after
 *   the reply to the one before and carrying it; both workers ran sessions; the counts and the
 *   per-turn rows are those of a one-worker run of the same seed. Open session arrivals too.
 * - Sessions, --shard: each shard runs whole sessions (s ≡ i mod N), `goodput merge` of the
 *   shards has the one run's counts and per-turn rows.
 * - Stages, --workers 2 and --shard: the achieved load per stage adds up to what was asked.
 * - The built package (real worker threads) keeps sessions whole too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, readRecords, readSummary } from '../src/results/index.js';
import { type BenchmarkConfigInput, benchmarkConfig, RunClock, runBenchmark } from '../src/runner/index.js';
import { startLoadWorkers } from '../src/runner/workers/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { ensureBuilt, REPO, runCliInProcess } from './helpers/cli.js';

let sim: SimServer;
let cwd: string;
beforeAll(async () => {
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 5 });
  cwd = mkdtempSync(join(tmpdir(), 'goodput-split-sessions-'));
});
afterAll(async () => {
  await sim?.close();
  rmSync(cwd, { recursive: true, force: true });
});

const TURN_TOKENS = 16;
let runs = 0;
/** 4 sessions of 3 turns at once, 150 ms think time: users stay in step, so 12 turns are 4 whole sessions. */
function sessionConfig(input: BenchmarkConfigInput = {}) {
  return benchmarkConfig({
    url: sim.url,
    seed: 21,
    serverMetrics: { enabled: false },
    workload: {
      promptTokens: 48,
      sessions: {
        turns: { min: 3, max: 3 },
        turnTokens: TURN_TOKENS,
        thinkTime: { meanMs: 150, dist: 'fixed' },
      },
    },
    sampling: { maxTokens: 8 },
    load: {
      mode: 'closed',
      concurrency: 4,
      sessions: { concurrency: 4 },
      requests: 12,
      warmup: 2,
    },
    outDir: join(cwd, `run-${++runs}`),
    ...input,
  });
}

function bySession(records: readonly RequestRecord[]): Map<string, RequestRecord[]> {
  const out = new Map<string, RequestRecord[]>();
  for (const r of records) {
    if (r.warmup) continue;
    out.set(r.sessionId!, [...(out.get(r.sessionId!) ?? []), r]);
  }
  for (const turns of out.values()) turns.sort((a, b) => a.sentMs - b.sentMs);
  return out;
}

/** Turns 1, 2, … in order, each sent after the reply to the one before, each carrying the history (more prompt tokens than the last turn plus the new message). */
function expectWholeSessions(sessions: Map<string, RequestRecord[]>, turns?: number): void {
  for (const [id, rs] of sessions) {
    expect(
      rs.map((r) => r.turn),
      id,
    ).toEqual(Array.from({ length: turns ?? rs.length }, (_, t) => t + 1));
    for (let t = 1; t < rs.length; t++) {
      expect(rs[t]!.sentMs).toBeGreaterThanOrEqual(rs[t - 1]!.endMs);
      expect(rs[t - 1]!.outcome).toBe('success');
      expect(rs[t]!.promptTokens).toBeGreaterThan(rs[t - 1]!.promptTokens + TURN_TOKENS);
    }
  }
}

const turnCounts = (s: RunSummary) => (s.turns ?? []).map((t) => [t.turn, t.requests, t.completed]);

describe('multi-turn sessions with --workers 2', () => {
  it('every session runs on one worker, its turns in order with the whole history', async () => {
    const config = sessionConfig();
    const pool = await startLoadWorkers({ config, baseUrl: sim.url, model: sim.model, workers: 2 });
    const worker = new Map<string, Set<number>>();
    const records: RequestRecord[] = [];
    try {
      const clock = new RunClock();
      const result = await pool.run({
        clock,
        onRecord: (r, k) => {
          records.push(r);
          if (r.warmup) return;
          worker.set(r.sessionId!, (worker.get(r.sessionId!) ?? new Set()).add(k));
        },
      });
      expect(result.sent).toBe(12);
    } finally {
      await pool.close();
    }
    const sessions = bySession(records);
    expect([...sessions.keys()].sort()).toEqual(['s-000001', 's-000002', 's-000003', 's-000004']);
    for (const [id, ks] of worker) expect([...ks], id).toHaveLength(1);
    // Both workers ran sessions (two users each).
    expect(new Set([...worker.values()].map((ks) => [...ks][0]))).toEqual(new Set([0, 1]));
    expectWholeSessions(sessions, 3);
    // Turn indices are the run's: each measured index once, after the two warmup ones.
    const measured = records.filter((r) => !r.warmup).map((r) => r.index);
    expect(measured.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
  }, 60_000);

  it('counts and per-turn rows are those of one worker of the same seed', async () => {
    const two = await runBenchmark(sessionConfig({ load: { ...sessionConfig().load, workers: 2 } }), { cwd });
    const one = await runBenchmark(sessionConfig(), { cwd });
    expect(two.summary.meta.load.workers).toBe(2);
    expect(two.summary.counts).toEqual(one.summary.counts);
    expect(two.summary.counts.completed).toBe(12);
    expect(turnCounts(two.summary)).toEqual([
      [1, 4, 4],
      [2, 4, 4],
      [3, 4, 4],
    ]);
    expect(turnCounts(two.summary)).toEqual(turnCounts(one.summary));
    expect(two.summary.laterTurns?.requests).toBe(8);
    // One requests.jsonl with every record, sessions whole.
    const rs = await collect(readRecords(two.dir));
    expect(rs).toHaveLength(14);
    const sessions = bySession(rs);
    expect([...sessions.keys()].sort()).toEqual(
      [...bySession(await collect(readRecords(one.dir))).keys()].sort(),
    );
    expectWholeSessions(sessions, 3);
  }, 60_000);

  it('when the last turn is taken, the other worker’s sessions stop waiting at once (no think time more)', async () => {
    const base = sessionConfig();
    const started = performance.now();
    const { summary } = await runBenchmark(
      sessionConfig({
        load: { ...base.load, concurrency: 2, sessions: { concurrency: 2 }, requests: 2, workers: 2 },
        workload: {
          ...base.workload,
          sessions: { turns: { min: 3, max: 3 }, thinkTime: { meanMs: 4000, dist: 'fixed' } },
        },
      }),
      { cwd },
    );
    expect(summary.counts.attempted).toBe(2);
    // Each worker's one user sent turn 1; the run ends with their replies, not a 4 s think time later.
    expect(performance.now() - started).toBeLessThan(3500);
  }, 60_000);

  it('open session arrivals: worker k starts sessions k, k+2, …; every session whole, the turn count exact', async () => {
    const base = sessionConfig();
    const { summary, dir } = await runBenchmark(
      sessionConfig({
        load: {
          mode: 'open',
          burstiness: 1,
          sessions: { rate: 8 },
          requests: 14,
          warmup: 0,
          workers: 2,
        },
        workload: { ...base.workload, sessions: { turns: { min: 2, max: 2 }, turnTokens: TURN_TOKENS } },
      }),
      { cwd },
    );
    expect(summary.counts.attempted).toBe(14);
    const sessions = bySession(await collect(readRecords(dir)));
    // Sessions s-000001… in arrival order of the union; each one's turns a prefix of 1, 2.
    expect(sessions.size).toBeGreaterThanOrEqual(7);
    expectWholeSessions(sessions);
    for (const rs of sessions.values()) expect(rs.length).toBeLessThanOrEqual(2);
  }, 60_000);
});

/**
 * `run ARGS --shard i/N -o PREFIX-i` for every i (one after the other, in this process), then
 * `merge` into PREFIX-merged; with `whole`, the one run too, into PREFIX-whole.
 */
async function shardsMerged(args: string[], n: number, prefix: string, whole: boolean): Promise<void> {
  const ok = async (argv: string[]) => {
    const r = await runCliInProcess(argv, { cwd });
    expect(r.code, r.stderr).toBe(0);
  };
  const dirs = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  for (const [i, dir] of dirs.entries()) await ok([...args, '--shard', `${i}/${n}`, '-o', dir]);
  if (whole) await ok([...args, '-o', `${prefix}-whole`]);
  await ok(['merge', ...dirs, '-o', `${prefix}-merged`]);
}

describe('multi-turn sessions with --shard', () => {
  it('each shard runs whole sessions; the merge has the one run’s counts and per-turn rows', async () => {
    const args = [
      'run',
      '--url',
      sim.url,
      '--no-server-metrics',
      '--seed',
      '21',
      '--sessions',
      '4',
      '--turns',
      '3',
      '--turn-tokens',
      String(TURN_TOKENS),
      '--think-time',
      '150ms',
      '--prompt-tokens',
      '48',
      '--max-tokens',
      '8',
      '--requests',
      '12',
      '--warmup',
      '2',
      '-q',
    ];
    await shardsMerged(args, 2, 'shard', true);

    const parts = await Promise.all([0, 1].map((i) => collect(readRecords(join(cwd, `shard-${i}`)))));
    // Shard i: sessions i+1, i+3 (1-based ids), whole; record indices never shared.
    expect([...bySession(parts[0]!).keys()].sort()).toEqual(['s-000001', 's-000003']);
    expect([...bySession(parts[1]!).keys()].sort()).toEqual(['s-000002', 's-000004']);
    for (const p of parts) expectWholeSessions(bySession(p), 3);
    const indices = parts.flat().map((r) => r.index);
    expect(new Set(indices).size).toBe(indices.length);

    const one = await readSummary(join(cwd, 'shard-whole'));
    const m = await readSummary(join(cwd, 'shard-merged'));
    expect(m.counts).toEqual(one.counts);
    expect(turnCounts(m)).toEqual(turnCounts(one));
    expect(turnCounts(m)).toEqual([
      [1, 4, 4],
      [2, 4, 4],
      [3, 4, 4],
    ]);
    expect(m.laterTurns?.requests).toBe(one.laterTurns?.requests);
    // Per-turn TTFTs merged through their histograms: as many as the shards had.
    expect(m.turns!.map((t) => t.ttft.count)).toEqual([4, 4, 4]);
  }, 90_000);
});

describe('multi-turn sessions with --shard and --workers 2', () => {
  it('the shard’s whole sessions are dealt to its workers, its turns at the shard’s positions', async () => {
    const base = sessionConfig();
    const { summary, dir } = await runBenchmark(
      sessionConfig({ load: { ...base.load, workers: 2 }, shard: { index: 1, count: 2 } }),
      { cwd },
    );
    expect(summary.meta.load.workers).toBe(2);
    expect(summary.meta.shard).toMatchObject({ index: 1, count: 2 });
    const rs = await collect(readRecords(dir));
    const sessions = bySession(rs);
    expect([...sessions.keys()].sort()).toEqual(['s-000002', 's-000004']);
    expectWholeSessions(sessions, 3);
    // Warmup 2 over 2 shards: this shard's warmup item is 1; its 6 turns are 2 + 1 + 2j.
    expect(rs.map((r) => r.index).sort((a, b) => a - b)).toEqual([1, 3, 5, 7, 9, 11, 13]);
  }, 60_000);
});

describe('multi-turn sessions with --shard in virtual time', () => {
  it('each virtual shard keeps whole sessions; the merge is the one virtual run', async () => {
    const args = [
      'run',
      '--time',
      'virtual',
      '--seed',
      '4',
      '--session-rate',
      '3',
      '--turns',
      '2-4',
      '--think-time',
      'exp:1s',
      '--prompt-tokens',
      '64',
      '--max-tokens',
      '16',
      '--requests',
      '60',
      '-q',
    ];
    await shardsMerged(args, 3, 'vs', true);
    const parts = await Promise.all([0, 1, 2].map((i) => collect(readRecords(join(cwd, `vs-${i}`)))));
    parts.forEach((p, i) => {
      for (const id of bySession(p).keys()) expect((Number(id.slice(2)) - 1) % 3, id).toBe(i);
    });
    const one = await readSummary(join(cwd, 'vs-whole'));
    const m = await readSummary(join(cwd, 'vs-merged'));
    expect(m.counts).toEqual(one.counts);
    expect(m.counts.attempted).toBe(60);
    expect(m.total_input_tokens).toBe(one.total_input_tokens);
    const rows = (s: RunSummary) =>
      (s.turns ?? []).map((t) => [t.turn, t.requests, t.completed, t.ttft.count, t.promptTokens.max]);
    expect(rows(m)).toEqual(rows(one));
    m.turns!.forEach((t, i) => {
      expect(t.ttft.p50).toBeCloseTo(one.turns![i]!.ttft.p50, 0);
      expect(t.promptTokens.mean).toBeCloseTo(one.turns![i]!.promptTokens.mean, 6);
    });
  }, 90_000);

  it('--stages with --shard in virtual time is refused with a hint', async () => {
    const r = await runCliInProcess(
      ['run', '--time', 'virtual', '--stages', '2s:10', '--shard', '0/2', '-o', 'vst', '-q'],
      { cwd },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--stages with --shard in virtual time');
    expect(r.stderr).toContain('run the shards in live time');
  });
});

/** Stages ramping to `target` over the first duration, holding it over the second: two workers against the engine. */
async function stagedRun(
  out: string,
  of: 'rate' | 'concurrency',
  target: number,
  durations: number[],
): Promise<RunSummary> {
  const shape =
    of === 'rate'
      ? { mode: 'open' as const, burstiness: 1 }
      : { mode: 'closed' as const, concurrency: target };
  const load = {
    ...shape,
    stages: durations.map((durationMs) => ({ durationMs, target })),
    stagesOf: of,
    durationMs: durations.reduce((a, d) => a + d, 0),
  };
  const { summary } = await runBenchmark(
    benchmarkConfig({
      url: sim.url,
      serverMetrics: { enabled: false },
      workload: { promptTokens: 32 },
      sampling: { maxTokens: 8 },
      load: { ...load, warmup: 0, workers: 2 },
      outDir: join(cwd, out),
    }),
    { cwd },
  );
  return summary;
}

describe('--stages split across workers and shards', () => {
  it('--workers 2, stages of concurrency: each stage holds about its mean target in flight', async () => {
    const summary = await stagedRun('stages-c', 'concurrency', 6, [1000, 1500]);
    expect(summary.meta.load.workers).toBe(2);
    const stages = summary.load.stages!;
    expect(stages.map((s) => s.targetMean)).toEqual([3, 6]);
    for (const s of stages) {
      expect(s.sent).toBeGreaterThan(0);
      expect(Math.abs(s.meanInFlight - s.targetMean)).toBeLessThan(0.25 * s.targetMean + 0.5);
    }
    expect(summary.counts.attempted).toBe(stages.reduce((n, s) => n + s.sent, 0));
    expect(summary.load.peakInFlight).toBeLessThanOrEqual(6);
  }, 60_000);

  it('--workers 2, stages of rate: each stage sends about its mean rate', async () => {
    const summary = await stagedRun('stages-r', 'rate', 40, [1000, 2000]);
    const stages = summary.load.stages!;
    expect(stages.map((s) => s.targetMean)).toEqual([20, 40]);
    // Poisson: 20 and 80 arrivals expected; within 35 %.
    stages.forEach((s) => {
      expect(Math.abs(s.achievedRate - s.targetMean)).toBeLessThan(0.35 * s.targetMean);
    });
    expect(summary.counts.attempted).toBe(stages.reduce((n, s) => n + s.sent, 0));
  }, 60_000);

  it('--shard: each shard sends its share of every stage; the merge adds the stages up', async () => {
    const args = [
      'run',
      '--url',
      sim.url,
      '--no-server-metrics',
      '--seed',
      '8',
      '--stages',
      '0s:50,2s:50',
      '--stages-of',
      'rate',
      '--prompt-tokens',
      '32',
      '--max-tokens',
      '8',
      '--warmup',
      '0',
      '-q',
    ];
    await shardsMerged(args, 2, 'st', false);
    const parts = await Promise.all([0, 1].map((i) => readSummary(join(cwd, `st-${i}`))));
    const m = await readSummary(join(cwd, 'st-merged'));
    const stage = m.load.stages!.find((s) => s.durationMs > 0)!;
    const shares = parts.map((p) => p.load.stages!.find((s) => s.durationMs > 0)!.sent);
    // Every other arrival of the one schedule: the shares differ by at most one.
    expect(Math.abs(shares[0]! - shares[1]!)).toBeLessThanOrEqual(1);
    expect(stage.sent).toBe(shares[0]! + shares[1]!);
    expect(m.counts.attempted).toBe(stage.sent);
    expect(Math.abs(stage.achievedRate - 50)).toBeLessThan(0.3 * 50);
  }, 60_000);
});

describe('stages of concurrency over shards', () => {
  it('shard i runs the stage users i, i+N, …: in flight per shard is its share, the merge the target', async () => {
    const args = [
      'run',
      '--url',
      sim.url,
      '--no-server-metrics',
      '--stages',
      '0s:5,1500ms:5',
      '--prompt-tokens',
      '32',
      '--max-tokens',
      '8',
      '--warmup',
      '0',
      '-q',
    ];
    await shardsMerged(args, 2, 'sc', false);
    const held = (s: RunSummary) => s.load.stages!.find((x) => x.durationMs > 0)!;
    const parts = await Promise.all([0, 1].map((i) => readSummary(join(cwd, `sc-${i}`))));
    // Users 0, 2, 4 on shard 0 and 1, 3 on shard 1.
    expect(parts.map((p) => p.load.peakInFlight)).toEqual([3, 2]);
    parts.forEach((p, i) => {
      expect(Math.abs(held(p).meanInFlight - [3, 2][i]!)).toBeLessThan(0.6);
    });
    const m = await readSummary(join(cwd, 'sc-merged'));
    expect(held(m).targetMean).toBe(5);
    expect(Math.abs(held(m).meanInFlight - 5)).toBeLessThan(1);
    expect(held(m).sent).toBe(held(parts[0]!).sent + held(parts[1]!).sent);
  }, 60_000);
});

describe('sessions on real worker threads (built package)', () => {
  it('--workers 2: every session whole and in order, the one-worker turn count', async () => {
    ensureBuilt();
    const mod = (await import(pathToFileURL(join(REPO, 'dist', 'runner', 'index.js')).href)) as {
      runBenchmark: typeof runBenchmark;
      benchmarkConfig: typeof benchmarkConfig;
    };
    const input = sessionConfig();
    const { summary, dir } = await mod.runBenchmark(
      mod.benchmarkConfig({
        url: sim.url,
        seed: input.seed,
        serverMetrics: { enabled: false },
        workload: input.workload,
        sampling: { maxTokens: 8 },
        load: { ...input.load, workers: 2 },
        outDir: join(cwd, 'threads'),
      }),
      { cwd },
    );
    expect(summary.meta.load.workers).toBe(2);
    expect(summary.counts.completed).toBe(12);
    // Threads run apart: on a busy machine one user may finish its session and start another
    // before a lagging one takes its last turn, so the turn rows are not pinned here (the
    // in-process test above pins them); every session is whole and in order, whichever it was.
    expect((summary.turns ?? []).reduce((n, t) => n + t.requests, 0)).toBe(12);
    const sessions = bySession(await collect(readRecords(dir)));
    expectWholeSessions(sessions);
    expect([...sessions.keys()].sort().slice(0, 4)).toEqual(['s-000001', 's-000002', 's-000003', 's-000004']);
    expect([...sessions.values()].filter((rs) => rs.length === 3).length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
