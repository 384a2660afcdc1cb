/**
 * The client's view of its connections against a server that serves one connection at a time,
 * each until it closes (test/helpers/bounded-pool-server.ts): pooled, a second connection waits
 * for the first to idle out and is counted as waiting; one connection per request, the server's
 * thread is back as soon as each answer ends, so nothing waits long.
 */

import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type BoundedPoolServer, startBoundedPoolServer } from '../../test/helpers/bounded-pool-server.js';
import type { Clock, Sampling, WorkItem } from '../types.js';
import { CONNECTION_WAIT_MS, createClient } from './index.js';

const clock: Clock = { now: () => performance.now() };
const sampling: Sampling = { temperature: 0, maxTokens: 4, ignoreEos: true };
const item = (index: number): WorkItem => ({
  index,
  id: `r-${index}`,
  warmup: false,
  messages: [{ role: 'user', content: 'hello' }],
  prompt: 'hello',
  promptTokens: 1,
  maxTokens: 4,
});

let server: BoundedPoolServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Two requests at once from a client of two connections; its connection figures after. */
async function twoAtOnce(connectionMode: 'pooled' | 'per-request') {
  // One thread; an idle connection keeps it 600 ms; an answer takes about 60 ms.
  server = await startBoundedPoolServer({ workers: 1, idleMs: 600, ttftMs: 30, tokens: 4, itlMs: 10 });
  const client = createClient(
    {
      baseUrl: server.url,
      api: 'chat',
      model: 'm',
      timeoutMs: 5000,
      sampling,
      connections: 2,
      connectionMode,
    },
    clock,
  );
  try {
    const records = await Promise.all([0, 1].map((i) => client.send(item(i), { scheduledMs: clock.now() })));
    return { records, stats: client.connectionStats() };
  } finally {
    await client.close();
  }
}

describe('connection figures against a server of one thread', () => {
  it('pooled: the second connection waits for the first to idle out, and is counted as waiting', async () => {
    const { records, stats } = await twoAtOnce('pooled');
    expect(records.map((r) => r.outcome)).toEqual(['success', 'success']);
    expect(stats).toMatchObject({ opened: 2, peakOpen: 2, peakServed: 1, waited: 1 });
    // It waited for the first connection's 600 ms idle timeout.
    expect(stats.longestWaitMs).toBeGreaterThanOrEqual(550);
    const waitedFor = Math.max(...records.map((r) => r.headersMs! - r.sentMs));
    expect(waitedFor).toBeGreaterThanOrEqual(550);
  });

  it('per-request: each connection closes with its answer, so the second is served at once after it', async () => {
    const { records, stats } = await twoAtOnce('per-request');
    expect(records.map((r) => r.outcome)).toEqual(['success', 'success']);
    expect(stats).toMatchObject({ opened: 2, peakServed: 1 });
    expect(stats.longestWaitMs).toBeLessThan(CONNECTION_WAIT_MS + 250);
    expect(Math.max(...records.map((r) => r.headersMs! - r.sentMs))).toBeLessThan(550);
  });
});
