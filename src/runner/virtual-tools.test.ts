import { describe, expect, it } from 'vitest';
import { createClient } from '../client/index.js';
import { startSim } from '../sim/index.js';
import type { ApiKind, WorkItem } from '../types.js';
import { benchmarkConfig } from './config.js';
import { createVirtualTransport } from './virtual.js';

const clock = { now: () => performance.now() };
const TOOLS = [{ name: 'search' }, { name: 'read_file', description: 'reads a file' }];

function item(i: number, toolChoice: WorkItem['toolChoice']): WorkItem {
  return {
    index: i,
    id: `r-${i}`,
    warmup: false,
    messages: [{ role: 'user', content: `question number ${i} about the weather` }],
    promptTokens: 7,
    maxTokens: 40,
    tools: TOOLS,
    toolChoice,
  };
}

/** What a record and its reply text say about a tool call, live or virtual. */
function seen(r: { toolCalls?: number; finishReason?: string; outputTokens: number }, reply: string) {
  return { toolCalls: r.toolCalls, finishReason: r.finishReason, outputTokens: r.outputTokens, reply };
}

describe('tool-call replies: the client records them, and virtual time draws the same as the live engine', () => {
  for (const api of ['chat', 'responses'] as ApiKind[]) {
    it(`${api}: tool-call count, finish reason, output tokens and reply text agree`, async () => {
      const sim = await startSim({ seed: 5, slowdown: 0.02 });
      const config = benchmarkConfig({ api, seed: 5 });
      const client = createClient(
        { baseUrl: sim.url, api, model: sim.model, timeoutMs: 10_000, sampling: config.sampling },
        clock,
      );
      const virtual = createVirtualTransport(config, sim.profile);
      try {
        const items = [
          item(1, 'required'),
          item(2, 'none'),
          ...Array.from({ length: 6 }, (_, i) => item(3 + i, 'auto')),
        ];
        const live = [];
        const simulated = [];
        for (const it of items) {
          let text = '';
          const r = await client.send(it, { scheduledMs: clock.now(), onReply: (t) => (text = t) });
          live.push(seen(r, text));
          let vtext = '';
          const p = virtual.send(it, {
            scheduledMs: virtual.clock.now(),
            signal: new AbortController().signal,
            onReply: (t) => (vtext = t),
          });
          const vr = await virtual.clock.run(p);
          simulated.push(seen(vr, vtext));
        }
        expect(simulated).toEqual(live);
        expect(live[0]!.toolCalls).toBe(1); // required
        expect(live[1]!.toolCalls).toBeUndefined(); // none
        if (api === 'chat' && live[0]!.finishReason !== 'length')
          expect(live[0]!.finishReason).toBe('tool_calls');
        const calls = live.filter((r) => r.toolCalls === 1).length;
        expect(calls).toBeGreaterThan(1); // auto: about half of the six
        expect(calls).toBeLessThan(8);
      } finally {
        await client.close();
        await sim.close();
      }
    });
  }
});
