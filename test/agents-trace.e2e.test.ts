/**
 * Replay of recorded agent runs (`--agent-trace`) against the embedded engine: in virtual time,
 * the trace's steps, tool waits, fan-outs, joins and start times come back in the records and
 * the summary's agent figures; live through a recording proxy, every call of a run carries the
 * run's X-Session-ID; on the command line, a bad trace exits 2 naming its line and field.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { renderRunTable } from '../src/report/index.js';
import { collect, readRecords } from '../src/results/index.js';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import { startSim } from '../src/sim/index.js';
import type { RequestRecord } from '../src/types.js';
import { agentTraceWorkload, parseAgentTrace } from '../src/workload/index.js';
import { line, model, tool } from './fixtures/agent-trace.js';
import { runCliInProcess } from './helpers/cli.js';
import { recordingProxy } from './helpers/recording-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-agent-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Run A at 0: a tool, then 3 sub-agents from its conversation (each with a tool), joined, then an answer.
// Run B at 1000 ms: a tool, then an answer.
const TRACE = [
  line({
    run: 'A',
    start_ms: 0,
    system_tokens: 256,
    steps: [
      model(400, 24),
      tool(200, 64),
      model(0, 24),
      {
        kind: 'fan_out',
        agents: [1, 2, 3].map(() => ({ steps: [model(60, 16), tool(80, 32), model(0, 16)] })),
      },
      { kind: 'join' },
      model(20, 24),
    ],
  }),
  line({ run: 'B', start_ms: 1000, steps: [model(300, 24), tool(150, 40), model(0, 24)] }),
].join('\n');

async function replay(text: string, timeScale: number) {
  const trace = parseAgentTrace(text, join(dir, 'trace.jsonl'));
  const config = benchmarkConfig({
    sim: { timeMode: 'virtual' },
    load: { concurrency: 1 },
    workload: { agents: agentTraceWorkload(trace, { concurrency: 2, timeScale }) },
    sampling: { temperature: 0, maxTokens: 32, ignoreEos: false },
    outDir: mkdtempSync(join(dir, 'run-')),
  });
  const result = await runBenchmark(config, { cwd: dir, quiet: true });
  const records: RequestRecord[] = await collect(readRecords(result.dir));
  const of = (agent: string) =>
    records.filter((r) => r.sessionId === agent).sort((x, y) => x.turn! - y.turn!);
  return { ...result, records, of };
}

describe('agent trace replay against the embedded engine', () => {
  it('replays steps, tool waits, fan-outs and joins at the recorded start times (virtual time)', async () => {
    const { records, summary, of } = await replay(TRACE, 0.5);
    // A: 3 calls of its own and 2 for each of 3 sub-agents; B: 2.
    expect(records.length).toBe(11);
    expect(summary.completed).toBe(11);
    const a = of('a-000000');
    const b = of('a-000001');
    expect(a.map((r) => r.turn)).toEqual([1, 2, 3]);
    expect(b.map((r) => r.turn)).toEqual([1, 2]);
    const subs = [1, 2, 3].map((k) => of(`a-000000.${k}`));
    for (const s of subs) expect(s.map((r) => r.turn)).toEqual([1, 2]);
    expect(
      records.every((r) => r.agentRun === (r.sessionId!.startsWith('a-000001') ? 'a-000001' : 'a-000000')),
    ).toBe(true);
    // Calls the trace followed with a tool or a fan-out called one; the last ones answered.
    expect([a[0], a[1], b[0], ...subs.map((s) => s[0])].every((r) => r!.toolCalls === 1)).toBe(true);
    expect([a[2], b[1], ...subs.map((s) => s[1])].every((r) => r!.toolCalls === undefined)).toBe(true);
    // Tool waits as recorded, on the record of the call after them and in the clock.
    expect(a[1]!.toolWaitMs).toBe(200);
    expect(a[1]!.sentMs - a[0]!.endMs).toBeGreaterThanOrEqual(200);
    expect(b[1]!.toolWaitMs).toBe(150);
    for (const s of subs) {
      expect(s[1]!.toolWaitMs).toBe(80);
      expect(s[1]!.sentMs - s[0]!.endMs).toBeGreaterThanOrEqual(80);
    }
    // The join: A's answer waits for every sub-agent, and is no tool wait.
    expect(a[2]!.sentMs).toBeGreaterThanOrEqual(Math.max(...subs.map((s) => s[1]!.endMs)));
    expect(a[2]!.toolWaitMs).toBeUndefined();
    // Sub-agents start from A's conversation (its system prompt, task, tool result and call).
    for (const s of subs) expect(s[0]!.promptTokens).toBeGreaterThan(a[1]!.promptTokens + 60);
    expect(a[0]!.promptTokens).toBeGreaterThanOrEqual(656);
    // Output limits as recorded; B starts 1000 ms × 0.5 after A.
    expect(a[0]!.maxTokens ?? 24).toBe(24);
    expect(b[0]!.sentMs - a[0]!.sentMs).toBeGreaterThanOrEqual(500);
    expect(b[0]!.sentMs - a[0]!.sentMs).toBeLessThan(510);
    // The summary's agent figures and the trace it replayed.
    const ag = summary.agents!;
    expect(ag.runs).toBe(2);
    expect(ag.completedRuns).toBe(2);
    expect(ag.subAgents).toBe(3);
    expect(ag.modelCalls).toBe(11);
    expect(ag.toolWaitMs.count).toBe(5);
    expect(ag.toolWaitMs.p50).toBeCloseTo(80, 0);
    expect(ag.toolWaitMs.max).toBeCloseTo(200, 0);
    expect(ag.stepsPerRun.max).toBe(9);
    const spec = summary.meta.workload.agents!;
    expect(spec.trace).toMatchObject({ format: 'goodput', runs: 2, timeScale: 0.5 });
    expect(spec.trace!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(spec.fanOut).toBe(3);
    expect(spec.toolLatencyMs).toMatchObject({ kind: 'empirical', mean: (200 + 150 + 3 * 80) / 5 });
    expect(renderRunTable(summary, { color: false })).toMatch(
      /Agents[\s\S]*tool wait \(ms\)[\s\S]*replayed from\s+trace\.jsonl \(goodput, 2 runs, start times × 0\.5\)/,
    );
  });

  it('replays a WEKA trace: tool_use gaps as tool waits, subagents fanned out and joined', async () => {
    const call = (t: number, input: number, out: number, stop: string) => ({
      t,
      type: 'n',
      model: 'm',
      in: input,
      out,
      stop,
      api_time: 0.5,
    });
    const sub = (t: number) => ({
      t,
      type: 'subagent',
      agent_id: 's',
      subagent_type: 'Explore',
      status: 'completed',
      models: ['m'],
      requests: [call(t, 300, 8, 'end_turn')],
    });
    const weka = line({
      id: 'trace_0001',
      models: ['m'],
      block_size: 64,
      hash_id_scope: 'local',
      system_tokens: 200,
      tool_tokens: 100,
      requests: [
        call(0, 700, 16, 'tool_use'),
        call(0.8, 800, 16, 'tool_use'),
        sub(2),
        sub(2),
        call(4, 900, 16, 'end_turn'),
      ],
    });
    const { records, summary, of } = await replay(`${weka}\n${weka}`, 1);
    // Two runs back to back (2 at once): 3 calls each and 2 sub-agents of one call.
    expect(records.length).toBe(10);
    const own = of('a-000000');
    expect(own.map((r) => r.turn)).toEqual([1, 2, 3]);
    // 0.8 s − (0 + 0.5 s) of tool.
    expect(own[1]!.toolWaitMs).toBe(300);
    expect(own[2]!.sentMs).toBeGreaterThanOrEqual(
      Math.max(of('a-000000.1')[0]!.endMs, of('a-000000.2')[0]!.endMs),
    );
    expect(summary.agents!.subAgents).toBe(4);
    expect(summary.meta.workload.agents!.trace).toMatchObject({ format: 'weka', runs: 2 });
  });

  it('live, on the command line: every call of a run carries its X-Session-ID; a bad trace exits 2', async () => {
    const sim = await startSim({ host: '127.0.0.1', port: 0, seed: 3 });
    const proxy = await recordingProxy(sim.url);
    try {
      const path = join(dir, 'live.jsonl');
      const run = (task: string) =>
        line({
          steps: [
            { kind: 'model', input_text: task, output_tokens: 4 },
            tool(5, 8),
            { kind: 'fan_out', agents: [{ steps: [model(10, 4)] }, { steps: [model(10, 4)] }] },
            { kind: 'join' },
            model(5, 4),
          ],
        });
      writeFileSync(path, [run('Alpha task.'), run('Beta task.')].join('\n'));
      const out = join(dir, 'live-out');
      const r = await runCliInProcess(
        ['run', '--url', proxy.url, '--agent-trace', path, '--agents', '2', '--out', out, '--quiet'],
        { cwd: dir },
      );
      expect(r.code, r.stderr).toBe(ExitCode.OK);
      // 2 runs × (2 calls + 2 sub-agents of one call).
      expect(proxy.bodies.length).toBe(8);
      const ids = new Map<string, Set<string>>();
      proxy.bodies.forEach((body, i) => {
        const text = JSON.stringify(body.messages);
        const task = text.includes('Alpha task.') ? 'alpha' : text.includes('Beta task.') ? 'beta' : 'none';
        const set = ids.get(task) ?? new Set<string>();
        set.add(String(proxy.headers[i]!['x-session-id']));
        ids.set(task, set);
      });
      expect([...ids.keys()].sort()).toEqual(['alpha', 'beta']);
      expect(ids.get('alpha')!.size).toBe(1);
      expect(ids.get('beta')!.size).toBe(1);
      expect([...ids.get('alpha')!][0]).not.toBe([...ids.get('beta')!][0]);
      // The sub-agents' calls and the run's answer start with the run's conversation at the
      // fan-out, message for message: its task, its tool call, the tool's result.
      const alpha = proxy.bodies.filter((b) => JSON.stringify(b.messages).includes('Alpha task.'));
      const later = alpha.filter((b) => b.messages.length >= 4);
      expect(later).toHaveLength(3);
      for (const b of later) expect(b.messages.slice(0, 3)).toEqual(later[0]!.messages.slice(0, 3));
      expect(later[0]!.messages.map((m) => m.role).slice(0, 3)).toEqual(['user', 'assistant', 'tool']);

      // --requests cuts the replay: a run due an hour later is not waited for.
      const sent = proxy.bodies.length;
      const late = [
        line({ start_ms: 0, steps: [model(20, 4), tool(5, 8), model(5, 4)] }),
        line({ start_ms: 3_600_000, steps: [model(20, 4)] }),
      ];
      writeFileSync(path, late.join('\n'));
      const cut = await runCliInProcess(
        [
          'run',
          '--url',
          proxy.url,
          '--agent-trace',
          path,
          '--requests',
          '2',
          '--out',
          join(dir, 'cut'),
          '--quiet',
        ],
        { cwd: dir },
      );
      expect(cut.code, cut.stderr).toBe(ExitCode.OK);
      expect(proxy.bodies.length - sent).toBe(2);

      writeFileSync(
        path,
        `${run('x')}\n${line({ steps: [model(1, 1), { kind: 'tool', latency_ms: 'slow' }] })}`,
      );
      const bad = await runCliInProcess(
        ['run', '--agent-trace', path, '--time', 'virtual', '--out', out, '--force'],
        { cwd: dir },
      );
      expect(bad.code).toBe(ExitCode.USAGE);
      expect(bad.stderr).toMatch(/live\.jsonl:2: field "steps\[1\]\.latency_ms": expected a number/);
      const mixed = await runCliInProcess(['run', '--agent-trace', path, '--agent-steps', '3'], { cwd: dir });
      expect(mixed.code).toBe(ExitCode.USAGE);
      expect(mixed.stderr).toMatch(/--agent-steps cannot be used with --agent-trace/);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });
});
