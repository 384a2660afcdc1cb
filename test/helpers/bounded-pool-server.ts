/**
 * A loopback server with a bounded pool of worker threads, as llama.cpp's server (cpp-httplib)
 * has: `workers` threads, each serving one connection for that connection's whole life, request
 * after request (keep-alive), freed only when the connection closes (the client closes it, or
 * it sits `idleMs` with no request and the server closes it). Further connections are accepted
 * (the client's connect succeeds) and wait unserved, their requests unanswered, until a worker
 * frees. It answers GET /v1/models at once and streams a short chat completion: headers at
 * once, the first token after `ttftMs`, the others `itlMs` apart.
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { chatChunk, sleep } from './loopback.js';

export interface BoundedPoolOptions {
  /** Connections served at once (llama.cpp: --threads-http). */
  workers: number;
  /** A served connection with no request for this long is closed, freeing its worker. */
  idleMs: number;
  /** From the request's start to the first token. */
  ttftMs: number;
  /** Output tokens per answer (default 4). */
  tokens?: number;
  /** Gap between tokens (default 10 ms). */
  itlMs?: number;
}

export interface BoundedPoolServer {
  url: string;
  /** The most connections served at once (never above `workers`), connections accepted, answers streamed, connections that carried one. */
  stats: { maxServed: number; accepted: number; completions: number; completionConnections: number };
  close(): Promise<void>;
}

interface Conn {
  socket: Socket;
  /** Requests that arrived before the connection had a worker. */
  held: Array<() => void>;
  /** A completion was asked on it. */
  completing: boolean;
  served: boolean;
  busy: number;
  idle?: NodeJS.Timeout;
}

export async function startBoundedPoolServer(opts: BoundedPoolOptions): Promise<BoundedPoolServer> {
  const tokens = opts.tokens ?? 4;
  const itlMs = opts.itlMs ?? 10;
  const conns = new Map<Socket, Conn>();
  const waiting: Conn[] = [];
  const stats = { maxServed: 0, accepted: 0, completions: 0, completionConnections: 0 };
  let serving = 0;

  const armIdle = (c: Conn) => {
    clearTimeout(c.idle);
    if (c.busy === 0) c.idle = setTimeout(() => c.socket.destroy(), opts.idleMs);
  };
  const serve = (c: Conn) => {
    c.served = true;
    serving++;
    stats.maxServed = Math.max(stats.maxServed, serving);
    armIdle(c);
    for (const run of c.held.splice(0)) run();
  };
  const freeWorker = () => {
    serving--;
    for (let next = waiting.shift(); next; next = waiting.shift()) {
      if (next.socket.destroyed) continue;
      serve(next);
      return;
    }
  };

  async function answer(c: Conn, req: IncomingMessage, res: ServerResponse): Promise<void> {
    c.busy++;
    clearTimeout(c.idle);
    try {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"object":"list","data":[{"id":"m","object":"model"}]}');
        return;
      }
      if (!c.completing) stats.completionConnections++;
      c.completing = true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      await sleep(opts.ttftMs);
      for (let i = 0; i < tokens && !res.destroyed; i++) {
        if (i > 0) await sleep(itlMs);
        res.write(`data: ${chatChunk({ content: 'x' })}\n\n`);
      }
      if (res.destroyed) return;
      res.write(`data: ${chatChunk({}, 'length', { completion_tokens: tokens })}\n\n`);
      res.end('data: [DONE]\n\n');
      stats.completions++;
    } finally {
      c.busy--;
      res.once('finish', () => armIdle(c));
      if (res.writableFinished || res.destroyed) armIdle(c);
    }
  }

  const server = createServer((req, res) => {
    const c = conns.get(req.socket);
    if (!c) {
      res.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      const run = () => void answer(c, req, res).catch(() => res.destroy());
      if (c.served) run();
      else c.held.push(run);
    });
  });
  // The pool's own idle timer closes connections, not node's keep-alive timeout.
  server.keepAliveTimeout = 0;
  server.on('connection', (socket: Socket) => {
    stats.accepted++;
    const c: Conn = { socket, held: [], served: false, busy: 0, completing: false };
    conns.set(socket, c);
    socket.on('close', () => {
      clearTimeout(c.idle);
      conns.delete(socket);
      if (c.served) freeWorker();
    });
    if (serving < opts.workers) serve(c);
    else waiting.push(c);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of conns.keys()) s.destroy();
        server.close(() => resolve());
      }),
  };
}
