/**
 * Failure injection: each failure has a rate (0..1), drawn per request from a seeded source,
 * so the same seed and request order give the same failures.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { createSimRng, type SimRng } from './rng.js';

const RATE_KEYS = [
  'rateLimit',
  'serverError',
  'unavailable',
  'stall',
  'disconnect',
  'malformed',
  'errorObject',
  'emptyChoices',
  'notFound',
] as const;

/** Throw a GoodputError naming the first rate outside [0, 1]. */
export function validateFailureConfig(c: FailureConfig): void {
  for (const k of RATE_KEYS) {
    const v = c[k];
    if (v !== undefined && !(v >= 0 && v <= 1))
      throw new GoodputError(
        'E_SIM',
        `failure rate ${k}=${v} is outside [0, 1]`,
        'give each --fail-* rate as a fraction, e.g. 0.05',
      );
  }
}

/** Rates of each injected failure. Fields left out are 0. */
export interface FailureConfig {
  /** 429 with a Retry-After header (seconds: retryAfterS, default 1). */
  rateLimit?: number;
  retryAfterS?: number;
  /** 500 with an OpenAI error body. */
  serverError?: number;
  /** 503 with Retry-After. */
  unavailable?: number;
  /** Headers sent, then no token for stallMs (default 2000) before the request enters the engine. */
  stall?: number;
  stallMs?: number;
  /** The socket is destroyed mid-stream (after about half the output). */
  disconnect?: number;
  /** A malformed SSE data line mid-stream (the stream then continues). */
  malformed?: number;
  /** An error object inside the 200 stream mid-stream, then [DONE]. */
  errorObject?: number;
  /** Empty-choices chunks (no usage) between token chunks. */
  emptyChoices?: number;
  /** 404 model-not-found even for the served model. */
  notFound?: number;
}

/** What happens to one request. At most one terminal failure; stall and empty chunks combine with it. */
export interface FailurePlan {
  http?: 429 | 500 | 503 | 404;
  stallMs?: number;
  disconnect?: boolean;
  malformed?: boolean;
  errorObject?: boolean;
  emptyChoices?: boolean;
}

const TERMINAL: [keyof FailureConfig, (p: FailurePlan) => void][] = [
  ['rateLimit', (p) => (p.http = 429)],
  ['serverError', (p) => (p.http = 500)],
  ['unavailable', (p) => (p.http = 503)],
  ['notFound', (p) => (p.http = 404)],
  ['disconnect', (p) => (p.disconnect = true)],
  ['malformed', (p) => (p.malformed = true)],
  ['errorObject', (p) => (p.errorObject = true)],
];

/** Draws a FailurePlan per request from a seeded source. */
export class FailureInjector {
  private config: FailureConfig;
  private rng: SimRng;

  constructor(config: FailureConfig = {}, seed = 0) {
    validateFailureConfig(config);
    this.config = { ...config };
    this.rng = createSimRng(seed ^ 0x5f3759df);
  }

  /** Replace the rates (the seeded sequence continues). */
  set(config: FailureConfig): void {
    validateFailureConfig(config);
    this.config = { ...config };
  }

  get current(): FailureConfig {
    return { ...this.config };
  }

  /** The plan for the next request. Draws a fixed number of values, so rates do not shift the sequence. */
  next(): FailurePlan {
    const c = this.config;
    const plan: FailurePlan = {};
    const uTerminal = this.rng.next();
    const uStall = this.rng.next();
    const uEmpty = this.rng.next();
    let acc = 0;
    for (const [key, apply] of TERMINAL) {
      acc += (c[key] as number | undefined) ?? 0;
      if (uTerminal < acc) {
        apply(plan);
        break;
      }
    }
    if (uStall < (c.stall ?? 0)) plan.stallMs = c.stallMs ?? 2000;
    if (uEmpty < (c.emptyChoices ?? 0)) plan.emptyChoices = true;
    return plan;
  }
}
