import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CUT_OF,
  echoCasesAtEveryCut,
  type HostileCase,
  type HostileServer,
  leakedFragment,
  startHostileServer,
} from '../../test/helpers/hostile-server.js';
import type { Clock, RequestRecord, WorkItem } from '../types.js';
import { createClient } from './index.js';

const clock: Clock = { now: () => performance.now() };
const KEY = 'key-canary-0123456789abcdefXYZ';
const item = (index: number): WorkItem => ({
  index,
  id: `r-${index}`,
  warmup: false,
  messages: [{ role: 'user', content: 'hi' }],
  promptTokens: 1,
  maxTokens: 16,
});

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Sends one request per case, in order, and returns the records. */
async function sendAll(cases: HostileCase[]): Promise<RequestRecord[]> {
  server = await startHostileServer(cases);
  const client = createClient(
    {
      baseUrl: server.url,
      api: 'chat',
      model: 'm',
      apiKey: KEY,
      timeoutMs: 5000,
      maxRetries: 0,
      sampling: { temperature: 0, maxTokens: 16, ignoreEos: false },
      connections: 4,
    },
    clock,
  );
  try {
    const out: RequestRecord[] = [];
    for (let i = 0; i < cases.length; i++) out.push(await client.send(item(i), { scheduledMs: clock.now() }));
    return out;
  } finally {
    await client.close();
  }
}

describe('client against a server that echoes the key', () => {
  it('no record carries the key or a 6+ character prefix or suffix of it, at every cut offset of every place', async () => {
    const cases = echoCasesAtEveryCut(KEY);
    const records = await sendAll(cases);
    expect(server!.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    for (let i = 0; i < records.length; i++) {
      const text = JSON.stringify(records[i]);
      expect(leakedFragment(text, KEY), `${JSON.stringify(cases[i])}: ${text}`).toBeUndefined();
    }
    // Each place really reached the record (the test would pass vacuously otherwise).
    const byPlace = new Map<string, RequestRecord>();
    // The first case of each place: the whole echo lies before the cut.
    cases.forEach((c, i) => {
      if (c.kind === 'echo' && !byPlace.has(c.place)) byPlace.set(c.place, records[i]!);
    });
    expect([...byPlace.keys()].sort()).toEqual(Object.keys(CUT_OF).sort());
    expect(byPlace.get('error-json')!.error!.message).toContain('[REDACTED]');
    expect(byPlace.get('sse-not-json')!.error!.code).toBe('BAD_JSON');
    expect(byPlace.get('sse-error-object')!.error!.code).toBe('STREAM_ERROR_OBJECT');
    expect(byPlace.get('finish-reason')!.outcome).toBe('success');
    expect(byPlace.get('finish-reason')!.finishReason).toContain('[REDACTED]');
    expect(byPlace.get('redirect-location')!.error!.code).toBe('HTTP_REDIRECT');
  });
});

describe('client against a server that redirects', () => {
  it('reports HTTP_REDIRECT with the Location and the --url to use, and does not follow it', async () => {
    const [r301, rNone] = await sendAll([
      { kind: 'redirect', status: 301, location: 'https://api.example/gw/v1/chat/completions' },
      { kind: 'redirect', status: 302 },
    ]);
    expect(r301!.error).toMatchObject({ code: 'HTTP_REDIRECT', httpStatus: 301 });
    expect(r301!.error!.message).toBe(
      'HTTP 301: redirected to https://api.example/gw/v1/chat/completions; set --url to https://api.example/gw',
    );
    expect(rNone!.error!.code).toBe('HTTP_REDIRECT');
    expect(rNone!.error!.message).toMatch(/without a Location/);
    expect(server!.requests).toHaveLength(2);
  });
});

describe('client against a server that sends values that cannot be true', () => {
  const whats = ['null-choice', 'negative-usage', 'huge-usage', 'string-usage', 'float-usage'] as const;
  it.each(whats)('%s is IMPOSSIBLE_VALUE, never a token count', async (what) => {
    const [r] = await sendAll([{ kind: 'impossible', what }]);
    expect(r!.outcome).toBe('error');
    expect(r!.error!.code, r!.error!.message).toBe('IMPOSSIBLE_VALUE');
    expect(Number.isFinite(r!.outputTokens) && r!.outputTokens >= 0).toBe(true);
  });
  it('a healthy answer from the same server is a success', async () => {
    const [r] = await sendAll([{ kind: 'healthy' }]);
    expect(r!.outcome).toBe('success');
    expect(r!.outputTokens).toBe(2);
  });
});
