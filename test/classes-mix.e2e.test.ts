import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, readRecords } from '../src/results/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';

async function run(dir: string, flags: string[]): Promise<RunSummary> {
  const { code, stderr } = await runCliInProcess(
    ['run', '--time', 'virtual', '--warmup', '0', '--seed', '11', ...flags, '--out', dir, '--quiet'],
    { cwd: dir },
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as RunSummary;
}

/** The most requests of a class in flight at once. */
function peakInFlight(records: readonly RequestRecord[]): number {
  const events = records.flatMap((r) => [
    [r.sentMs, 1],
    [r.endMs, -1],
  ]) as [number, number][];
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of events) {
    now += d;
    peak = Math.max(peak, now);
  }
  return peak;
}

describe('a mix of classes: tools, sessions and users per class (virtual time)', () => {
  it('gives each class its share of the closed loop users, its own turns and tools, and its own per-user figures', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'goodput-classmix-'));
    const summary = await run(dir, [
      '--sessions',
      '10',
      '--requests',
      '160',
      '--class',
      'name=chat,share=0.7,prompt-tokens=64,max-tokens=16,slo-ttft=2s,turns=1',
      '--class',
      'name=agent,share=0.3,prompt-tokens=400,max-tokens=48,tools=3,tool-choice=required,turns=4,think-time=50ms',
    ]);
    expect(summary.meta.workload.classShareOf).toBe('users');
    expect(summary.meta.workload.classes?.[1]?.sessions?.turns).toEqual({ min: 4, max: 4 });
    const records = (await collect(readRecords(dir))).filter((r) => !r.warmup);
    const chat = records.filter((r) => r.class === 'chat');
    const agent = records.filter((r) => r.class === 'agent');
    expect(chat.length + agent.length).toBe(160);
    // 7 of the 10 users hold chat sessions, 3 agent sessions: so many of each are in flight at the start.
    expect(peakInFlight(chat)).toBe(7);
    expect(peakInFlight(agent)).toBe(3);
    // Chat is single-turn without tools; an agent session runs 4 turns, each offering tools the engine calls.
    expect(new Set(chat.map((r) => r.turn))).toEqual(new Set([1]));
    expect(chat.every((r) => !r.toolCalls)).toBe(true);
    expect(Math.max(...agent.map((r) => r.turn ?? 0))).toBe(4);
    expect(agent.filter((r) => r.outcome === 'success').every((r) => (r.toolCalls ?? 0) >= 1)).toBe(true);

    const [c, a] = summary.classes!;
    expect(c!.counts.attempted).toBe(chat.length);
    expect(a!.counts.attempted).toBe(agent.length);
    // Per-user tokens/s per class, over its own requests; the run's is over all of them.
    // (Requests with a rate: successful, more than one output token.)
    const rated = (rs: RequestRecord[]) =>
      rs.filter((r) => r.outcome === 'success' && (r.outputTokens ?? 0) > 1).length;
    expect(c!.perUser!.outputTokensPerS.count).toBe(rated(chat));
    expect(a!.perUser!.outputTokensPerS.count).toBe(rated(agent));
    expect(summary.perUser!.outputTokensPerS.count).toBe(rated(records));

    // Turn figures per class: the agent class's four turns, the chat class's one.
    expect(a!.turns?.map((t) => t.turn)).toEqual([1, 2, 3, 4]);
    expect(c!.turns?.map((t) => t.turn)).toEqual([1]);
    expect(c!.laterTurns).toBeUndefined();
    expect(a!.laterTurns?.requests).toBe(agent.filter((r) => (r.turn ?? 1) > 1).length);

    // The gate and the report read the class's per-user and later-turn figures.
    const p50 = a!.perUser!.outputTokensPerS.p50;
    const gate = await runCliInProcess(
      [
        'gate',
        '--from',
        dir,
        `user_tps_p50{class=agent}>${Math.floor(p50) - 1}`,
        'user_tps_p50{class=chat}>1',
        'ttft_p50_later_turns{class=agent}>0',
      ],
      { cwd: dir },
    );
    expect(gate.stdout).toMatch(/\[GATE PASS\] user_tps_p50\{class=agent\}/);
    expect(gate.stdout).toMatch(/\[GATE PASS\] ttft_p50_later_turns\{class=agent\}/);
    expect(gate.code).toBe(0);
    const report = await runCliInProcess(['report', dir, '--format', 'markdown'], { cwd: dir });
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('Per-user output tokens/s p50');
    expect(report.stdout).toContain('chat 70 %, agent 30 % of the users');
  });

  it('reads a class tools file and an empirical length histogram, and deals a closed loop by users', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'goodput-classmix-'));
    await writeFile(
      join(dir, 'tools.json'),
      JSON.stringify([{ type: 'function', function: { name: 'search' } }, { name: 'fetch' }]),
    );
    await writeFile(join(dir, 'lengths.csv'), 'tokens,count\n40,1\n120,3\n');
    const summary = await run(dir, [
      '--concurrency',
      '4',
      '--requests',
      '80',
      '--class',
      'name=chat,share=0.5,prompt-tokens-dist=empirical:lengths.csv,max-tokens=8',
      '--class',
      'name=tooled,share=0.5,prompt-tokens=200,max-tokens=8,tools=tools.json,tool-choice=fetch',
    ]);
    expect(summary.meta.workload.classShareOf).toBe('users');
    const [chatSpec, toolSpec] = summary.meta.workload.classes!;
    expect(chatSpec!.promptTokensDist).toMatchObject({ kind: 'empirical', mean: 100 });
    expect(chatSpec!.promptTokensDist!.source?.samples).toBe(4);
    expect(toolSpec!.tools).toMatchObject({ count: 2, choice: { name: 'fetch' } });
    expect(toolSpec!.tools!.file!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const records = await collect(readRecords(dir));
    const chat = records.filter((r) => r.class === 'chat');
    expect(new Set(chat.map((r) => r.promptTokens))).toEqual(new Set([40, 120]));
    expect(records.filter((r) => r.class === 'tooled').every((r) => r.toolCalls === 1)).toBe(true);
    expect(peakInFlight(chat)).toBe(2);
  });
});
