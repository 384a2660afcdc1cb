import { describe, expect, it } from 'vitest';
import { createClient } from '../client/index.js';
import { startSim } from '../sim/index.js';
import type { RequestRecord, WorkItem } from '../types.js';
import { benchmarkConfig } from './config.js';
import { createVirtualTransport } from './virtual.js';

const clock = { now: () => performance.now() };

function item(i: number, model: string | undefined): WorkItem {
  return {
    index: i,
    id: `r-${i}`,
    warmup: false,
    messages: [{ role: 'user', content: `question number ${i}` }],
    promptTokens: 3,
    maxTokens: 8,
    ...(model !== undefined ? { model } : {}),
  };
}

const outcome = (r: RequestRecord) => [r.outcome, r.httpStatus, r.error?.code, r.outputTokens];

describe('several models on the embedded engine: virtual time routes as the live engine does', () => {
  it('the base model and an adapter are served, an unknown model is a 404 record, live and virtual', async () => {
    const engine = { loraModules: ['sql-lora'] };
    const sim = await startSim({ seed: 2, slowdown: 0.02, engine });
    const config = benchmarkConfig({ seed: 2, sim: { engine } });
    const client = createClient(
      { baseUrl: sim.url, api: 'chat', model: sim.model, timeoutMs: 10_000, sampling: config.sampling },
      clock,
    );
    const virtual = createVirtualTransport(config, sim.profile);
    try {
      const items = [item(1, undefined), item(2, sim.model), item(3, 'sql-lora'), item(4, 'nope-lora')];
      const live: unknown[] = [];
      const simulated: unknown[] = [];
      for (const it of items) {
        live.push(outcome(await client.send(it, { scheduledMs: clock.now() })));
        const p = virtual.send(it, {
          scheduledMs: virtual.clock.now(),
          signal: new AbortController().signal,
        });
        simulated.push(outcome(await virtual.clock.run(p)));
      }
      expect(simulated).toEqual(live);
      expect(live.map((o) => (o as unknown[])[1])).toEqual([200, 200, 200, 404]);
      expect((live[3] as unknown[])[2]).toBe('HTTP_NOT_FOUND');
    } finally {
      await sim.close();
    }
  });
});
