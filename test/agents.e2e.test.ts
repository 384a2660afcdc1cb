import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../src/report/html/index.js';
import { RunChartBuilder } from '../src/report/html/prepare.js';
import { renderRunMarkdown, renderRunTable } from '../src/report/index.js';
import { collect, readRecords } from '../src/results/index.js';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import type { RequestRecord } from '../src/types.js';
import { agentWorkload } from '../src/workload/index.js';

function chartsOf(summary: Parameters<typeof renderRunMarkdown>[0], records: RequestRecord[]) {
  const builder = new RunChartBuilder(summary);
  for (const r of records) builder.addRecord(r);
  return builder.finish();
}

const tmp = () => mkdtemp(join(tmpdir(), 'goodput-agents-'));

async function agentRun(
  fanOut: number,
  requests: number,
  timeMode: 'virtual' | 'live' = 'virtual',
  api: 'chat' | 'responses' = 'chat',
) {
  const config = benchmarkConfig({
    api,
    sim: { timeMode },
    load: { concurrency: 2, requests },
    workload: {
      promptTokens: 512,
      systemPromptTokens: 256,
      agents: agentWorkload({
        concurrency: 2,
        steps: 4,
        fanOut,
        fanOutStep: 2,
        subSteps: 2,
        toolLatency: timeMode === 'live' ? '5' : '50',
      }),
    },
    sampling: { temperature: 0, maxTokens: timeMode === 'live' ? 8 : 32, ignoreEos: false },
    outDir: await tmp(),
  });
  const result = await runBenchmark(config, { cwd: process.cwd(), quiet: true });
  const records: RequestRecord[] = await collect(readRecords(result.dir));
  return { ...result, records };
}

describe('agent runs against the embedded engine', () => {
  it('streams tool calls, sends tool results back after the tool latency, fans out and joins (virtual time)', async () => {
    const { records, summary } = await agentRun(3, 60);
    expect(records.length).toBe(60);
    expect(summary.completed).toBe(60);
    const runs = new Map<string, RequestRecord[]>();
    for (const r of records) runs.set(r.agentRun!, [...(runs.get(r.agentRun!) ?? []), r]);
    const first = runs.get('a-000000')!;
    // The run's own steps 1..4, and 3 sub-agents of 2 steps each.
    const own = first.filter((r) => r.sessionId === 'a-000000');
    expect(own.map((r) => r.turn)).toEqual([1, 2, 3, 4]);
    for (const k of [1, 2, 3])
      expect(first.filter((r) => r.sessionId === `a-000000.${k}`).map((r) => r.turn)).toEqual([1, 2]);
    // Every step but an agent's last called a tool (tool_choice required); the last answers.
    expect(own.slice(0, 3).every((r) => r.toolCalls === 1 && r.finishReason !== 'stop')).toBe(true);
    expect(own[3]!.toolCalls).toBeUndefined();
    // Tool results went back: each later step's prompt is longer, after a 50 ms tool wait (not after the fan-out's join).
    expect(own[1]!.promptTokens).toBeGreaterThan(own[0]!.promptTokens + 64);
    expect(own[1]!.toolWaitMs).toBe(50);
    expect(own[1]!.sentMs - own[0]!.endMs).toBeGreaterThanOrEqual(50);
    expect(own[2]!.toolWaitMs).toBeUndefined();
    // The join: step 3 waits for every sub-agent.
    const subs = first.filter((r) => r.sessionId !== 'a-000000');
    expect(own[2]!.sentMs).toBeGreaterThanOrEqual(Math.max(...subs.map((r) => r.endMs)));
    // Per step kind and per run in the summary: every tool wait 50 ms, 10 calls a run (4 + 3×2).
    const a = summary.agents!;
    expect(a.modelCalls).toBe(60);
    expect(a.subAgents).toBeGreaterThanOrEqual(3 * (a.runs - 1));
    expect(a.toolWaitMs.p50).toBeCloseTo(50, 0);
    expect(a.stepsPerRun.max).toBe(10);
    expect(a.completedRuns).toBeGreaterThanOrEqual(4);
    expect(a.runE2eMs.p50).toBeGreaterThan(a.modelCallMs.p50 * 4);
    expect(a.toolWaitShare).toBeGreaterThan(0);
    expect(a.toolWaitShare).toBeLessThan(1);
    expect(a.toolCalls).toBe(records.filter((r) => r.toolCalls === 1).length);
    // And in the report, terminal and Markdown.
    expect(renderRunTable(summary, { color: false })).toMatch(
      /Agents[\s\S]*tool wait \(ms\)[\s\S]*waiting on model vs tools/,
    );
    expect(renderRunMarkdown(summary)).toContain('### Agents');
    const html = renderHtmlReport(
      {
        title: 'agents',
        generatedAt: '2026-01-01T00:00:00Z',
        runs: [{ label: 'a', summary, charts: chartsOf(summary, records) }],
      },
      { uplotJs: '', uplotCss: '' },
    );
    expect(html).toMatch(/<section id="agents"><h2>Agents<\/h2>[\s\S]*tool wait \(ms\)/);
  });

  it('fan-out sub-agents share the parent prefix: the prefix-cache hit rate rises with fan-out', async () => {
    const none = await agentRun(0, 48);
    const wide = await agentRun(4, 48);
    const hit = (s: typeof none.summary) => s.server!.prefixCacheHitRate!;
    expect(hit(wide.summary)).toBeGreaterThan(hit(none.summary) + 0.05);
  });

  for (const api of ['chat', 'responses'] as const) {
    it(`${api}, live: the streamed tool calls go back as tool messages and the runs answer`, async () => {
      const { records, summary } = await agentRun(2, 16, 'live', api);
      expect(summary.completed).toBe(16);
      const own = records.filter((r) => r.sessionId === 'a-000000').sort((x, y) => x.turn! - y.turn!);
      expect(own.slice(0, 3).every((r) => r.toolCalls === 1)).toBe(true);
      if (api === 'chat') expect(own[0]!.finishReason).toMatch(/tool_calls|length/);
      // The engine read the tool results: each step's prompt (as it counted it) grew by one.
      const served = own.map((r) => r.serverPromptTokens!);
      expect(served[1]!).toBeGreaterThan(served[0]! + 60);
      expect(summary.agents!.toolWaitMs.p50).toBeCloseTo(5, 0);
      expect(summary.agents!.completedRuns).toBeGreaterThanOrEqual(1);
    });
  }
});
