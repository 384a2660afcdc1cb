/**
 * Gateways and engine options: `--header` and `--extra-body` reach the server exactly, with
 * every request (the model list too); a header value taken from the environment is a secret
 * that appears in no output and no file, even when the server echoes it back; and
 * OPENAI_BASE_URL is honoured like OPENAI_API_KEY. Session affinity (`--session-header`): every
 * turn of one multi-turn session carries the same X-Session-ID, every session its own; a renamed
 * header replaces it, `none` and single requests send none, and it never takes the place of a
 * credential header.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../src/types.js';
import { filesUnder, runCliInProcess } from './helpers/cli.js';
import { leakedFragment } from './helpers/hostile-server.js';
import { chatChunk, json, type Loopback, loopbacksClosedAfterEach, writeEvents } from './helpers/loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-extras-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const startServer = loopbacksClosedAfterEach();

const CANARY = 'gw-canary-7f3a9c1e5b2d4680';

describe('--header and --extra-body', () => {
  it('arrive exactly with every request, and a header value from the environment is never shown or written', async () => {
    let completions = 0;
    const server = await startServer(async (req, res, body) => {
      // The gateway refuses anything without its token, the model list included.
      if (req.headers['x-gateway-token'] !== CANARY)
        return json(res, 401, { error: { message: 'no token' } });
      if (req.url?.endsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'm' }] });
      // What the server says of itself (/version, /props, …): this gateway has none of it.
      if (!req.url?.endsWith('/chat/completions')) return json(res, 404, { error: { message: 'not found' } });
      completions++;
      if (completions === 2) {
        // A hostile gateway echoes the token back in an error (400: not retried).
        return json(res, 400, {
          error: { message: `token ${CANARY} is not allowed for route ${req.headers['x-route']}` },
        });
      }
      const n = (body as { max_tokens: number }).max_tokens;
      await writeEvents(res, [
        ...Array.from({ length: n }, () => chatChunk({ content: 'a' })),
        chatChunk({}, 'length', { prompt_tokens: 1, completion_tokens: n }),
        '[DONE]',
      ]);
    });
    const out = join(dir, 'gw');
    const extraBody = {
      priority: 5,
      chat_template_kwargs: { enable_thinking: false },
      vendor: { tier: 'gold' },
    };
    const r = await runCliInProcess(
      [
        'run',
        ...['--url', server.url, '--requests', '4', '-c', '1', '--max-tokens', '3', '--out', out, '--json'],
        ...['--header', 'X-Gateway-Token: env:GW_TOKEN', '--header', 'X-Route: blue,green'],
        ...['--extra-body', JSON.stringify(extraBody)],
      ],
      { cwd: dir, env: { GW_TOKEN: CANARY } },
    );
    expect(r.code, r.stderr).toBe(0);

    const models = server.requests.filter((q) => q.url.endsWith('/v1/models'));
    const posts = server.requests.filter((q) => q.url.endsWith('/v1/chat/completions'));
    // the model list, then the connection warmup (GET /v1/models too), then the four completions
    expect(models.length).toBeGreaterThanOrEqual(2);
    expect(posts).toHaveLength(4);
    for (const q of [...models, ...posts]) {
      expect(q.headers['x-gateway-token']).toBe(CANARY);
      expect(q.headers['x-route']).toBe('blue,green');
    }
    for (const q of posts) {
      expect(q.body).toMatchObject({ ...extraBody, model: 'm', max_tokens: 3, stream: true });
    }

    // The canary: not in stdout (the JSON summary), stderr, nor any file of the result (the echoed error included).
    const files = filesUnder(out);
    expect(files.map((f) => f.path.slice(out.length + 1)).sort()).toEqual(
      expect.arrayContaining(['requests.jsonl', 'summary.json']),
    );
    expect(files.some((f) => f.text.includes('is not allowed for route'))).toBe(true); // the error was kept
    for (const [where, text] of [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
      ...files.map((f) => [f.path, f.text]),
    ] as const) {
      expect([where, leakedFragment(text, CANARY)]).toEqual([where, undefined]);
    }
  }, 60_000);

  it('an env: header whose variable is missing is a usage error before any request', async () => {
    const server = await startServer((_q, res) => json(res, 500, {}));
    const r = await runCliInProcess(['run', '--url', server.url, '--header', 'X-Key: env:NOT_SET_HERE'], {
      cwd: dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('NOT_SET_HERE is not set');
    expect(server.requests).toHaveLength(0);
  });
});

describe('OPENAI_BASE_URL', () => {
  it('is the target when there is no --url nor GOODPUT_BASE_URL, its /v1 not doubled', async () => {
    const server = await startServer(async (req, res) => {
      if (req.url === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: 'm' }] });
      await writeEvents(res, [chatChunk({ content: 'a' }), chatChunk({}, 'stop'), '[DONE]']);
    });
    const out = join(dir, 'openai-env');
    const r = await runCliInProcess(['run', '--requests', '2', '--out', out, '--quiet'], {
      cwd: dir,
      env: { OPENAI_BASE_URL: `${server.url}/v1` },
    });
    expect(r.code, r.stderr).toBe(0);
    const urls = server.requests.map((q) => q.url);
    expect(urls.filter((u) => u === '/v1/chat/completions')).toHaveLength(2);
    expect(urls.filter((u) => u.includes('/v1/v1'))).toEqual([]);
    expect(urls[0]).toBe('/v1/models'); // the model came from the env target's list
    expect(r.stderr).not.toMatch(/ends in \/v1/);
  });
});

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KEY = 'fake-affinity-key-0123456789';

/** A chat server answering every completion with two tokens. */
function chatServer(): Promise<Loopback> {
  return startServer(async (req, res) => {
    if (req.url?.endsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'm' }] });
    if (!req.url?.endsWith('/chat/completions')) return json(res, 404, { error: { message: 'not found' } });
    await writeEvents(res, [
      chatChunk({ content: 'ok' }),
      chatChunk({ content: ' then' }),
      chatChunk({}, 'length', { prompt_tokens: 1, completion_tokens: 2 }),
      '[DONE]',
    ]);
  });
}

/** The completions the server got, as (first user message, turn, headers). */
function completions(server: Loopback) {
  return server.requests
    .filter((q) => q.url.endsWith('/chat/completions'))
    .map((q) => {
      const users = (q.body as { messages: ChatMessage[] }).messages.filter((m) => m.role === 'user');
      return { conversation: users[0]!.content, turn: users.length, headers: q.headers };
    });
}

const run = (server: Loopback, name: string, args: string[], env: Record<string, string> = {}) =>
  runCliInProcess(
    [
      'run',
      ...['--url', server.url, '--max-tokens', '2', '--prompt-tokens', '16', '--warmup', '0'],
      ...['--no-server-metrics', '--out', join(dir, name), '--quiet', ...args],
    ],
    { cwd: dir, env },
  );

const SESSIONS = ['--sessions', '3', '--turns', '3', '--requests', '9'];

describe('--session-header', () => {
  it('every turn of a session carries one X-Session-ID, every session its own, the same again with the same seed; the key stays in Authorization', async () => {
    const server = await chatServer();
    const r = await run(server, 'default', SESSIONS, { GOODPUT_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    const sent = completions(server);
    expect(sent).toHaveLength(9);
    const idOf = new Map<string, string>();
    for (const q of sent) {
      const id = q.headers['x-session-id'];
      expect(id).toMatch(UUID_V8);
      expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
      const first = idOf.get(q.conversation);
      if (first === undefined) idOf.set(q.conversation, id as string);
      else expect(id).toBe(first);
    }
    // Three sessions at once (and more as they end), with later turns, none sharing an id.
    expect(idOf.size).toBeGreaterThanOrEqual(3);
    expect(sent.filter((q) => q.turn === 3).length).toBeGreaterThanOrEqual(2);
    expect(new Set(idOf.values()).size).toBe(idOf.size);

    // Seeded: the same conversations get the same ids in a rerun, other ones under another seed.
    server.requests.length = 0;
    expect((await run(server, 'again', SESSIONS)).code).toBe(0);
    for (const q of completions(server)) expect(q.headers['x-session-id']).toBe(idOf.get(q.conversation));
    server.requests.length = 0;
    expect((await run(server, 'seed', [...SESSIONS, '--seed', '7'])).code).toBe(0);
    const other = new Set(completions(server).map((q) => q.headers['x-session-id'] as string));
    expect(other.size).toBe(idOf.size);
    for (const id of other) expect(new Set(idOf.values()).has(id)).toBe(false);
  });

  it('a renamed header replaces it (load workers send it too); none, and single requests, send none', async () => {
    const server = await chatServer();
    const renamedRun = await run(server, 'renamed', [
      ...SESSIONS,
      '--session-header',
      'X-Conversation',
      '--workers',
      '2',
    ]);
    expect(renamedRun.code, renamedRun.stderr).toBe(0);
    const renamed = completions(server);
    for (const q of renamed) {
      expect(q.headers['x-conversation']).toMatch(UUID_V8);
      expect(q.headers['x-session-id']).toBeUndefined();
    }
    const conversations = new Set(renamed.map((q) => q.conversation)).size;
    expect(new Set(renamed.map((q) => q.headers['x-conversation'])).size).toBe(conversations);
    server.requests.length = 0;
    expect((await run(server, 'none', [...SESSIONS, '--session-header', 'none'])).code).toBe(0);
    expect((await run(server, 'single', ['--requests', '3', '-c', '1'])).code).toBe(0);
    const plain = completions(server);
    expect(plain).toHaveLength(12);
    for (const q of plain)
      expect(Object.keys(q.headers).filter((h) => /session|conversation/.test(h))).toEqual([]);
  });

  it('a credential header name is refused before anything is sent; a --header of the default name is sent as given', async () => {
    const server = await chatServer();
    const refused = await run(server, 'refused', [...SESSIONS, '--session-header', 'Authorization']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--session-header Authorization names a credential header/);
    expect(server.requests).toHaveLength(0);
    expect((await run(server, 'own', [...SESSIONS, '--header', 'X-Session-ID: mine'])).code).toBe(0);
    const own = completions(server);
    expect(own).toHaveLength(9);
    for (const q of own) expect(q.headers['x-session-id']).toBe('mine');
  });
});
