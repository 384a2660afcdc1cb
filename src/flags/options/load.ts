/**
 * How much load and for how long: closed or open loop, sessions, stages, stop rules, warmup,
 * SLO, connections and load worker threads.
 *
 * @module
 */

import { DAY_MS } from './bounds.js';
import { defineOptions, type StringOption } from './table.js';

/** The most requests in flight one load generator is asked to hold. */
export const MAX_FLAG_CONCURRENCY = 100_000;
export const CONCURRENCY_BOUNDS = {
  min: 1,
  max: MAX_FLAG_CONCURRENCY,
  why: 'more than one process can hold open',
} as const;

/** How much load and for how long: closed or open loop, stop rules, warmup, SLO. */
export const LOAD_OPTIONS = defineOptions({
  concurrency: {
    type: 'integer',
    ...CONCURRENCY_BOUNDS,
    short: 'c',
    valueName: 'N',
    group: 'Load',
    description: 'Closed loop: N workers, each sends its next request when the previous ends [default: 8]',
  },
  rate: {
    type: 'number',
    above: 0,
    max: 1_000_000,
    why: 'requests per second',
    allowInfinity: true,
    short: 'r',
    valueName: 'R',
    group: 'Load',
    description:
      'Open loop: R requests per second on a schedule, whatever the latency; inf sends them all at once (vLLM: --request-rate)',
  },
  burstiness: {
    type: 'number',
    above: 0,
    why: 'use 1 for Poisson arrivals, <1 for bursts',
    valueName: 'B',
    group: 'Load',
    description: 'Open loop: gamma shape of inter-arrival times; 1 = Poisson, <1 burstier [default: 1]',
  },
  maxConcurrency: {
    type: 'integer',
    ...CONCURRENCY_BOUNDS,
    valueName: 'N',
    group: 'Load',
    description:
      'Open loop and sessions: cap on requests in flight (late sends are counted); alone, as in vLLM, it caps an unlimited rate (--rate inf)',
  },
  sessions: {
    type: 'integer',
    min: 1,
    valueName: 'N',
    group: 'Load',
    description:
      "Multi-turn sessions, closed loop: N conversations at once, each turn carrying the whole history with the server's own replies; a user starts a new session when one ends",
  },
  sessionRate: {
    type: 'number',
    above: 0,
    valueName: 'R',
    group: 'Load',
    description:
      'Multi-turn sessions, open loop: R new sessions per second (gamma gaps, --burstiness), however many are running',
  },
  userRate: {
    type: 'number',
    above: 0,
    valueName: 'R',
    group: 'Load',
    description:
      "Sessions: each user's turns are due 1/R s apart from its first (AIPerf's user-centric rate) instead of a think time after each reply",
  },
  requests: {
    type: 'integer',
    min: 1,
    max: 1_000_000_000,
    short: 'n',
    valueName: 'N',
    group: 'Load',
    description:
      'Stop after N measured requests (session turns count one each) [default: max(80, 10 × concurrency), or max(80, 10 s × rate)]',
  },
  duration: {
    type: 'duration',
    above: 0,
    max: 30 * DAY_MS,
    short: 'd',
    group: 'Load',
    description: 'Stop sending after this long (e.g. 60s); requests still in flight are interrupted',
  },
  stages: {
    type: 'list',
    valueName: 'DUR:N,…',
    group: 'Load',
    description:
      'Load shape over time, k6-style: each target reached linearly over its stage from the one before (0 at first; 0s:N jumps), e.g. 30s:10,2m:50,30s:0; the run lasts their total; the summary gives the load each stage achieved',
  },
  stagesOf: {
    type: 'string',
    choices: ['concurrency', 'rate'],
    group: 'Load',
    description:
      'What the --stages targets are: requests in flight (closed loop) or requests per second (open loop) [default: concurrency]',
  },
  connections: {
    type: 'string',
    valueName: 'MODE',
    group: 'Load',
    description:
      "How the client uses connections: pooled (kept alive, opened for the load: the concurrency, or an open loop's expected in-flight; idle ones closed after 4 s), pooled:N (at most N), per-request (a new one per request, as vLLM's client) [default: pooled]",
  },
  sourceAddresses: {
    type: 'list',
    valueName: 'IP,…',
    group: 'Load',
    description:
      'Local addresses the connections leave from, in turn, for more connections than one address has ports (e.g. 10.0.0.5,10.0.0.6); not through a proxy. A 127.x.x.x --url on Linux spreads over 127.0.0.2, 127.0.0.3, … by itself once one address runs out of ports',
  },
  warmup: {
    type: 'integer',
    max: 1_000_000,
    valueName: 'N',
    group: 'Load',
    description: 'Send N requests first and leave them out of the results [default: 0]',
  },
  slo: {
    type: 'string',
    valueName: 'SLO',
    group: 'Load',
    description: 'Service-level objectives in ms for goodput, e.g. ttft=500,tpot=100,e2el=5000',
  },
});

/** Load worker threads: commands that run one benchmark (not watch, whose rounds are small). */
export const WORKERS_OPTION: StringOption = {
  type: 'string',
  valueName: 'N',
  group: 'Load',
  description:
    'Split the load across N worker threads, each with its own event loop and connections (closed loop: the concurrency; open loop: the arrivals; each stage its share; a session stays whole on one worker); auto = cores − 1 [default: 1]',
};
