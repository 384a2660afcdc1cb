import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, readRecords } from '../src/results/index.js';
import type { RunSummary } from '../src/types.js';
import { runCliInProcess, virtualRunSummary } from './helpers/cli.js';

const tmp = () => mkdtemp(join(tmpdir(), 'goodput-classes-'));

/** Chat: short prompts, a tight TTFT SLO; batch: long prompts, a loose one. Priorities only when asked. */
function classFlags(priority: boolean): string[] {
  const p = (n: number) => (priority ? `,priority=${n}` : '');
  return [
    '--class',
    `name=chat,share=0.7,prompt-tokens=128,max-tokens=64,slo-ttft=400${p(0)}`,
    '--class',
    `name=batch,share=0.3,prompt-tokens=3000,max-tokens=128,slo-ttft=20s${p(1)}`,
  ];
}

async function twoClassRun(priority: boolean): Promise<{ dir: string; summary: RunSummary }> {
  const dir = await tmp();
  return {
    dir,
    summary: await virtualRunSummary(dir, [
      '--rate',
      '40',
      '--requests',
      '300',
      '--warmup',
      '0',
      '--seed',
      '7',
      ...classFlags(priority),
      ...(priority ? ['--scheduling-policy', 'priority'] : []),
    ]),
  };
}

describe('traffic classes in one run (virtual time)', () => {
  it('tags records, keeps the shares, judges each class by its SLO, and priority scheduling helps the chat class', async () => {
    const [on, off] = await Promise.all([twoClassRun(true), twoClassRun(false)]);
    const records = await collect(readRecords(on.dir));
    const chat = records.filter((r) => r.class === 'chat').length;
    expect(chat + records.filter((r) => r.class === 'batch').length).toBe(records.length);
    // Shares are dealt exactly in every block of 100 positions (warmup included).
    expect(chat / records.length).toBeCloseTo(0.7, 1);

    const byName = (s: RunSummary) => Object.fromEntries((s.classes ?? []).map((c) => [c.name, c]));
    const a = byName(on.summary);
    const b = byName(off.summary);
    expect(Object.keys(a)).toEqual(['chat', 'batch']);
    expect(a.chat!.goodput.slo.ttftMs).toBe(400);
    expect(a.batch!.goodput.slo.ttftMs).toBe(20000);
    expect(a.chat!.priority).toBe(0);
    expect(a.chat!.counts.attempted + a.batch!.counts.attempted).toBe(on.summary.counts.attempted);
    // The run's goodput judges each request by its own class's SLO: the classes' good requests add up.
    expect(a.chat!.goodput.goodRequests + a.batch!.goodput.goodRequests).toBe(
      on.summary.goodput.goodRequests,
    );
    // Long prompts take longer to the first token, yet the batch class's loose SLO keeps it whole.
    expect(a.batch!.latency.ttft.p50).toBeGreaterThan(a.chat!.latency.ttft.p50);
    expect(a.batch!.goodput.attainment).toBeGreaterThan(0.9);

    // Priority on: the chat class jumps the queue. Its TTFT tail shrinks, its attainment rises.
    expect(on.summary.meta.target.simSchedulingPolicy).toBe('priority');
    expect(off.summary.meta.target.simSchedulingPolicy).toBeUndefined();
    expect(a.chat!.latency.ttft.p99).toBeLessThan(0.5 * b.chat!.latency.ttft.p99);
    expect(a.chat!.goodput.attainment).toBeGreaterThan(b.chat!.goodput.attainment + 0.3);

    // The gate reads each class's figure against its own threshold.
    const chatP99 = a.chat!.latency.ttft.p99;
    const gate = (dir: string, ...thresholds: string[]) =>
      runCliInProcess(['gate', '--from', dir, ...thresholds], { cwd: dir });
    const pass = await gate(
      on.dir,
      `p99(ttft){class=chat}<${Math.ceil(chatP99) + 1}`,
      'attainment{class=batch}>=0.9',
    );
    expect(pass.stdout).toMatch(/\[GATE PASS\] p99\(ttft\)\{class=chat\}/);
    expect(pass.code).toBe(0);
    // The same limit on the run without priorities is breached by its chat class.
    const breach = await gate(off.dir, `p99(ttft){class=chat}<${Math.ceil(chatP99) + 1}`);
    expect(breach.stdout).toMatch(/\[GATE FAIL\] p99\(ttft\)\{class=chat\}/);
    expect(breach.code).toBe(4);
    // compare --class: the chat class alone, priorities off (baseline) against on.
    const cmp = await runCliInProcess(
      ['compare', off.dir, on.dir, '--class', 'chat', '--json', '--allow-different'],
      {
        cwd: on.dir,
      },
    );
    expect(cmp.code).toBe(0);
    const deltas = (
      JSON.parse(cmp.stdout) as { comparisons: { deltas: { key: string; verdict: string; b?: number }[] }[] }
    ).comparisons[0]!.deltas;
    expect(deltas.find((d) => d.key === 'ttft_p99')?.verdict).toBe('better');
    const noClass = await runCliInProcess(['compare', off.dir, on.dir, '--class', 'search'], { cwd: on.dir });
    expect(noClass.code).toBe(2);
    expect(noClass.stderr).toMatch(/no traffic class 'search' \(its classes: chat, batch\)/);
    const unknown = await gate(on.dir, 'p99(ttft){class=search}<1000');
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/no traffic class 'search' \(its classes: chat, batch\)/);
  });
});
