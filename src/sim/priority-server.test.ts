import { afterAll, describe, expect, it } from 'vitest';
import { type SimServer, startSim } from './server.js';

const servers: SimServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function post(
  sim: SimServer,
  body: Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: sim.model,
      messages: [{ role: 'user', content: 'hello there' }],
      max_tokens: 2,
      ...body,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

describe('sim server: the priority field, as vLLM takes it', () => {
  it('refuses a non-zero priority with 400 under fcfs, before streaming; takes it with --scheduling-policy priority', async () => {
    const fcfs = await startSim({ seed: 1, slowdown: 0.1 });
    const priority = await startSim({ seed: 1, slowdown: 0.1, engine: { schedulingPolicy: 'priority' } });
    servers.push(fcfs, priority);
    const refused = await post(fcfs, { priority: 1, stream: true });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Got priority 1 but Priority scheduling is not enabled.');
    expect((await post(fcfs, { priority: 0 })).status).toBe(200);
    expect((await post(priority, { priority: 1 })).status).toBe(200);
    expect((await post(priority, { priority: -5, stream: true })).status).toBe(200);
    const bad = await post(priority, { priority: 'high' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('priority must be an integer');
  });
});
