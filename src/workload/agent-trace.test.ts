import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failure, kinds, line, model } from '../../test/fixtures/agent-trace.js';
import { ExitCode } from '../errors.js';
import type { AgentTraceStep } from './agent-trace.js';
import { loadAgentTrace, parseAgentTrace } from './agent-trace-file.js';

describe("goodput's agent-trace JSONL", () => {
  it('reads runs with their steps, start times, system prompts, fan-outs and joins', () => {
    const text = [
      line({
        run: 'checkout',
        start_ms: 250,
        system_tokens: 300,
        tools: 2,
        steps: [
          model(200, 16, { tools: ['search', 'fetch'] }),
          { kind: 'tool', latency_ms: 120, result_tokens: 50 },
          model(0, 16, { delay_ms: 40 }),
          {
            kind: 'fan_out',
            agents: [
              { steps: [model(40, 8)] },
              { share: 'system', steps: [{ kind: 'model', input_text: 'Look.', output_tokens: 8 }] },
            ],
          },
          { kind: 'join' },
          model(10, 16),
        ],
      }),
      '',
      line({ start_ms: 0, steps: [model(100, 4)] }),
    ].join('\n');
    const trace = parseAgentTrace(text, 't.jsonl');
    expect(trace.format).toBe('goodput');
    expect(trace.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Sorted by start time; a run without a name is named by its line.
    expect(trace.runs.map((r) => [r.id, r.startMs])).toEqual([
      ['line 3', 0],
      ['checkout', 250],
    ]);
    const run = trace.runs[1]!;
    expect(run.systemTokens).toBe(300);
    expect(run.tools).toBe(2);
    expect(kinds(run.steps)).toEqual(['model', 'tool', 'model', 'fan_out', 'join', 'model']);
    expect(run.steps[0]).toEqual({
      kind: 'model',
      input: { tokens: 200 },
      outputTokens: 16,
      tools: ['search', 'fetch'],
    });
    expect(run.steps[1]).toEqual({ kind: 'tool', latencyMs: 120, result: { tokens: 50 } });
    expect(run.steps[2]).toMatchObject({ delayMs: 40 });
    const fan = run.steps[3] as Extract<AgentTraceStep, { kind: 'fan_out' }>;
    expect(fan.agents.map((a) => a.share)).toEqual(['conversation', 'system']);
    expect(fan.agents[1]!.steps[0]).toMatchObject({ input: { text: 'Look.' } });
  });

  const malformed: Array<[string, string, RegExp]> = [
    [
      'a line that is not JSON',
      `${line({ steps: [model(1, 1)] })}\n{"steps": [`,
      /t\.jsonl:2: not valid JSON/,
    ],
    [
      'a first line cut short',
      `{"steps": [{"kind"\n${line({ steps: [model(1, 1)] })}`,
      /t\.jsonl:1: not valid JSON/,
    ],
    ['a document that is not JSON', '{\n  "steps": [\n', /t\.jsonl \(one JSON document\): not valid JSON/],
    [
      'an unknown step kind',
      line({ steps: [{ kind: 'tools' }] }),
      /t\.jsonl:1: field "steps\[0\]\.kind": .*did you mean tool/,
    ],
    [
      'a model call without output_tokens',
      line({ steps: [{ kind: 'model', input_tokens: 3 }] }),
      /field "steps\[0\]\.output_tokens": missing/,
    ],
    [
      'a negative tool latency',
      line({ steps: [model(1, 1), { kind: 'tool', latency_ms: -5 }] }),
      /field "steps\[1\]\.latency_ms": -5 is not from 0/,
    ],
    [
      'an unknown field',
      line({ steps: [model(1, 1, { max_tokens: 3 })] }),
      /field "steps\[0\]\.max_tokens": unknown field/,
    ],
    [
      'fractional tokens',
      line({ steps: [model(1.5, 1)] }),
      /field "steps\[0\]\.input_tokens": expected a whole number/,
    ],
    [
      'tokens and text at once',
      line({ steps: [model(1, 1, { input_text: 'x' })] }),
      /give input_tokens or input_text, not both/,
    ],
    ['no model call', line({ steps: [{ kind: 'join' }] }), /field "steps": no model call/],
    [
      'a sub-agent share that is neither',
      line({ steps: [model(1, 1), { kind: 'fan_out', agents: [{ share: 'all', steps: [model(1, 1)] }] }] }),
      /field "steps\[1\]\.agents\[0\]\.share": expected "conversation" or "system"/,
    ],
    [
      'a line that is a list',
      `${line({ steps: [model(1, 1)] })}\n[1, 2]`,
      /t\.jsonl:2: expected a JSON object/,
    ],
    [
      'start times on some runs only',
      `${line({ start_ms: 0, steps: [model(1, 1)] })}\n${line({ run: 'b', steps: [model(1, 1)] })}`,
      /field "start_ms": run b has none while others have one/,
    ],
    ['no run at all', '\n\n', /t\.jsonl: holds no agent run/],
  ];
  for (const [what, text, message] of malformed)
    it(`refuses ${what}, naming the line and the field`, () => {
      const e = failure(text);
      expect(e.code).toBe('E_DATASET');
      expect(e.message).toMatch(message);
      expect(e.hint).toBeTruthy();
    });

  it('bounds what one line may hold: nesting depth, steps per agent', () => {
    let agent: object = { steps: [model(1, 1)] };
    for (let i = 0; i < 9; i++) agent = { steps: [model(1, 1), { kind: 'fan_out', agents: [agent] }] };
    expect(failure(line(agent)).message).toMatch(/nested deeper than 8 levels/);
    const long = { steps: Array.from({ length: 10_001 }, () => model(1, 1)) };
    expect(failure(line(long)).message).toMatch(/field "steps": expected a list of 1 to 10000 steps/);
  });

  it('reads a file streamed with its sha256; a missing file is a usage error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'goodput-agent-trace-'));
    const path = join(dir, 'runs.jsonl');
    const text = `${line({ steps: [model(5, 5)] })}\n${line({ steps: [model(6, 6)] })}`;
    await writeFile(path, text);
    const trace = await loadAgentTrace(path);
    expect(trace.runs).toHaveLength(2);
    expect(trace.sha256).toBe(parseAgentTrace(text, path).sha256);
    await expect(loadAgentTrace(join(dir, 'none.jsonl'))).rejects.toMatchObject({ code: 'E_USAGE' });
  });

  it('a FIFO nobody writes to: the read stops when told to (exit 130)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'goodput-agent-trace-'));
    const fifo = join(dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    await expect(loadAgentTrace(fifo, { signal: stop.signal })).rejects.toMatchObject({
      code: 'E_DATASET',
      exitCode: ExitCode.INTERRUPTED,
    });
  });
});
