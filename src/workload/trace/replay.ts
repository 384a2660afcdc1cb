/**
 * A trace as the requests of a run: entry k is measured request k, sent at its trace time ×
 * timeScale after the start of the measured phase, its prompt exactly its input length (its
 * hash blocks shared with the other requests naming them), its output limit its output length.
 * Warmup requests take the first entries again, unscheduled, with text of their own after
 * the shared blocks.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import type { TraceSpec } from '../../types.js';
import type { Tokenizer } from '../tokenizer.js';
import { DEFAULT_TRACE_BLOCK_SIZE, TracePrompts } from './prompts.js';
import { entryHashIds, type Trace } from './trace.js';

/** How a run replays a trace. */
export interface TraceReplayOptions {
  trace: Trace;
  /** Tokens per hash id; default the trace format's own (Bailian: 16), else 512 (Mooncake's). */
  blockSize?: number;
  /** Trace times are multiplied by this (0.5: twice as fast). */
  timeScale: number;
}

/** One request's share of the trace. */
export interface TraceRequest {
  prompt: string;
  promptTokens: number;
  /** The trace's output length (at least 1: a request generates a token). */
  outputTokens: number;
  /** Measured requests: ms after the start of the measured phase. */
  scheduledMs?: number;
  /** Measured requests of a conversation of the trace: its number (Trace.conversation), for session affinity. */
  conversation?: number;
}

export interface TraceReplay {
  /** The trace as recorded in WorkloadSpec.trace. */
  spec: TraceSpec;
  count: number;
  /** Request `index` (warmup included) of a run with `warmup` warmup requests. */
  request(index: number, warmup: number): TraceRequest;
}

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Checks the replay options and returns the requests of the trace. */
export function traceReplay(options: TraceReplayOptions, tokenizer: Tokenizer, seed: number): TraceReplay {
  const { trace, timeScale } = options;
  const blockSize = options.blockSize ?? trace.blockSize ?? DEFAULT_TRACE_BLOCK_SIZE;
  if (!Number.isInteger(blockSize) || blockSize < 1) {
    throw usage(`--trace-block-size must be a whole number ≥ 1, got ${blockSize}`, 'Mooncake traces use 512');
  }
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) {
    throw usage(
      `--time-scale must be a number > 0, got ${timeScale}`,
      'e.g. --time-scale 0.1 replays ten times as fast',
    );
  }
  const prompts = new TracePrompts({ tokenizer, blockSize, seed });
  const spec: TraceSpec = {
    path: trace.path,
    format: trace.format,
    sha256: trace.sha256,
    entries: trace.count,
    blockSize,
    timeScale,
  };
  if (trace.columns) spec.columns = trace.columns;
  if (trace.timeUnit) spec.timeUnit = trace.timeUnit;
  return {
    spec,
    count: trace.count,
    request(index, warmup) {
      const measured = index >= warmup;
      const k = measured ? index - warmup : index % trace.count;
      if (k >= trace.count) {
        throw new RangeError(`trace ${trace.path} has ${trace.count} requests; request ${k + 1} asked`);
      }
      const tokens = trace.input[k]!;
      const request: TraceRequest = {
        prompt: prompts.prompt(entryHashIds(trace, k), tokens, index),
        promptTokens: tokens,
        outputTokens: Math.max(1, trace.output[k]!),
      };
      if (measured) request.scheduledMs = trace.offsetMs[k]! * timeScale;
      const conversation = measured ? trace.conversation?.[k] : undefined;
      if (conversation) request.conversation = conversation;
      return request;
    },
  };
}
