import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARK_OPTIONS, SHARD_OPTIONS } from './options/index.js';
import { parseArgv } from './parse.js';
import { resolveBenchmarkConfig } from './resolve.js';
import type { CommandSpec } from './spec.js';

const spec: CommandSpec = {
  name: 'run',
  summary: '',
  options: { ...BENCHMARK_OPTIONS, ...SHARD_OPTIONS },
  run: async () => 0,
};
const dir = mkdtempSync(join(tmpdir(), 'goodput-agent-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const resolve = async (argv: string[]) => resolveBenchmarkConfig(parseArgv(spec, argv), {}, dir);

describe('tool and agent flags', () => {
  it('--tools N offers synthetic functions with a tool_choice; --tools FILE reads definitions in either nesting', async () => {
    const synthetic = await resolve(['--tools', '3', '--tool-choice', 'required']);
    expect(synthetic.workload.tools?.spec).toEqual({ count: 3, choice: 'required' });
    expect(synthetic.workload.tools?.definitions.map((t) => t.name)).toEqual(['tool_0', 'tool_1', 'tool_2']);
    const file = join(dir, 'tools.json');
    writeFileSync(
      file,
      JSON.stringify([
        { type: 'function', function: { name: 'search', description: 'd' } },
        { name: 'read' },
      ]),
    );
    const fromFile = await resolve(['--tools', file, '--tool-choice', 'read']);
    expect(fromFile.workload.tools?.definitions).toEqual([
      { name: 'search', description: 'd' },
      { name: 'read' },
    ]);
    expect(fromFile.workload.tools?.spec.choice).toEqual({ name: 'read' });
    expect(fromFile.workload.tools?.spec.file?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('--agents takes its shape flags and defaults, and the engine its tool-call fraction', async () => {
    const c = await resolve([
      '--agents',
      '3',
      '--agent-fan-out',
      '2',
      '--tool-latency',
      'uniform:50-150',
      '--tool-call-fraction',
      '0.2',
    ]);
    expect(c.workload.agents?.spec).toMatchObject({
      concurrency: 3,
      steps: 4,
      fanOut: 2,
      fanOutStep: 2,
      subSteps: 2,
      tools: 4,
      toolChoice: 'required',
    });
    expect(c.workload.agents?.spec.toolLatencyMs.text).toBe('uniform:50-150');
    expect(c.sim?.toolCallFraction).toBe(0.2);
  });

  it('--agent-trace reads the runs now: all of them unless --requests cuts, --time-scale and --agents kept', async () => {
    const file = join(dir, 'runs.jsonl');
    const step = { kind: 'model', input_tokens: 10, output_tokens: 5 };
    writeFileSync(file, `${JSON.stringify({ steps: [step] })}\n${JSON.stringify({ steps: [step, step] })}\n`);
    const c = await resolve(['--agent-trace', file, '--agents', '2', '--time-scale', '0.5', '--tools', '3']);
    const agents = c.workload.agents!;
    expect(agents.trace?.runs).toHaveLength(2);
    expect(agents.spec).toMatchObject({ concurrency: 2, steps: 2, tools: 3 });
    expect(agents.spec.trace).toMatchObject({ path: file, format: 'goodput', runs: 2, timeScale: 0.5 });
    expect(c.load.requests).toBeUndefined();
    expect((await resolve(['--agent-trace', file, '--requests', '7'])).load.requests).toBe(7);
  });

  it.each([
    [['--agent-trace', 'missing.jsonl'], /cannot read --agent-trace/],
    [['--agent-trace-format', 'weka'], /--agent-trace-format needs --agent-trace/],
    [['--time-scale', '2'], /--time-scale needs --trace/],
    [['--agent-steps', '3'], /--agent-steps needs --agents/],
    [['--tool-choice', 'auto'], /--tool-choice needs --tools/],
    [['--tools', '2', '--tool-choice', 'nope'], /names no offered tool/],
    [['--tools', 'missing.json'], /--tools missing.json/],
    [['--agents', '2', '--agent-fan-out', '2', '--agent-fan-out-step', '4'], /is not before the last/],
    [['--agents', '2', '--tool-choice', 'none'], /cannot drive an agent/],
    [['--agents', '2', '--api', 'completions'], /need --api chat or responses/],
    [['--url', 'http://127.0.0.1:9', '--tool-call-fraction', '0.5'], /embedded engine only/],
  ])('%j is a usage error naming the fix', async (argv, message) => {
    await expect(resolve(argv)).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringMatching(message),
    });
  });
});
