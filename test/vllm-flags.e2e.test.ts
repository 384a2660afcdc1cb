/**
 * `vllm bench serve`'s flags on `goodput run`, checked from the server's side: the accepted
 * ones produce the very requests our own flags produce, `--rate inf` sends every request at
 * once, `--max-concurrency` alone caps that, and the refused ones exit 2 naming our flag.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './helpers/cli.js';
import { json, type Loopback, loopbacksClosedAfterEach, sleep, writeEvents } from './helpers/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-vllm-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const startServer = loopbacksClosedAfterEach();

interface Server extends Loopback {
  maxInFlight: number;
}

/** An OpenAI-style server that streams max_tokens one-character tokens after `ttftMs`, and counts requests in flight. */
async function openAiServer(ttftMs: number): Promise<Server> {
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const lb = await startServer(async (req, res, body) => {
    if (req.url?.endsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'm' }] });
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    try {
      await sleep(ttftMs);
      const b = body as { max_tokens: number; messages?: unknown };
      const chat = b.messages !== undefined;
      const token = (i: number) =>
        JSON.stringify({
          choices: [chat ? { index: 0, delta: { content: 'a' } } : { index: 0, text: 'a' }],
          id: `t${i}`,
        });
      const events = Array.from({ length: b.max_tokens }, (_, i) => token(i));
      events.push(
        JSON.stringify({ choices: [], usage: { prompt_tokens: 1, completion_tokens: b.max_tokens } }),
      );
      events.push('[DONE]');
      await writeEvents(res, events);
    } finally {
      inFlight--;
    }
  });
  return Object.defineProperty(lb, 'maxInFlight', { get: () => state.maxInFlight }) as Server;
}

interface Summary {
  completed: number;
  failed: number;
  meta: {
    load: Record<string, unknown>;
    slo: Record<string, unknown>;
    workload: Record<string, unknown>;
    target: { api: string };
  };
}
const summaryOf = (out: string) => JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
const completionBodies = (lb: Loopback) =>
  lb.requests
    .filter((r) => r.url.endsWith('/completions'))
    .map((r) => JSON.stringify(r.body))
    .sort();

describe('vLLM flag names that mean what ours mean', () => {
  it('send the same requests as ours, all at once for --request-rate inf', async () => {
    const theirs = await openAiServer(300);
    const a = join(dir, 'theirs');
    const r = await runCliInProcess(
      [
        'run',
        ...['--base-url', theirs.url, '--endpoint', '/v1/completions'],
        ...[
          '--request-rate',
          'inf',
          '--num-prompts',
          '6',
          '--random-input-len',
          '32',
          '--random-output-len',
          '7',
        ],
        ...['--goodput', 'ttft:500', 'tpot:50', '--save-result', '--out', a, '--quiet'],
      ],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);

    const ours = await openAiServer(300);
    const b = join(dir, 'ours');
    const s = await runCliInProcess(
      [
        'run',
        ...['--url', ours.url, '--api', 'completions'],
        ...['--rate', 'inf', '--requests', '6', '--prompt-tokens', '32', '--max-tokens', '7'],
        ...['--slo', 'ttft=500,tpot=50', '--out', b, '--quiet'],
      ],
      { cwd: dir },
    );
    expect(s.code, s.stderr).toBe(0);

    // The server's view: the same six bodies on /v1/completions, each a 32-token prompt asking for 7 tokens.
    expect(completionBodies(theirs)).toEqual(completionBodies(ours));
    const bodies = theirs.requests.filter((q) => q.url.endsWith('/completions'));
    expect(bodies.map((q) => q.url)).toEqual(Array(6).fill('/v1/completions'));
    for (const q of bodies) expect(q.body).toMatchObject({ model: 'm', max_tokens: 7, stream: true });
    expect(typeof (bodies[0]!.body as { prompt: unknown }).prompt).toBe('string');
    // inf: every request was sent before the first answer came back
    expect(theirs.maxInFlight).toBe(6);

    const [sa, sb] = [summaryOf(a), summaryOf(b)];
    expect(sa.meta.slo).toEqual({ ttftMs: 500, tpotMs: 50 });
    expect(sa.meta.load).toEqual(sb.meta.load);
    expect(sa.meta.load).toMatchObject({ mode: 'open', rate: null, requests: 6 }); // JSON writes Infinity as null
    expect(sa.meta.workload).toEqual(sb.meta.workload);
    expect(sa.meta.workload).toMatchObject({ promptTokens: 32, maxTokens: 7 });
    expect([sa.completed, sa.failed]).toEqual([6, 0]);
  }, 60_000);

  it('--max-concurrency alone caps an unlimited rate, as in vLLM', async () => {
    const server = await openAiServer(150);
    const out = join(dir, 'capped');
    const r = await runCliInProcess(
      [
        'run',
        '--base-url',
        server.url,
        '--max-concurrency',
        '2',
        '--num-prompts',
        '6',
        '--out',
        out,
        '--quiet',
      ],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(server.maxInFlight).toBe(2);
    expect(server.requests.filter((q) => q.url.endsWith('/chat/completions'))).toHaveLength(6);
    expect(summaryOf(out).meta.load).toMatchObject({
      mode: 'open',
      rate: null,
      maxConcurrency: 2,
      requests: 6,
    });
  }, 60_000);
});

describe('vLLM flag names that differ are refused with ours', () => {
  it.each<[string[], string]>([
    [['--percentile-metrics', 'ttft,tpot,itl'], 'p99(ttft)'],
    [['--result-dir', 'results'], '--out DIR'],
    [['--random-range-ratio', '0.3'], '--prompt-tokens-range R'],
    [['--endpoint', '/v1/embeddings'], '--api chat'],
  ])('run %j exits 2 naming %s', async (argv, ours) => {
    const r = await runCliInProcess(['run', ...argv], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(ours);
  });
});
