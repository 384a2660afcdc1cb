// runs alone: a live sweep asserts the client was not the bottleneck (event-loop delay)
/**
 * `goodput sweep` of multi-turn sessions and of a trace, against the embedded engine: a
 * sessions sweep's points run the point's sessions (at once, or new per second), never a
 * request cap under a fixed session count; a trace rate sweep replays the same requests of
 * the trace at each point's rate; combinations a sweep cannot run right are refused (exit 2).
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import type { SweepResult } from '../src/sweep/index.js';
import type { RunSummary } from '../src/types.js';
import { createRng } from '../src/workload/index.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';

let work: string;
let tracePath: string;
const TRACE_REQUESTS = 60;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'goodput-sweep-kinds-'));
  // A generic JSONL trace: 60 requests, exponential gaps of 200 ms on average (about 5 req/s).
  const rng = createRng('sweep-trace');
  let t = 0;
  const lines = Array.from({ length: TRACE_REQUESTS }, () => {
    t += Math.round(rng.gamma(1, 200));
    return JSON.stringify({ timestamp: t, input_length: 64 + rng.int(128), output_length: 4 + rng.int(12) });
  });
  tracePath = join(work, 'trace.jsonl');
  writeFileSync(tracePath, `${lines.join('\n')}\n`);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });
const sweepOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepResult;
const pointsOf = (s: SweepResult) => [...(s.anchors ?? []), ...s.points];
/** `goodput sweep ARGS --time virtual --out OUT`: the engine on a simulated clock. */
const virtualSweep = (out: string, args: string[]) =>
  cli(['sweep', ...args, '--time', 'virtual', '--out', out]);
const small = ['--prompt-tokens', '64', '--max-tokens', '16', '--bisect', '0'];

describe('sweep of multi-turn sessions', () => {
  it('runs each concurrency point as that many sessions at once (live time: no client-bound run)', async () => {
    const out = join(work, 'sessions-live');
    // --sessions 4 asks for sessions; the point (2) is how many run at once, with as many connections.
    const r = await cli([
      'sweep',
      '--sessions',
      '4',
      '--concurrency',
      '2',
      '--requests',
      '12',
      ...small,
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const sweep = sweepOf(out);
    expect(sweep.unit).toBe('sessions');
    const summary = readRunSummary(sweep.points[0]!.dir);
    expect(summary.meta.load.sessions).toEqual({ concurrency: 2 });
    expect(summary.meta.load.concurrency).toBe(2);
    expect(summary.load.peakInFlight).toBeLessThanOrEqual(2);
    expect(summary.load.clientBound, summary.load.clientBoundReason).toBe(false);
    expect((summary.diagnosis ?? []).map((f) => f.kind)).not.toContain('client-bound');
    expect(r.stdout).toContain('Capacity at SLO: 2 sessions at once');
  });

  it('sweeps sessions at once in virtual time: more sessions, more throughput', async () => {
    const out = join(work, 'sessions-virtual');
    const r = await virtualSweep(out, ['--session-rate', '1', '--concurrency', '1,4', ...small]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const sweep = sweepOf(out);
    const [one, four] = sweep.points.map((p) => readRunSummary(p.dir));
    expect(one!.meta.load.sessions).toEqual({ concurrency: 1 });
    expect(four!.meta.load.sessions).toEqual({ concurrency: 4 });
    expect(four!.meta.load.mode).toBe('closed');
    expect(sweep.points[1]!.sessionThroughput!).toBeGreaterThan(2 * sweep.points[0]!.sessionThroughput!);
  });

  it('takes --turns alone as a sweep of sessions', async () => {
    const out = join(work, 'turns');
    const r = await virtualSweep(out, ['--turns', '2', '--concurrency', '3', ...small]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    expect(r.stderr).toContain('--turns makes this a sweep of multi-turn sessions');
    const summary = readRunSummary(sweepOf(out).points[0]!.dir);
    expect(summary.meta.load.sessions).toEqual({ concurrency: 3 });
    expect(summary.meta.workload.sessions?.turns).toEqual({ min: 2, max: 2 });
    expect(summary.turns?.map((t) => t.turn)).toEqual([1, 2]);
  });

  it('sweeps the session rate between anchors run as sessions at once', async () => {
    const out = join(work, 'session-rate');
    const r = await virtualSweep(out, [
      '--sessions',
      '1',
      '--rate-max',
      'auto',
      '--steps',
      '2',
      '--throughput-concurrency',
      '6',
      ...small,
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const sweep = sweepOf(out);
    expect(sweep.unit).toBe('sessions');
    const [sync, tp] = sweep.anchors!;
    expect(readRunSummary(sync!.dir).meta.load.sessions).toEqual({ concurrency: 1 });
    expect(readRunSummary(tp!.dir).meta.load.sessions).toEqual({ concurrency: 6 });
    // The top rate is the throughput anchor's session throughput (sessions/s), not its request rate.
    const top = Math.max(...sweep.points.map((p) => p.load));
    expect(top).toBeCloseTo(tp!.sessionThroughput!, 1);
    expect(top).toBeLessThan(tp!.requestThroughput / 1.5);
    for (const p of sweep.points) {
      const load = readRunSummary(p.dir).meta.load;
      expect(load.mode).toBe('open');
      expect(load.sessions).toEqual({ rate: p.load });
      expect(load.rate).toBeUndefined();
      expect(load.concurrency).toBeUndefined();
      // Sessions start at the point's rate (within the noise of a short run).
      expect(p.sessionThroughput!).toBeGreaterThan(p.load * 0.6);
      expect(p.sessionThroughput!).toBeLessThan(p.load * 1.4);
    }
    expect(r.stdout).toMatch(/Capacity at SLO: [\d.]+ sessions\/s/);
  });
});

describe('sweep of a trace', () => {
  it('replays the same requests at each rate, the achieved rate tracking the point rate', async () => {
    const out = join(work, 'trace-rate');
    const r = await virtualSweep(out, [
      '--trace',
      tracePath,
      '--rate-max',
      '20',
      '--steps',
      '3',
      '--bisect',
      '0',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const sweep = sweepOf(out);
    expect(sweep.trace?.path).toBe(tracePath);
    const meanRate = sweep.trace!.meanRate!;
    expect(meanRate).toBeGreaterThan(3);
    expect(meanRate).toBeLessThan(8);
    const prompts = (s: RunSummary) => s.meta.workload.kind;
    for (const p of pointsOf(sweep)) {
      const summary = readRunSummary(p.dir);
      expect(prompts(summary)).toBe('trace');
      expect(summary.meta.workload.trace?.sha256).toMatch(/^[0-9a-f]{64}$/);
      if (p.mode === 'rate') {
        expect(summary.counts.attempted).toBe(TRACE_REQUESTS);
        expect(summary.meta.load.mode).toBe('open');
        expect(summary.meta.workload.trace?.timeScale).toBeCloseTo(meanRate / p.load, 6);
        expect(p.requestThroughput).toBeGreaterThan(p.load * 0.8);
        expect(p.requestThroughput).toBeLessThan(p.load * 1.1);
      } else {
        // The synchronous anchor measures a rate: the trace's first 40 requests, not all of it.
        expect(summary.meta.load).toMatchObject({ mode: 'closed', concurrency: 1 });
        expect(summary.counts.attempted).toBe(40);
      }
    }
    // Every rate point sent the same prompt lengths: the trace's.
    const rated = pointsOf(sweep).filter((p) => p.mode === 'rate');
    expect(rated.length).toBeGreaterThan(1);
    const tokens = rated.map((p) => readRunSummary(p.dir).total_input_tokens);
    expect(new Set(tokens).size).toBe(1);
  });

  it('replays the trace closed loop in a concurrency sweep', async () => {
    const out = join(work, 'trace-concurrency');
    const r = await virtualSweep(out, ['--trace', tracePath, '--concurrency', '1,4', '--bisect', '0']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const sweep = sweepOf(out);
    for (const [i, p] of sweep.points.entries()) {
      const summary = readRunSummary(p.dir);
      expect(summary.meta.load).toMatchObject({ mode: 'closed', concurrency: [1, 4][i] });
      expect(summary.counts.attempted).toBe(TRACE_REQUESTS);
    }
    expect(sweep.points[1]!.requestThroughput).toBeGreaterThan(2 * sweep.points[0]!.requestThroughput);
  });
});

describe('refusals (exit 2, with a hint, nothing run)', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      '--time-scale in a trace sweep',
      ['--trace', 'TRACE', '--rate-max', '5', '--time-scale', '2'],
      /--time-scale cannot be used in a sweep/,
    ],
    [
      'sessions with a trace',
      ['--trace', 'TRACE', '--sessions', '2'],
      /--sessions cannot be used with --trace/,
    ],
    ['--stages in a sweep', ['--stages', '5s:4'], /--stages cannot be used in a sweep/],
    ['two ways of starting sessions', ['--sessions', '2', '--session-rate', '1'], /cannot be used together/],
  ];
  it.each(cases)('%s', async (name, args, message) => {
    const out = join(work, `refused-${name.replace(/\W+/g, '-')}`);
    const r = await virtualSweep(
      out,
      args.map((a) => (a === 'TRACE' ? tracePath : a)),
    );
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/hint: \S/);
  });

  it('refuses a flag a trace replaces with a hint for a sweep (not the time scale it refuses)', async () => {
    const r = await virtualSweep(join(work, 'replaced'), [
      '--trace',
      tracePath,
      '--prompt-tokens',
      '100',
      '--rate-max',
      '5',
    ]);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toMatch(/--prompt-tokens cannot be used with --trace/);
    expect(r.stderr).toMatch(/hint: .*drop the flag/);
    expect(r.stderr).not.toMatch(/--time-scale/);
  });

  it('refuses a rate sweep of a trace whose requests have no time span', async () => {
    const flat = join(work, 'flat.jsonl');
    writeFileSync(flat, '{"timestamp":5,"input_length":10,"output_length":2}\n'.repeat(3));
    const r = await virtualSweep(join(work, 'flat'), ['--trace', flat, '--rate-max', '5']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toMatch(/no time span/);
    expect(r.stderr).toMatch(/hint: .*--concurrency/);
  });
});
