/**
 * Bodies that never end well, for tests of bounded reads: an endless body written as fast as
 * the socket takes it, and a body that trickles a byte at a time. Both stop when the client
 * goes away.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';

/** Writes `chunk` for ever (until the client closes), honouring back-pressure. */
export function writeEndless(
  res: ServerResponse,
  chunk: string | Buffer = Buffer.alloc(64 * 1024, 'a'),
): void {
  const push = () => {
    while (!res.destroyed && res.write(chunk)) {}
    if (!res.destroyed) res.once('drain', push);
  };
  res.on('error', () => {});
  push();
}

/** Writes `text` one byte every `everyMs`, then `rest` forever at the same pace, until the client closes. */
export function writeTrickle(res: ServerResponse, text: string, everyMs = 1000): void {
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(text[i % text.length]!);
    i++;
  }, everyMs);
  res.on('close', () => clearInterval(timer));
  res.on('error', () => {});
}
