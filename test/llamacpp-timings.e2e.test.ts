/**
 * llama.cpp as goodput meets it (issue 26.4), against a small loopback server of this test's
 * own that answers as llama-server does: its last streamed chunk carries `usage` and
 * `timings` (prompt_n processed, cache_n reused from its cache: tools/server/server-task.cpp,
 * result_timings::to_json), and its /metrics is llama.cpp's (no preemption, no prefix-cache
 * counter). The records keep the timings, the summary sums them, the prefix-cache hit rate
 * is read from them, and what the engine does not publish is said so, never "no server
 * metrics".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metric } from '../src/metrics/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';

const METRICS = readFileSync(
  join(import.meta.dirname, '..', 'src', 'server-metrics', 'fixtures', 'llamacpp.prom'),
  'utf8',
);

let server: Server;
let url: string;
let work: string;
/** Prompts seen: a prompt seen before is served from the cache (cache_n), as llama.cpp's slots do. */
const seen = new Set<string>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-llamacpp-'));
  server = createServer((req, res) => {
    if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(METRICS);
      return;
    }
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: [{ id: 'tiny', object: 'model', owned_by: 'llamacpp' }] }),
      );
      return;
    }
    if (req.method !== 'POST') {
      // What a server says of itself (/version, /props, …): this one says nothing.
      res.writeHead(404).end();
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const doc = JSON.parse(body) as { messages: Array<{ content: string }> };
      const prompt = doc.messages.map((m) => m.content).join('\n');
      // 100 prompt tokens: 80 reused when the prompt was seen before, else none.
      const cached = seen.has(prompt) ? 80 : 0;
      seen.add(prompt);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      for (const word of ['a', ' b', ' c']) chunk({ choices: [{ index: 0, delta: { content: word } }] });
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      chunk({
        choices: [],
        usage: { prompt_tokens: 100, completion_tokens: 3, total_tokens: 103 },
        timings: {
          cache_n: cached,
          prompt_n: 100 - cached,
          prompt_ms: 12.5,
          prompt_per_token_ms: 0.1,
          prompt_per_second: 8000,
          predicted_n: 3,
          predicted_ms: 6,
          predicted_per_token_ms: 2,
          predicted_per_second: 500,
        },
      });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(work, { recursive: true, force: true });
});

function records(dir: string): RequestRecord[] {
  return readFileSync(join(dir, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as RequestRecord);
}

describe('a llama.cpp server', () => {
  it('records its timings, reads the prefix-cache hit rate from them, and names what it does not publish', async () => {
    const out = join(work, 'run');
    // The same seed twice: the second run sends the prompts of the first, which hit the cache.
    const args = ['--url', url, '--requests', '4', '--concurrency', '1', '--max-tokens', '3', '--seed', '3'];
    const warm = await runCliInProcess(['run', ...args, '--out', join(work, 'warm')], { cwd: work });
    expect(warm.code, warm.stderr).toBe(0);
    const r = await runCliInProcess(
      ['run', ...args, '--out', out, '--metrics-url', `${url}/metrics`, '--scrape-interval', '100ms'],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    const measured = records(out).filter((x) => !x.warmup);
    expect(measured.length).toBe(4);
    for (const rec of measured) {
      expect(rec.serverTimings).toEqual({
        promptTokens: 20,
        cachedTokens: 80,
        promptMs: 12.5,
        predictedTokens: 3,
        predictedMs: 6,
      });
    }
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.server?.engine).toBe('llamacpp');
    expect(summary.serverTimings).toEqual({ requests: 4, promptTokens: 80, cachedTokens: 320 });
    expect(metric('prefix_cache_hit_rate').read(summary)).toBeCloseTo(0.8, 12);
    expect(summary.server?.preemptions).toBeUndefined();
    // The diagnosis speaks of llama.cpp: what it does not publish, and no "no server metrics".
    expect(r.stdout).toContain('Not published by llama.cpp: preemptions.');
    expect(r.stdout).not.toMatch(/no server metrics|prefix-cache hits/);
  });
});
