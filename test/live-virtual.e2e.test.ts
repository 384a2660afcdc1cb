/**
 * Live and virtual time run the same load loop (runLoad with an injected clock), so the same
 * workload has the same structure in both: a closed loop's warmup ends before the first
 * measured send, an open loop's is sent on its own arrivals before it and runs into it, the
 * same counts, the same ordering of sends, the same summary keys. Live runs the embedded
 * engine over loopback sockets; virtual runs it in-process on its simulated clock.
 *
 * @module
 */

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, readRecords } from '../src/results/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';

const WORKLOADS: Record<string, { args: string[]; warmup: number; open: boolean }> = {
  'open loop': { args: ['--rate', '5', '--requests', '20', '--warmup', '5'], warmup: 5, open: true },
  'closed loop': {
    args: ['--concurrency', '4', '--requests', '20', '--warmup', '3'],
    warmup: 3,
    open: false,
  },
};
/** Short answers keep the live runs to a few seconds; the loop's structure does not depend on them. */
const COMMON = [
  '--max-tokens',
  '16',
  '--prompt-tokens',
  '64',
  '--seed',
  '5',
  '--no-server-metrics',
  '--json',
];

async function run(
  time: 'live' | 'virtual',
  args: string[],
): Promise<{ summary: RunSummary; records: RequestRecord[] }> {
  const dir = await mkdtemp(join(tmpdir(), `goodput-lv-${time}-`));
  const out = join(dir, 'r');
  const { code, stdout, stderr } = await runCliInProcess(
    ['run', '--time', time, ...args, ...COMMON, '--out', out],
    {
      cwd: dir,
    },
  );
  expect(code, stderr).toBe(0);
  return { summary: JSON.parse(stdout) as RunSummary, records: await collect(readRecords(out)) };
}

/** The key paths of an object, sorted (arrays and records of figures are leaves). */
function keyPaths(x: unknown, prefix = ''): string[] {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return [prefix];
  return Object.keys(x as object)
    .sort()
    .flatMap((k) => keyPaths((x as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k));
}

/**
 * Keys only a live run can have: the connection warm-up and figures (virtual time opens no
 * socket), why the client was the bottleneck (set only when it was: a loaded machine, never
 * a simulated clock), the load thread's GC pauses (a pause stamps live reads late; it cannot
 * move a simulated clock) and an open loop's start window (a client warming up; a simulated
 * one sends on time).
 */
const LIVE_ONLY = /^load\.(connectionWarmup\.|connections\.|clientBoundReason$|gcPauses\.|startWindow\.)/;

/** What must agree between the two time modes: everything but the figures and what names the target. */
function structure(s: RunSummary): string[] {
  const { meta: _meta, server: _server, diagnosis: _diagnosis, histograms, ...rest } = s;
  return [
    ...keyPaths(rest).filter((k) => !LIVE_ONLY.test(k)),
    ...Object.keys(histograms).map((k) => `histograms.${k}`),
  ];
}

function checkStructure(records: RequestRecord[], warmup: number, open: boolean): void {
  const warm = records.filter((r) => r.warmup);
  const measured = records.filter((r) => !r.warmup).sort((a, b) => a.index - b.index);
  expect(warm).toHaveLength(warmup);
  expect(measured).toHaveLength(20);
  const firstMeasuredSend = Math.min(...measured.map((r) => r.sentMs));
  // Every warmup request is sent before the first measured one; a closed loop's has ended by then.
  for (const r of warm) expect(r.sentMs).toBeLessThanOrEqual(firstMeasuredSend);
  if (!open) for (const r of warm) expect(r.endMs).toBeLessThanOrEqual(firstMeasuredSend);
  // Items are handed out in index order: warmup first, then measured, each sent no earlier than the one before.
  expect(warm.map((r) => r.index).sort((a, b) => a - b)).toEqual([...Array(warmup).keys()]);
  expect(measured.map((r) => r.index)).toEqual(Array.from({ length: 20 }, (_, i) => warmup + i));
  for (let i = 1; i < measured.length; i++)
    expect(measured[i]!.sentMs).toBeGreaterThanOrEqual(measured[i - 1]!.sentMs);
  if (open) {
    // Open loop: each send, warmup included, at (not before) its schedule; the warmup's arrivals
    // before the measured start, one gap or more before the first measured one.
    for (const r of records) expect(r.sentMs).toBeGreaterThanOrEqual(r.scheduledMs - 0.001);
    const warmArrivals = warm.map((r) => r.scheduledMs).sort((a, b) => a - b);
    for (let i = 1; i < warmArrivals.length; i++)
      expect(warmArrivals[i]).toBeGreaterThan(warmArrivals[i - 1]!);
    expect(measured[0]!.scheduledMs).toBeGreaterThan(warmArrivals.at(-1)!);
  } else {
    // Closed loop: never more than 4 in flight.
    const edges = measured.flatMap((r) => [
      [r.sentMs, 1],
      [r.endMs, -1],
    ]);
    edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    let n = 0;
    for (const [, d] of edges) {
      n += d!;
      expect(n).toBeLessThanOrEqual(4);
    }
  }
}

describe('live and virtual time run the same load loop', () => {
  it.each(Object.keys(WORKLOADS))(
    '%s: warmup before the first measured send, same counts, ordering and summary keys',
    async (name) => {
      const w = WORKLOADS[name]!;
      const live = await run('live', w.args);
      const virt = await run('virtual', w.args);
      expect(live.summary.meta.target.timeMode).toBe('live');
      expect(virt.summary.meta.target.timeMode).toBe('virtual');
      for (const r of [live, virt]) checkStructure(r.records, w.warmup, w.open);
      expect(virt.summary.counts).toEqual(live.summary.counts);
      expect(virt.summary.counts).toMatchObject({ attempted: 20, completed: 20, warmup: w.warmup });
      // The same prompts and output lengths: the engine draws them the same way in both modes.
      expect(virt.summary.goodput.totalOutputTokens).toBe(live.summary.goodput.totalOutputTokens);
      expect(structure(virt.summary)).toEqual(structure(live.summary));
    },
    60_000,
  );
});
