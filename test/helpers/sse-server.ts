/**
 * A tiny OpenAI-style streaming server for tests of the runner: fixed TTFT and chunk gaps,
 * and a log of what it saw (arrival times, requests in flight, aborted streams), so that a
 * test can check the load the runner produced from the server's side.
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TinyServerOptions {
  /** Delay before the first chunk (ms). */
  ttftMs?: number;
  /** Gap between chunks (ms). */
  gapMs?: number;
  /** Content chunks per response (one token each). */
  chunks?: number;
  /** Only this key is accepted (401 otherwise), when set. */
  apiKey?: string;
}

export interface TinyServer {
  url: string;
  /** performance.now() of every completion request's arrival. */
  arrivals: number[];
  /** Highest number of completion requests open at once. */
  maxInFlight: number;
  /** Streams the client closed before the server finished. */
  aborted: number;
  /** Completion requests fully answered. */
  completed: number;
  /** Every Authorization header seen. */
  authHeaders: string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Starts the server on 127.0.0.1, port 0. */
export async function startTinyServer(opts: TinyServerOptions = {}): Promise<TinyServer> {
  const ttftMs = opts.ttftMs ?? 0;
  const gapMs = opts.gapMs ?? 0;
  const chunks = opts.chunks ?? 4;
  let inFlight = 0;
  const state: Omit<TinyServer, 'url' | 'close'> = {
    arrivals: [],
    maxInFlight: 0,
    aborted: 0,
    completed: 0,
    authHeaders: [],
  };

  async function stream(req: IncomingMessage, res: ServerResponse): Promise<void> {
    state.arrivals.push(performance.now());
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    let closed = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        closed = true;
        state.aborted++;
      }
    });
    for await (const _ of req) {
      // drain the body
    }
    try {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (ttftMs > 0) await sleep(ttftMs);
      for (let i = 0; i < chunks && !closed; i++) {
        if (i > 0 && gapMs > 0) await sleep(gapMs);
        const delta = {
          id: 'x',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: { content: 'tok ' } }],
        };
        res.write(`data: ${JSON.stringify(delta)}\n\n`);
      }
      if (closed) return;
      const last = {
        id: 'x',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
        usage: { prompt_tokens: 10, completion_tokens: chunks, total_tokens: 10 + chunks },
      };
      res.write(`data: ${JSON.stringify(last)}\n\ndata: [DONE]\n\n`);
      res.end();
      state.completed++;
    } finally {
      inFlight--;
    }
  }

  const server = createServer((req, res) => {
    state.authHeaders.push(req.headers.authorization ?? '');
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"bad key"}}');
      return;
    }
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"tiny-model","object":"model"}]}');
      return;
    }
    if (req.method === 'POST' && req.url?.startsWith('/v1/')) {
      void stream(req, res);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
