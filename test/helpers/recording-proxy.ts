/**
 * A loopback proxy (127.0.0.1, port 0) in front of a server, for tests of what a run sends:
 * it keeps every completion request's body and the reply text the client received for it.
 *
 * @module
 */

import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage } from '../../src/types.js';

export interface Proxy {
  url: string;
  bodies: { messages: ChatMessage[] }[];
  /** Each completion request's headers, in the order of `bodies`. */
  headers: IncomingHttpHeaders[];
  /** The reply text the client received for each request, in order of completion, by the proxy's own reading. */
  replies: string[];
  close(): Promise<void>;
}

/** A loopback proxy in front of the engine (`target`) that keeps each completion request's body and reply text. */
export async function recordingProxy(target: string): Promise<Proxy> {
  const bodies: Proxy['bodies'] = [];
  const headers: IncomingHttpHeaders[] = [];
  const replies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.endsWith('/completions')) {
        bodies.push(JSON.parse(body.toString('utf8')));
        headers.push(req.headers);
      }
      const up = httpRequest(
        new URL(req.url ?? '/', target),
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          let text = '';
          upRes.on('data', (c: Buffer) => {
            for (const line of c.toString('utf8').split('\n')) {
              if (!line.startsWith('data: {')) continue;
              const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
              if (typeof delta === 'string') text += delta;
            }
            res.write(c);
          });
          upRes.on('end', () => {
            if (req.url?.endsWith('/completions')) replies.push(text);
            res.end();
          });
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    headers,
    replies,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
