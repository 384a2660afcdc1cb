/**
 * A loopback router (127.0.0.1, port 0) in front of several replicas, for tests of runs that
 * scrape each replica: weighted round robin (weights 3 and 1 send requests 1, 2, 3 to the first
 * replica and 4 to the second, and so on), each request streamed through untouched. It counts
 * the requests it sent to each replica, so a test can hold the servers' counters against it.
 *
 * @module
 */

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Requests sent to each upstream (every path, the model list included), in the order given. */
  sent: number[];
  close(): Promise<void>;
}

/** Starts the router: `upstreams[i]` gets `weights[i]` requests of every round. */
export async function roundRobinProxy(
  upstreams: readonly string[],
  weights: readonly number[],
): Promise<RoundRobinProxy> {
  const schedule = upstreams.flatMap((_, i) => Array.from({ length: weights[i] ?? 1 }, () => i));
  const sent = upstreams.map(() => 0);
  let next = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const i = schedule[next++ % schedule.length]!;
    sent[i]!++;
    const target = new URL(req.url ?? '/', upstreams[i]);
    const up = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    // A client that goes away cancels the upstream request too, as a router does.
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
