import { describe, expect, it } from 'vitest';
import { agentWorkload, createAgentSource } from './agents.js';
import { createRng } from './rng.js';
import { createTokenizer } from './tokenizer.js';

const tokenizer = createTokenizer();
const agents = agentWorkload({
  concurrency: 2,
  toolResultTokens: 'uniform:20-40',
  toolLatency: 'uniform:100-200',
});
const source = () =>
  createAgentSource({
    spec: agents.spec,
    toolLatency: agents.toolLatency,
    toolResultTokens: agents.toolResultTokens,
    taskTokens: 64,
    maxTokens: 16,
    tokenizer,
    root: createRng(7),
    systemText: '',
  });

describe('synthetic agent runs', () => {
  it('opens each run with its own task of the asked length, seeded', () => {
    const a = source();
    const first = a.start(0);
    expect(first).toHaveLength(1);
    expect(a.promptTokens(first)).toBe(64);
    expect(a.start(0)).toEqual(first);
    expect(source().start(0)).toEqual(first);
    expect(a.start(1)[0]!.content).not.toBe(first[0]!.content);
  });

  it('draws tool latencies and results in their ranges, the same for the same step', () => {
    const a = source();
    for (let step = 1; step <= 20; step++) {
      const ms = a.toolLatencyMs(0, 0, step);
      expect(ms).toBeGreaterThanOrEqual(100);
      expect(ms).toBeLessThanOrEqual(200);
      const tokens = tokenizer.count(a.toolResult(0, 0, step));
      expect(tokens).toBeGreaterThanOrEqual(20);
      expect(tokens).toBeLessThanOrEqual(40);
      expect(a.toolResult(0, 0, step)).toBe(source().toolResult(0, 0, step));
    }
  });

  it('gives a run one session-affinity id, another run another', () => {
    const a = source();
    expect(a.affinityId(3)).toBe(a.affinityId(3));
    expect(a.affinityId(3)).not.toBe(a.affinityId(4));
  });

  it('counts a conversation with tool calls and results as the client sends it', () => {
    const a = source();
    const n = a.promptTokens([
      { role: 'user', content: ' hello world' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c', name: 'tool_0', arguments: '{"query": " x"}' }],
      },
      { role: 'tool', content: ' result', toolCallId: 'c' },
    ]);
    expect(n).toBe(
      tokenizer.count(' hello world') + tokenizer.count('{"query": " x"}') + tokenizer.count(' result'),
    );
  });
});
