/**
 * The server limited connections: it served only so many at once (a bounded pool of HTTP
 * threads, each held by a connection until it closes: llama.cpp's --threads-http, many Python
 * servers and gateways) and requests written to the others waited for a connection, not for
 * the engine. Read from summary.load.connections, whose verdict the runner made from what the
 * client's sockets saw. Pure.
 *
 * @module
 */

import type { Finding } from '../types.js';
import type { SummaryView } from './rules.js';

/** The finding, or undefined when the run's connections were not limited by the server. */
export function serverConnectionsFinding(summary?: SummaryView): Finding | undefined {
  const use = summary?.load?.connections;
  if (!use?.serverLimited) return undefined;
  const warmup = summary?.load?.connectionWarmup;
  const short = warmup?.reason === 'budget' && warmup.ok > 0 && warmup.ok < warmup.requested;
  const evidence = [
    `the server served ${use.peakServed} connections at once while ${summary?.load?.peakInFlight ?? '?'} requests were in flight`,
    use.waited > 0
      ? `${use.waited} connection(s) waited up to ${use.longestWaitMs} ms for its first byte`
      : undefined,
    short
      ? `${warmup.ok} of ${warmup.requested} warm-up connections answered within ${warmup.ms} ms`
      : undefined,
  ].filter((s): s is string => s !== undefined);
  return {
    kind: 'server-connections',
    // Above client-bound (0.5 + share): the waits it explains are not the client's.
    score: 0.8,
    title: 'The server limited connections: requests waited for a connection, not for the GPU',
    evidence: `${evidence.join('; ')}: the latencies include that wait`,
    knob: "raise the server's HTTP threads or connection limit (llama.cpp: --threads-http; Python servers: more workers), or lower --concurrency / --rate to what it serves; --connections per-request measures it as vLLM's client does",
  };
}
