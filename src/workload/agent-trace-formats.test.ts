import { describe, expect, it } from 'vitest';
import { failure, kinds, line } from '../../test/fixtures/agent-trace.js';
import type { AgentTraceStep } from './agent-trace.js';
import { parseAgentTrace } from './agent-trace-file.js';

describe('WEKA traces', () => {
  const weka = (requests: unknown[]) =>
    line({
      id: 'trace_0001',
      models: ['m'],
      block_size: 64,
      hash_id_scope: 'local',
      system_tokens: 100,
      tool_tokens: 50,
      requests,
    });
  const call = (t: number, input: number, out: number, stop: string, api = 1) => ({
    t,
    type: 'n',
    model: 'm',
    in: input,
    out,
    hash_ids: [1, 2],
    stop,
    api_time: api,
  });

  it('turns calls into model steps, tool_use gaps into tool waits, end_turn gaps into delays, subagents into fan-outs', () => {
    const text = weka([
      call(0, 1150, 20, 'tool_use'),
      call(3.5, 1400, 30, 'end_turn'),
      call(10, 1500, 10, 'tool_use'),
      {
        t: 12,
        type: 'subagent',
        agent_id: 'a',
        subagent_type: 'Explore',
        status: 'completed',
        models: ['m'],
        requests: [call(12, 400, 5, 'end_turn')],
      },
      {
        t: 12,
        type: 'subagent',
        agent_id: 'b',
        subagent_type: 'Explore',
        status: 'completed',
        models: ['m'],
        requests: [call(12, 380, 5, 'end_turn')],
      },
      call(20, 1700, 40, 'end_turn'),
      {
        t: 25,
        type: 'subagent',
        agent_id: 'c',
        subagent_type: 'Explore',
        status: 'async_launched',
        models: ['m'],
        requests: [call(25, 200, 5, 'end_turn')],
      },
    ]);
    const trace = parseAgentTrace(text, 't.jsonl');
    expect(trace.format).toBe('weka');
    const run = trace.runs[0]!;
    expect(run.id).toBe('trace_0001');
    expect(run.startMs).toBeUndefined();
    // The system and tools prefix becomes the run's system prompt; the first call adds the rest.
    expect(run.systemTokens).toBe(150);
    expect(kinds(run.steps)).toEqual([
      'model',
      'tool',
      'model',
      'model',
      'fan_out',
      'join',
      'model',
      'fan_out',
    ]);
    expect(run.steps[0]).toEqual({ kind: 'model', input: { tokens: 1000 }, outputTokens: 20 });
    // tool_use: 3.5 − (0 + 1) s of tool, its result what the next call adds (1400 − 1150 − 20).
    expect(run.steps[1]).toEqual({ kind: 'tool', latencyMs: 2500, result: { tokens: 230 } });
    expect(run.steps[2]).toEqual({ kind: 'model', input: { tokens: 0 }, outputTokens: 30 });
    // end_turn: the user's 10 − 4.5 s before the next call.
    expect(run.steps[3]).toEqual({ kind: 'model', input: { tokens: 70 }, outputTokens: 10, delayMs: 5500 });
    const fan = run.steps[4] as Extract<AgentTraceStep, { kind: 'fan_out' }>;
    expect(fan.agents.map((a) => a.share)).toEqual(['system', 'system']);
    expect(fan.agents[0]!.steps[0]).toMatchObject({ input: { tokens: 250 } });
    // After the join the call adds what the sub-agents returned, with no tool wait of its own.
    expect(run.steps[6]).toEqual({ kind: 'model', input: { tokens: 190 }, outputTokens: 40 });
    // An async_launched sub-agent is not waited for: no join after it.
    expect(run.steps[7]).toMatchObject({ kind: 'fan_out', agents: [{ share: 'system' }] });
  });

  const malformed: Array<[string, unknown[], RegExp]> = [
    ['a call without in', [{ t: 0, type: 'n', out: 3 }], /field "requests\[0\]\.in": missing/],
    [
      'an unknown type',
      [call(0, 10, 1, 'end_turn'), { t: 1, type: 'x' }],
      /field "requests\[1\]\.type": expected "n", "s" or "subagent"/,
    ],
    [
      'a negative time',
      [{ ...call(0, 10, 1, 'end_turn'), t: -1 }],
      /field "requests\[0\]\.t": expected a number from 0/,
    ],
    ['no call at all', [], /field "requests": no call of type "n" or "s"/],
  ];
  for (const [what, requests, message] of malformed)
    it(`refuses ${what}, naming the line and the field`, () => {
      const e = failure(`${weka([call(0, 200, 1, 'end_turn')])}\n${weka(requests)}`);
      expect(e.message).toMatch(/t\.jsonl:2: /);
      expect(e.message).toMatch(message);
    });
});

describe('OTLP JSON GenAI spans', () => {
  const attr = (key: string, v: string | number) => ({
    key,
    value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) },
  });
  const ms = (t: number) => String(BigInt(1_700_000_000_000 + t) * 1_000_000n);
  let n = 0;
  const span = (
    trace: string,
    parent: string | undefined,
    op: string,
    start: number,
    end: number,
    extra: object = {},
  ) => {
    const id = `s${++n}`;
    const attributes = [
      attr('gen_ai.operation.name', op),
      ...Object.entries(extra).map(([k, v]) => attr(k, v)),
    ];
    return {
      id,
      traceId: trace,
      spanId: id,
      ...(parent ? { parentSpanId: parent } : {}),
      name: op,
      startTimeUnixNano: ms(start),
      endTimeUnixNano: ms(end),
      attributes,
    };
  };
  const usage = (input: number, output: number) => ({
    'gen_ai.usage.input_tokens': input,
    'gen_ai.usage.output_tokens': output,
  });
  const exportOf = (spans: object[]) => ({
    resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 't' }, spans }] }],
  });

  it('turns a span tree into a run: chat calls, execute_tool waits, invoke_agent sub-agents, start times', () => {
    const root = span('t1', undefined, 'invoke_agent', 0, 5000);
    const c1 = span('t1', root.id, 'chat', 10, 400, usage(1000, 50));
    const tool = span('t1', root.id, 'execute_tool', 410, 710);
    const c2 = span('t1', root.id, 'chat', 720, 900, usage(1250, 20));
    const sub = span('t1', root.id, 'invoke_agent', 950, 2000);
    const s1 = span('t1', sub.id, 'chat', 960, 1500, usage(1300, 30));
    const c3 = span('t1', root.id, 'chat', 2100, 2500, usage(1400, 60));
    const other = span('t2', undefined, 'chat', 3000, 3100, usage(80, 8));
    // Two export lines, the second run's span on its own line.
    const text = `${line(exportOf([root, c1, tool, c2, sub, s1, c3]))}\n${line(exportOf([other]))}`;
    const trace = parseAgentTrace(text, 't.jsonl');
    expect(trace.format).toBe('otlp');
    expect(trace.runs.map((r) => [r.id, r.startMs])).toEqual([
      ['t1', 0],
      ['t2', 3000],
    ]);
    const steps = trace.runs[0]!.steps;
    expect(kinds(steps)).toEqual(['model', 'tool', 'model', 'fan_out', 'join', 'model']);
    expect(steps[0]).toEqual({ kind: 'model', input: { tokens: 1000 }, outputTokens: 50 });
    expect(steps[1]).toEqual({ kind: 'tool', latencyMs: 300, result: { tokens: 200 } });
    // The sub-agent's first prompt holds its parent's conversation (1270): it starts from it.
    const fan = steps[3] as Extract<AgentTraceStep, { kind: 'fan_out' }>;
    expect(fan.agents[0]).toEqual({
      share: 'conversation',
      steps: [{ kind: 'model', input: { tokens: 30 }, outputTokens: 30 }],
    });
    expect(steps[5]).toEqual({ kind: 'model', input: { tokens: 130 }, outputTokens: 60 });
    // A pretty-printed export (one JSON document) reads the same.
    const pretty = JSON.stringify(exportOf([root, c1, tool, c2, sub, s1, c3]), null, 2);
    expect(parseAgentTrace(pretty, 't.json').runs[0]!.steps).toEqual(steps);
  });

  it('refuses spans it cannot read, naming the line and the field', () => {
    const good = line(exportOf([span('t', undefined, 'chat', 0, 1, usage(5, 5))]));
    const noId = line(exportOf([{ traceId: 't', startTimeUnixNano: ms(0), endTimeUnixNano: ms(1) }]));
    expect(failure(`${good}\n${noId}`).message).toMatch(
      /t\.jsonl:2: field "resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.spanId": missing/,
    );
    const noUsage = line(exportOf([span('t', undefined, 'chat', 0, 1)]));
    expect(failure(noUsage, 'otlp').message).toMatch(
      /t\.jsonl:1 .*spans\[0\]: field "gen_ai\.usage\.output_tokens": missing/,
    );
    const badTime = line(
      exportOf([{ ...span('t', undefined, 'chat', 0, 1, usage(1, 1)), endTimeUnixNano: 'soon' }]),
    );
    expect(failure(badTime).message).toMatch(
      /field "resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.endTimeUnixNano"/,
    );
  });
});
