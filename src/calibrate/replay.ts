/**
 * A measured run replayed on the simulated engine in virtual time: the same requests (prompt
 * and output tokens), the same load (closed loop at its concurrency, or its send times), a
 * candidate profile; its TTFT and TPOT by the same definition as the measured ones.
 *
 * @module
 */

import { type EngineOptions, type SimProfile, simulateVirtual, type VirtualRequest } from '../sim/index.js';
import type { RequestRecord } from '../types.js';
import { type CalibrationRun, type RunFigures, runFigures } from './runs.js';

/** Replays `run` on `profile` with the measured server's engine flags; its figures. */
export function replayRun(run: CalibrationRun, profile: SimProfile, engine?: EngineOptions): RunFigures {
  const requests: VirtualRequest[] = run.requests.map((r) => ({
    arrivalMs: r.arrivalMs,
    promptTokens: r.promptTokens,
    outputTokens: r.outputTokens,
    // Unique prompts need no block hashes (nothing to hit); a shared system prompt does.
    ...(run.sharedPrefixTokens
      ? { sharedPrefixTokens: Math.min(run.sharedPrefixTokens, r.promptTokens), prefixId: 1 }
      : { promptBlockHashes: [] }),
  }));
  const result = simulateVirtual(requests, {
    profile,
    ...(engine ? { engine } : {}),
    ...(run.concurrency !== undefined ? { concurrency: run.concurrency } : {}),
  });
  // As the client would have recorded them (send = arrival, no network), for the one definition of TTFT and TPOT.
  const records: RequestRecord[] = result.timings.map((t) => ({
    id: t.id,
    index: t.index,
    warmup: false,
    outcome: t.finishReason === 'rejected' ? 'error' : 'success',
    attempts: 1,
    scheduledMs: t.arrivalMs,
    sentMs: t.arrivalMs,
    firstSentMs: t.arrivalMs,
    ...(t.firstTokenMs !== undefined ? { firstTokenMs: t.firstTokenMs } : {}),
    endMs: t.endMs,
    chunkMs: [],
    chunkChars: [],
    promptTokens: run.requests[t.index]!.promptTokens,
    outputTokens: t.outputTokens,
    outputTokensSource: 'usage',
    maxTokens: run.requests[t.index]!.outputTokens,
  }));
  return runFigures(records);
}
