import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamRequest } from '../../test/helpers/sim-sse-client.js';
import { type SimServer, startSim } from './server.js';
import { decideToolCall, offeredTools } from './tools.js';

const TOOLS = [
  { type: 'function', function: { name: 'search', parameters: { type: 'object' } } },
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } },
];

describe('sim: tool-call replies', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ seed: 3, slowdown: 0.05, toolCallFraction: 0.5, meanOutputTokens: 12 });
  });
  afterAll(() => sim.close());

  it('streams a chat tool call as vLLM does: id, type and name first, then argument fragments, finish tool_calls', async () => {
    const r = await streamRequest(`${sim.url}/v1/chat/completions`, {
      model: sim.model,
      messages: [{ role: 'user', content: 'find the answer' }],
      tools: TOOLS,
      tool_choice: 'required',
      max_tokens: 400,
      stream_options: { include_usage: true },
    });
    const deltas = r.json
      .map(
        (e) =>
          (e.choices as { delta?: { tool_calls?: Record<string, unknown>[] } }[] | undefined)?.[0]?.delta,
      )
      .filter((d) => d?.tool_calls)
      .map((d) => d!.tool_calls![0]!);
    expect(deltas.length).toBe(r.usage?.completion_tokens); // one delta per engine step, one token each
    const first = deltas[0] as { index: number; id: string; type: string; function: { name: string } };
    expect(first.index).toBe(0);
    expect(first.id).toMatch(/^chatcmpl-tool-[0-9a-f]+$/);
    expect(first.type).toBe('function');
    expect(['search', 'read_file']).toContain(first.function.name);
    for (const d of deltas.slice(1)) {
      expect(d.id).toBeUndefined();
      expect(Object.keys(d.function as object)).toEqual(['arguments']);
    }
    const args = deltas.map((d) => (d.function as { arguments: string }).arguments).join('');
    expect(JSON.parse(args)).toHaveProperty('query');
    expect(r.finishReason).toBe('tool_calls');
  });

  it('answers a non-streamed chat request with a message whose tool_calls carry the whole arguments', async () => {
    const res = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: sim.model,
        messages: [{ role: 'user', content: 'look it up' }],
        tools: TOOLS,
        tool_choice: { type: 'function', function: { name: 'read_file' } },
        max_tokens: 400,
      }),
    });
    const body = (await res.json()) as {
      choices: {
        message: { content: null; tool_calls: { function: { name: string; arguments: string } }[] };
        finish_reason: string;
      }[];
    };
    const choice = body.choices[0]!;
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls[0]!.function.name).toBe('read_file');
    expect(JSON.parse(choice.message.tool_calls[0]!.function.arguments)).toHaveProperty('query');
    expect(choice.finish_reason).toBe('tool_calls');
  });

  it('streams a Responses function_call item: added, argument deltas, arguments done, item done', async () => {
    const r = await streamRequest(`${sim.url}/v1/responses`, {
      model: sim.model,
      input: [{ role: 'user', content: 'call a tool' }],
      tools: [{ type: 'function', name: 'search', parameters: { type: 'object' } }],
      tool_choice: 'required',
      max_output_tokens: 400,
    });
    const types = r.json.map((e) => e.type as string);
    const added = r.json.find((e) => e.type === 'response.output_item.added')!.item as Record<
      string,
      unknown
    >;
    expect(added).toMatchObject({
      type: 'function_call',
      name: 'search',
      arguments: '',
      status: 'in_progress',
    });
    expect(added.call_id).toMatch(/^chatcmpl-tool-/);
    const deltas = r.json.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(deltas.length).toBeGreaterThan(0);
    const args = deltas.map((e) => e.delta as string).join('');
    const done = r.json.find((e) => e.type === 'response.function_call_arguments.done')!;
    expect(done.arguments).toBe(args);
    expect(JSON.parse(args)).toHaveProperty('query');
    expect(types.indexOf('response.output_item.done')).toBeGreaterThan(
      types.indexOf('response.function_call_arguments.done'),
    );
    expect(types.at(-1)).toBe('response.completed');
  });

  it('calls a tool for about the configured fraction of tool_choice auto requests, never for none or without tools', async () => {
    const offered = offeredTools({ tools: TOOLS })!;
    const calls = (fraction: number) =>
      Array.from({ length: 400 }, (_, i) => decideToolCall(offered, fraction, 3, `prompt ${i}`, i)).filter(
        Boolean,
      ).length;
    expect(calls(0)).toBe(0);
    expect(calls(1)).toBe(400);
    expect(calls(0.5)).toBeGreaterThan(150);
    expect(calls(0.5)).toBeLessThan(250);
    expect(decideToolCall(offeredTools({ tools: TOOLS, tool_choice: 'none' }), 1, 3, 'k', 1)).toBeUndefined();
    expect(offeredTools({ messages: [] })).toBeUndefined();
    // Seeded: the same prompt draws the same decision.
    expect(calls(0.5)).toBe(calls(0.5));
  });
});
