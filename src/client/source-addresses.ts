/**
 * Local source addresses of the client's connections, and what this machine lets one process
 * open: its ephemeral ports and its file descriptors.
 *
 * Why: a TCP connection is named by (source address, source port, destination address,
 * destination port), and one source address has only the ephemeral port range
 * (net.ipv4.ip_local_port_range, 28,232 ports by default on Linux) towards one server. Tens of
 * thousands of streams from one process to one server need more source addresses; on Linux
 * every address of 127.0.0.0/8 is a local address of the loopback interface, so a loopback
 * target can be reached from 127.0.0.2, 127.0.0.3, … with no set-up at all.
 *
 * Two ways, both through the connector (each connect is given a `localAddress`):
 * - `--source-addresses A,B,…` (any target): connections take the addresses in turn;
 * - a loopback target (an IPv4 127.x.x.x URL, Linux): connections leave from the default address
 *   until a connect fails for want of a port, then from 127.0.0.2, and so on (the spread only
 *   starts when it is needed, so small runs look exactly as before).
 * In both, a connect that fails for want of a port (EADDRNOTAVAIL, EADDRINUSE) is tried again
 * from the next address, each address once. When every address failed, or the process is out of
 * file descriptors (EMFILE, ENFILE), the request fails as SOCKETS_EXHAUSTED (classify.ts).
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import type { buildConnector } from 'undici';
import { readOpenFilesLimit } from '../util/index.js';

/** Loopback source addresses a loopback target may spread over, the default one included. */
export const LOOPBACK_SOURCE_ADDRESSES = 16;

/** Socket errors of a machine out of local ports: the next source address may have some. */
const PORT_EXHAUSTION_CODES = new Set(['EADDRNOTAVAIL', 'EADDRINUSE']);
/** Socket errors of a machine out of local ports or file descriptors (request error SOCKETS_EXHAUSTED). */
export const SOCKET_EXHAUSTION_CODES = new Set([...PORT_EXHAUSTION_CODES, 'EMFILE', 'ENFILE']);

/** How connections pick their source address. */
export interface SourcePlan {
  /** The addresses in order; undefined: the kernel's choice (no bind). */
  addresses: (string | undefined)[];
  /** `turns`: each connection the next address; `on-exhaustion`: the same one until it runs out of ports. */
  spread: 'turns' | 'on-exhaustion';
}

/**
 * The source plan of a client: the addresses given, else the loopback spread for an IPv4
 * loopback host on Linux, else none (undefined: connect as usual).
 *
 * @example
 * ```ts
 * sourcePlan('127.0.0.1', undefined, 'linux').addresses.slice(0, 3); // → [undefined, '127.0.0.2', '127.0.0.3']
 * sourcePlan('10.0.0.5', ['10.0.0.9', '10.0.0.10'], 'linux'); // → { addresses: ['10.0.0.9', '10.0.0.10'], spread: 'turns' }
 * ```
 */
export function sourcePlan(
  hostname: string,
  given: readonly string[] | undefined,
  platform: NodeJS.Platform = process.platform,
): SourcePlan | undefined {
  if (given && given.length > 0) return { addresses: [...given], spread: 'turns' };
  if (platform !== 'linux' || !isIPv4(hostname) || !hostname.startsWith('127.')) return undefined;
  const addresses: (string | undefined)[] = [undefined];
  for (let i = 2; i <= LOOPBACK_SOURCE_ADDRESSES; i++) addresses.push(`127.0.0.${i}`);
  return { addresses, spread: 'on-exhaustion' };
}

/** A connector that gives each connect a source address of the plan, and tries the next one when a connect finds no free port. */
export function spreadOverSources(
  inner: buildConnector.connector,
  plan: SourcePlan,
): buildConnector.connector {
  const { addresses } = plan;
  let next = 0;
  return (options, callback) => {
    const first = next;
    if (plan.spread === 'turns') next = (next + 1) % addresses.length;
    const attempt = (tried: number) => {
      const at = (first + tried) % addresses.length;
      inner({ ...options, localAddress: addresses[at] ?? null }, (err, socket) => {
        if (err && tried + 1 < addresses.length && PORT_EXHAUSTION_CODES.has(socketCode(err))) {
          // Out of ports here: the load moves on to the next address.
          if (plan.spread === 'on-exhaustion' && next === at) next = (at + 1) % addresses.length;
          attempt(tried + 1);
          return;
        }
        if (err) callback(err, null);
        else callback(null, socket!);
      });
    };
    attempt(0);
  };
}

function socketCode(err: unknown): string {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; depth < 3 && e; depth++) {
    if (typeof e.code === 'string' && e.code !== 'UND_ERR_SOCKET') return e.code;
    e = e.cause as typeof e;
  }
  return '';
}

/** What this machine lets one process open, where it can be read (Linux); undefined fields are unknown. */
export interface LocalLimits {
  /** The soft limit of open files of this process (`ulimit -n`). */
  openFiles?: number;
  /** Ephemeral ports per source address towards one server (net.ipv4.ip_local_port_range). */
  ports?: number;
}

/** Reads the limits: open files where they can be read (util/open-files.ts), ports from /proc (Linux); else unknown. */
export function readLocalLimits(): LocalLimits {
  const limits: LocalLimits = {};
  const openFiles = readOpenFilesLimit();
  if (openFiles !== undefined) limits.openFiles = openFiles;
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const ports = Number(high) - Number(low) + 1;
    if (ports > 0) limits.ports = ports;
  } catch {
    // not Linux
  }
  return limits;
}

/**
 * File descriptors a process keeps besides its connections: stdio and the event loop (about 20
 * at start), the result files, server-metrics scrapes, a pacer thread, modules and tables loaded
 * on first use, the summary written at the end.
 */
export const RESERVED_FILES = 64;

/**
 * The most connections that fit under an open-file limit, `filesPerConnection` each (2 when the
 * server's end of each connection is in this process too: the embedded engine), RESERVED_FILES
 * kept; at least 1. Undefined when the limit is unknown.
 *
 * @example
 * connectionsWithinFiles(1024, 1); // → 960
 * connectionsWithinFiles(1024, 2); // → 480
 */
export function connectionsWithinFiles(
  openFiles: number | undefined,
  filesPerConnection: number,
): number | undefined {
  if (openFiles === undefined) return undefined;
  return Math.max(1, Math.floor((openFiles - RESERVED_FILES) / filesPerConnection));
}

/**
 * A note when `connections` at once will not fit this machine's limits, naming the fix; else
 * undefined. The soft file limit cannot be raised from inside Node: it is raised in the shell
 * that starts goodput (`ulimit -n`), up to the hard limit. `filesCap`: the pool was capped to
 * that many connections to fit the limit (the note says so instead of predicting failures);
 * `filesPerConnection` as in connectionsWithinFiles (default 1).
 */
export function describeLocalLimits(
  connections: number,
  limits: LocalLimits,
  plan: SourcePlan | undefined,
  opts: { filesCap?: number; filesPerConnection?: number } = {},
): string | undefined {
  const notes: string[] = [];
  const { filesCap } = opts;
  const files = connections * (opts.filesPerConnection ?? 1) + RESERVED_FILES;
  if (limits.openFiles !== undefined && filesCap !== undefined && filesCap < connections) {
    notes.push(
      `${connections} connections at once need about ${files} open files, over this process's limit of ${limits.openFiles}: the client holds at most ${filesCap} and the other requests wait in it for one (the server sees at most ${filesCap} at once); raise it with ulimit -n ${files} (or more) in the shell that starts goodput, or lower the load`,
    );
  } else if (limits.openFiles !== undefined && files > limits.openFiles) {
    notes.push(
      `${connections} connections at once need about ${files} open files, over this process's limit of ${limits.openFiles}: raise it with ulimit -n ${files} (or more) in the shell that starts goodput, or lower the load`,
    );
  }
  const sources = plan?.addresses.length ?? 1;
  if (limits.ports !== undefined && connections > limits.ports * sources) {
    notes.push(
      `${connections} connections at once need more local ports than ${sources} source address${sources === 1 ? '' : 'es'} × ${limits.ports} ephemeral ports: give more with --source-addresses, or widen net.ipv4.ip_local_port_range`,
    );
  }
  return notes.length > 0 ? `connections: ${notes.join('; ')}` : undefined;
}
