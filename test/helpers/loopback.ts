/**
 * Tiny loopback HTTP servers for client tests: node:http on 127.0.0.1 port 0, every socket
 * tracked so that close() never hangs, and helpers that write OpenAI-style SSE streams.
 *
 * @module
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach } from 'vitest';

export interface Loopback {
  url: string;
  port: number;
  server: Server;
  /** Bodies (parsed JSON when possible) and headers of every request received. */
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: unknown }[];
  close(): Promise<void>;
}

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  socket: Socket,
) => void | Promise<void>;

/** Start a server whose handler sees the parsed request body. */
export async function startLoopback(handler: Handler): Promise<Loopback> {
  const sockets = new Set<Socket>();
  const requests: Loopback['requests'] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the text
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      Promise.resolve(handler(req, res, body, req.socket)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on which nothing listens (bound, then released). */
export async function freePort(): Promise<number> {
  const lb = await startLoopback(() => undefined);
  await lb.close();
  return lb.port;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A chat chunk carrying content (and optionally reasoning, finish_reason, usage). */
export function chatChunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: Record<string, unknown>,
): string {
  const chunk: Record<string, unknown> = {
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  if (usage) chunk.usage = usage;
  return JSON.stringify(chunk);
}

/** Start an SSE response. */
export function sseHead(res: ServerResponse, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** Write events (`data: x\n\n` each), with a gap between them, then end the response. */
export async function writeEvents(
  res: ServerResponse,
  events: string[],
  gapMs = 0,
  end = true,
): Promise<void> {
  sseHead(res);
  for (const e of events) {
    if (gapMs > 0) await sleep(gapMs);
    if (res.destroyed) return;
    res.write(`data: ${e}\n\n`);
  }
  if (end) res.end();
}

/** Reply with JSON and a status. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export interface ConnectProxy {
  url: string;
  /** CONNECT targets seen, and the Proxy-Authorization header of each. */
  tunnels: { target: string; auth: string | undefined }[];
  close(): Promise<void>;
}

/** A minimal HTTP CONNECT proxy on loopback; with `refuse`, answers every CONNECT with that status. */
export async function startConnectProxy(refuse?: number): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  const tunnels: ConnectProxy['tunnels'] = [];
  const server = createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.push({ target, auth: req.headers['proxy-authorization'] });
    if (refuse) {
      client.end(`HTTP/1.1 ${refuse} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = [
      target.slice(0, target.lastIndexOf(':')),
      Number(target.slice(target.lastIndexOf(':') + 1)),
    ];
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A starter of loopback servers for one test file: every server it starts is closed after
 * each test. Call it at the top level (or in a describe) of the file.
 */
export function loopbacksClosedAfterEach(): (handler: Handler) => Promise<Loopback> {
  const servers: Loopback[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (handler) => {
    const lb = await startLoopback(handler);
    servers.push(lb);
    return lb;
  };
}
