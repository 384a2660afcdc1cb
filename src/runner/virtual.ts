/**
 * `goodput run --time virtual`: the run's workload goes through the embedded engine on a
 * simulated clock instead of sockets, so a what-if run of thousands of requests finishes in
 * seconds. This is the transport of such a run (runBenchmark does the rest, as for a live
 * one): the engine's VirtualClock and an in-process send, so that the run pipeline's load is
 * `runLoad` itself: warmup, closed and open loop, caps, stop rules (`--requests`, `--duration` in
 * simulated time), cancels and Ctrl-C behave as in a live run by construction. Each request's
 * simulated timings become an ordinary RequestRecord (send, first token, one chunk per token,
 * end), so requests.jsonl, summary.json and every command that reads them work as for a live
 * run; the summary says `meta.target.timeMode: "virtual"`.
 *
 * What a virtual record cannot know: network and client time (none), chunk sizes in
 * characters (one per chunk: one token per chunk, as the live engine streams). Output lengths
 * are drawn exactly as the live engine draws them (same seed, same prompt key), reasoning
 * lengths too in reasoning mode (`--reasoning-tokens`: the first tokens of a chat or Responses
 * request are reasoning chunks), and the engine's own counters fill the `server` block.
 *
 * @module
 */

import { specDecodeFigures } from '../server-metrics/index.js';
import {
  chatPromptText,
  type EngineCounters,
  EngineRejection,
  hashString,
  imageUrlTokenIds,
  pickOutputLength,
  pickReasoningLength,
  type ReasoningMode,
  type RequestSink,
  replyText,
  resolveProfile,
  type SimProfile,
  sequenceBlockHashes,
  splitOutput,
  syntheticBlockHashes,
  tokenIds,
  VirtualClock,
  VirtualEngine,
} from '../sim/index.js';
import type { RequestRecord, ServerSummary, WorkItem } from '../types.js';
import type { BenchmarkConfig } from './config.js';
import type { SendFn } from './load.js';
import { embeddedEngineOptions } from './target.js';
import { toolReplyText, virtualToolCall, withToolCall } from './virtual-tools.js';

/** The live engine's mean output length when ignore_eos is off (its default). */
const MEAN_OUTPUT_TOKENS = 200;

const us = (ms: number) => Math.round(ms * 1000) / 1000;

/** How a virtual request ended, as the client would have seen it. */
export type VirtualEnd =
  | { kind: 'finished'; finishReason: 'stop' | 'length' | 'abort' }
  | { kind: 'rejected'; message: string }
  | { kind: 'cancelled'; afterMs: number }
  | { kind: 'interrupted'; message: string };

/**
 * One simulated request as the client would have recorded it: sent, first token, one chunk per
 * token, end. In reasoning mode (`reasoningTokens` given: the first that many output tokens are
 * reasoning), the chunks carry their phase as the live client records it (`chunkReasoningChars`)
 * and the reasoning tokens come from usage when the request finished, else counted.
 */
export function virtualRecord(
  item: WorkItem,
  times: {
    scheduledMs: number;
    sentMs: number;
    endMs: number;
    tokenMs: readonly number[];
    /** Tokens of each engine step, in order (speculative decoding emits several); absent: one each. */
    stepTokens?: readonly number[];
  },
  end: VirtualEnd,
  reasoningTokens?: number,
): RequestRecord {
  const sent = us(times.sentMs);
  const reasoned = reasoningTokens === undefined ? 0 : Math.min(reasoningTokens, times.tokenMs.length);
  const chunks = stepChunks(times.tokenMs, times.stepTokens, reasoned);
  const record: RequestRecord = {
    id: item.id,
    index: item.index,
    warmup: item.warmup,
    outcome: 'success',
    attempts: 1,
    scheduledMs: us(times.scheduledMs),
    sentMs: sent,
    firstSentMs: sent,
    headersMs: sent,
    endMs: us(times.endMs),
    chunkMs: chunks.ms,
    chunkChars: chunks.tokens,
    httpStatus: 200,
    promptTokens: item.promptTokens,
    serverPromptTokens: item.promptTokens,
    outputTokens: times.tokenMs.length,
    outputTokensSource: 'usage',
    maxTokens: item.maxTokens,
  };
  if (record.chunkMs.length > 0) record.firstTokenMs = record.chunkMs[0];
  if (item.sessionId !== undefined) record.sessionId = item.sessionId;
  if (item.turn !== undefined) record.turn = item.turn;
  if (item.class !== undefined) record.class = item.class;
  if (reasoned > 0) record.chunkReasoningChars = chunks.reasoning;
  switch (end.kind) {
    case 'finished':
      record.finishReason = end.finishReason;
      // usage.completion_tokens_details.reasoning_tokens, as the live engine reports it (0 included).
      if (reasoningTokens !== undefined) record.reasoningTokens = reasoned;
      return record;
    case 'rejected':
      return {
        ...record,
        outcome: 'error',
        httpStatus: 400,
        error: { code: 'HTTP_CLIENT_ERROR', message: end.message, httpStatus: 400 },
        outputTokens: 0,
      };
    case 'cancelled':
      // The user gave up: the record ends there with the tokens received so far.
      record.outcome = 'cancelled';
      record.error = { code: 'ABORTED', message: `cancelled after ${end.afterMs} ms (simulated user)` };
      return countedReasoning(record, reasoned);
    case 'interrupted':
      record.outcome = 'cancelled';
      record.error = { code: 'INTERRUPTED', message: end.message };
      return countedReasoning(record, reasoned);
  }
}

/**
 * The chunks the live engine streams for these token times: one per step (its `stepTokens`
 * tokens, one character each), split in two at the end of the first `reasoned` tokens as the
 * live engine sends a step's reasoning and answer tokens in separate chunks.
 */
function stepChunks(
  tokenMs: readonly number[],
  stepTokens: readonly number[] | undefined,
  reasoned: number,
): { ms: number[]; tokens: number[]; reasoning: number[] } {
  const out = { ms: [] as number[], tokens: [] as number[], reasoning: [] as number[] };
  const push = (ms: number, tokens: number, reasoning: number): void => {
    out.ms.push(us(ms));
    out.tokens.push(tokens);
    out.reasoning.push(reasoning);
  };
  let first = 0;
  for (let s = 0; first < tokenMs.length; s++) {
    const count = Math.min(stepTokens?.[s] ?? 1, tokenMs.length - first);
    const r = Math.max(0, Math.min(count, reasoned - first));
    if (r > 0) push(tokenMs[first]!, r, r);
    if (count > r) push(tokenMs[first]!, count - r, 0);
    first += count;
  }
  return out;
}

/** A request that ended without usage: its tokens (and reasoning tokens, if any) are the ones received. */
function countedReasoning(record: RequestRecord, reasoned: number): RequestRecord {
  record.outputTokensSource = 'counted';
  if (reasoned > 0) {
    record.reasoningTokens = reasoned;
    record.reasoningTokensSource = 'counted';
  }
  return record;
}

/** The reasoning mode of a virtual run: the embedded engine's, for the APIs that reason (chat, Responses). */
function reasoningModeOf(config: BenchmarkConfig): ReasoningMode | undefined {
  return config.api === 'chat' || config.api === 'responses' ? config.sim?.reasoning : undefined;
}

/**
 * A request's output as the live engine draws it (same seed, same prompt key): in reasoning
 * mode its reasoning length first, counted against max_tokens, then the answer in what is left.
 */
function drawOutput(
  config: BenchmarkConfig,
  mode: ReasoningMode | undefined,
  key: string,
  maxTokens: number,
): { reasoning?: number; tokens: number; finishReason: 'stop' | 'length' } {
  const answer = (max: number) =>
    pickOutputLength({
      seed: config.seed,
      key,
      maxTokens: max,
      ignoreEos: config.sampling.ignoreEos,
      meanOutputTokens: MEAN_OUTPUT_TOKENS,
    });
  if (!mode) return answer(maxTokens);
  return splitOutput(pickReasoningLength(mode.length, config.seed, key), maxTokens, answer);
}

interface VirtualSender {
  send: SendFn;
  /** Output tokens the engine generated for warmup requests (left out of the server's count). */
  warmupTokens(): number;
}

/**
 * The in-process sender of a virtual run: each request goes into the engine at the clock's
 * now, with the output length the live engine would draw for it, and its record is built
 * from the engine's token times. A simulated user's cancel and the run's own stop (deadline,
 * Ctrl-C) tell the engine the client went away, as a closed socket tells the live one.
 */
function virtualSender(ve: VirtualEngine, config: BenchmarkConfig): VirtualSender {
  const clock = ve.clock;
  const mode = reasoningModeOf(config);
  let warmupTokens = 0;
  const send: SendFn = (item, { scheduledMs, signal, onReply }) =>
    new Promise<RequestRecord>((resolve) => {
      const sentMs = clock.now();
      const tokenMs: number[] = [];
      const stepTokens: number[] = [];
      let done = false;
      let cancelTimer: (() => void) | undefined;
      const finish = (end: VirtualEnd): void => {
        if (done) return;
        done = true;
        cancelTimer?.();
        signal.removeEventListener('abort', onAbort);
        // A session turn's reply: the live engine's text for this prompt, as the client would have received it.
        const n = tokenMs.length;
        onReply?.(
          tool ? toolReplyText(config.api, tool, textSeed, out.reasoning ?? 0, n) : replyText(textSeed, n),
        );
        const times = { scheduledMs, sentMs, endMs: clock.now(), tokenMs, stepTokens };
        resolve(
          withToolCall(
            virtualRecord(item, times, end, out.reasoning),
            item,
            config.api,
            !!tool && n > (out.reasoning ?? 0),
          ),
        );
      };
      const onAbort = (): void => {
        ve.clientGone(item.id);
        const reason: unknown = signal.reason;
        finish({ kind: 'interrupted', message: reason instanceof Error ? reason.message : 'run stopped' });
      };
      const text = item.messages ? chatPromptText(item.messages) : (item.prompt ?? '');
      const key = `${text}\u0000${String(config.sampling.seed ?? '')}`;
      const textSeed = hashString(key, config.seed);
      const out = drawOutput(config, mode, key, item.maxTokens);
      const tool = virtualToolCall(config, item, key, textSeed);
      const sink: RequestSink = {
        onToken: (_req, tMs, count) => {
          if (done) return;
          stepTokens.push(count);
          for (let i = 0; i < count; i++) tokenMs.push(tMs);
        },
        onFinish: (req) => {
          if (item.warmup) warmupTokens += req.generated;
          finish({ kind: 'finished', finishReason: req.finishedAs ?? 'stop' });
        },
      };
      const system = config.workload.systemPromptTokens;
      // Images cost the tokens the live engine charges for them (sim/vision.ts), after the text.
      const imageIds = item.images?.flatMap((im) => imageUrlTokenIds(im.url));
      try {
        ve.add({
          id: item.id,
          promptTokens: item.promptTokens + (imageIds?.length ?? 0),
          outputTokens: out.tokens,
          finishReason: out.finishReason,
          // A session turn's prompt holds earlier turns and replies, and a trace's prompts share
          // hash blocks, as prompts of one prefix group do: hashed from their real tokens (and the
          // reply's), as the live engine does, so a later request finds them in the prefix cache.
          promptBlockHashes: imageIds
            ? sequenceBlockHashes([...tokenIds(text), ...imageIds], textSeed, out.tokens, ve.blockSize)
            : item.sessionId !== undefined ||
                item.class !== undefined ||
                config.workload.trace !== undefined ||
                config.workload.prefixGroups !== undefined
              ? sequenceBlockHashes(tokenIds(text), textSeed, out.tokens, ve.blockSize)
              : syntheticBlockHashes(
                  {
                    promptTokens: item.promptTokens,
                    ...(system ? { sharedPrefixTokens: system, prefixId: 1 } : {}),
                  },
                  item.index,
                  ve.blockSize,
                ),
          sink,
          ...(item.priority !== undefined ? { priority: item.priority } : {}),
        });
      } catch (e) {
        if (!(e instanceof EngineRejection)) throw e;
        finish({ kind: 'rejected', message: e.message });
        return;
      }
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      const after = item.cancelAfterMs;
      if (after !== undefined)
        cancelTimer = clock.at(sentMs + after, () => {
          ve.clientGone(item.id);
          finish({ kind: 'cancelled', afterMs: after });
        });
    });
  return { send, warmupTokens: () => warmupTokens };
}

/** The engine's speculative-decoding counters as the server block's figures (none without it). */
function specFigures(c: EngineCounters): Partial<ServerSummary> {
  if (c.specAcceptedByPosition.length === 0) return {};
  return specDecodeFigures({
    drafts: c.specDrafts,
    draftTokens: c.specDraftTokens,
    accepted: c.specAcceptedTokens,
    acceptedByPosition: c.specAcceptedByPosition,
  });
}

/** The transport of a virtual run: the engine's clock, the in-process send, the engine's counters as the server block. */
export function createVirtualTransport(
  config: BenchmarkConfig,
  profile: string | SimProfile,
): { clock: VirtualClock; send: SendFn; server: () => ServerSummary } {
  const clock = new VirtualClock();
  const engine = embeddedEngineOptions(config.sim);
  const ve = new VirtualEngine(clock, {
    profile: typeof profile === 'object' ? profile : resolveProfile(profile),
    seed: config.seed,
    ...(engine !== undefined ? { engine } : {}),
  });
  const sender = virtualSender(ve, config);
  const server = (): ServerSummary => {
    const c = ve.counters;
    const series = ve.gauges.stats();
    return {
      engine: 'goodput-sim',
      metricsUrl: 'virtual',
      samples: 0,
      // The engine's gauges over simulated time, where a live run scrapes them once a second.
      series,
      ...(series.kvFragmentation
        ? { kvFragmentation: series.kvFragmentation.mean, fragmentationSource: 'server' as const }
        : {}),
      preemptions: c.preemptions,
      prefixCacheHitRate: c.prefixCacheQueries > 0 ? c.prefixCacheHits / c.prefixCacheQueries : 0,
      generatedTokens: c.generationTokens - sender.warmupTokens(),
      wastedTokens: c.abandonedTokens,
      ...specFigures(c),
    };
  };
  return { clock, send: sender.send, server };
}
