/**
 * What the client's connections went through, seen from its side of each socket: how many were
 * open at once, how many of those the server had answered on, and how long a connection waited
 * to be served: its connect (a server whose accept queue is full lets the client's SYN time out
 * and retry, a second at a time) plus its first request's wait for the server's first byte.
 *
 * Why: a server with a bounded pool of HTTP threads (llama.cpp's cpp-httplib: 10 threads by
 * default; many Python servers and gateways) accepts every connection, so connect succeeds, but
 * serves only as many as it has threads, each until it closes; a request written to another
 * connection waits, with no byte back, until a thread frees. That wait is the server's, not the
 * engine's and not the client's.
 *
 * Cheap on the hot path: a socket is looked at once when it opens, once on its first write (a
 * one-shot wrapper of `write`), once when its first bytes can be read (a 'readable' listener,
 * added before undici's own and removed then: undici reads its sockets in paused mode, so no
 * data listener), and on close. Nothing is done per response: 20,000 sockets waiting at once
 * cost nothing until each is answered.
 *
 * @module
 */

import type { Socket } from 'node:net';
import type { Clock } from '../types.js';

/** A connection whose first request waited longer than this for the server's first byte counts as waiting for a connection (ms). */
export const CONNECTION_WAIT_MS = 250;

export interface ConnectionStats {
  /** Connections opened. */
  opened: number;
  /** Most connections open at once. */
  peakOpen: number;
  /** Most open connections the server had answered on, at once. */
  peakServed: number;
  /** Connections that waited more than CONNECTION_WAIT_MS to connect and get a first byte, or never got one. */
  waited: number;
  /** The longest such wait (ms), 0 when none waited. */
  longestWaitMs: number;
}

interface Unanswered {
  connectMs: number;
  /** When the first request was written (ms on the clock); undefined before any write. */
  firstWriteMs: number | undefined;
}

export class ConnectionTracker {
  private readonly clock: Clock;
  private readonly unanswered = new Map<Socket, Unanswered>();
  private open = 0;
  private served = 0;
  private opened = 0;
  private peakOpen = 0;
  private peakServed = 0;
  private waited = 0;
  private longestWaitMs = 0;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** A connection was opened (called by the connector, before any request is written on it). */
  add(socket: Socket, connectMs: number): void {
    this.opened++;
    this.open++;
    if (this.open > this.peakOpen) this.peakOpen = this.open;
    const entry: Unanswered = { connectMs, firstWriteMs: undefined };
    this.unanswered.set(socket, entry);
    const write = socket.write;
    const clock = this.clock;
    socket.write = function firstWrite(this: Socket, ...args: unknown[]) {
      entry.firstWriteMs ??= clock.now();
      socket.write = write;
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as Socket['write'];
    const onReadable = () => {
      if (socket.bytesRead === 0) return;
      socket.off('readable', onReadable);
      if (!this.unanswered.delete(socket)) return;
      this.served++;
      if (this.served > this.peakServed) this.peakServed = this.served;
      if (entry.firstWriteMs !== undefined) this.noteWait(entry, this.clock.now());
    };
    socket.on('readable', onReadable);
    socket.once('close', () => {
      socket.off('readable', onReadable);
      this.open--;
      if (this.unanswered.delete(socket)) {
        // Closed with no byte from the server: it waited from its first write to now.
        if (entry.firstWriteMs !== undefined) this.noteWait(entry, this.clock.now());
      } else {
        this.served--;
      }
    });
  }

  /** The figures so far; connections still waiting count with their wait until now. */
  stats(): ConnectionStats {
    let waited = this.waited;
    let longest = this.longestWaitMs;
    const now = this.clock.now();
    for (const entry of this.unanswered.values()) {
      if (entry.firstWriteMs === undefined) continue;
      const ms = entry.connectMs + now - entry.firstWriteMs;
      if (ms > CONNECTION_WAIT_MS) waited++;
      if (ms > longest) longest = ms;
    }
    return {
      opened: this.opened,
      peakOpen: this.peakOpen,
      peakServed: this.peakServed,
      waited,
      longestWaitMs: Math.round(longest),
    };
  }

  private noteWait(entry: Unanswered, nowMs: number): void {
    const ms = entry.connectMs + nowMs - (entry.firstWriteMs as number);
    if (ms > CONNECTION_WAIT_MS) this.waited++;
    if (ms > this.longestWaitMs) this.longestWaitMs = ms;
  }
}
