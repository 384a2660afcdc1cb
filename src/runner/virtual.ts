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
  type EngineRequestInput,
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
  withoutBaseAdapter,
} from '../sim/index.js';
import type { RequestRecord, ServerSummary, WorkItem } from '../types.js';
import type { BenchmarkConfig } from './config.js';
import type { SendFn } from './load.js';
import { embeddedEngineOptions } from './target.js';
import { type VirtualEnd, virtualRecord } from './virtual-record.js';
import { toolReplyText, virtualToolCall, withToolCall } from './virtual-tools.js';

/** The live engine's mean output length when ignore_eos is off (its default). */
const MEAN_OUTPUT_TOKENS = 200;

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
function virtualSender(ve: VirtualEngine, config: BenchmarkConfig, served: ServedModels): VirtualSender {
  const mode = reasoningModeOf(config);
  let warmupTokens = 0;
  const send: SendFn = (item, { scheduledMs, signal, onReply }) =>
    new Promise<RequestRecord>((resolve) => {
      const prompt = promptOf(item, config);
      const lora = item.model !== undefined && served.adapters.has(item.model) ? item.model : undefined;
      const out = drawOutput(config, mode, prompt.key, item.maxTokens);
      const tool = virtualToolCall(config, item, prompt.key, prompt.seed);
      const request = new VirtualRequest(ve.clock, scheduledMs, (times, end) => {
        const n = times.tokenMs.length;
        const reasoned = out.reasoning ?? 0;
        // A session turn's reply: the live engine's text for this prompt, as the client would have received it.
        onReply?.(
          tool ? toolReplyText(config.api, tool, prompt.seed, reasoned, n) : replyText(prompt.seed, n),
        );
        const record = virtualRecord(item, times, end, out.reasoning);
        resolve(withToolCall(record, item, config.api, !!tool && n > reasoned));
      });
      const sink = request.sink((generated) => {
        if (item.warmup) warmupTokens += generated;
      });
      if (item.model !== undefined && item.model !== served.base && lora === undefined) {
        // The live engine's 404, before the request reaches the engine.
        request.finish({
          kind: 'rejected',
          message: `The model \`${item.model}\` does not exist.`,
          httpStatus: 404,
        });
        return;
      }
      try {
        ve.add({ ...engineRequest(ve, config, item, prompt, out, sink), ...(lora ? { lora } : {}) });
      } catch (e) {
        if (!(e instanceof EngineRejection)) throw e;
        request.finish({ kind: 'rejected', message: e.message });
        return;
      }
      watchClient(ve, item, signal, request);
    });
  return { send, warmupTokens: () => warmupTokens };
}

/** What the engine serves: the base model's name and its LoRA adapters (sim/lora.ts). */
interface ServedModels {
  base: string;
  adapters: ReadonlySet<string>;
}

/** A request's prompt as the live engine sees it: its text, the key its output is drawn by, and that key's seed. */
interface VirtualPrompt {
  text: string;
  key: string;
  seed: number;
}

function promptOf(item: WorkItem, config: BenchmarkConfig): VirtualPrompt {
  const text = item.messages ? chatPromptText(item.messages) : (item.prompt ?? '');
  const key = `${text}\u0000${String(config.sampling.seed ?? '')}`;
  return { text, key, seed: hashString(key, config.seed) };
}

/** What the engine is given for a request: its prompt (images included), its drawn output and its sink. */
function engineRequest(
  ve: VirtualEngine,
  config: BenchmarkConfig,
  item: WorkItem,
  prompt: VirtualPrompt,
  out: { tokens: number; finishReason: 'stop' | 'length' },
  sink: RequestSink,
): EngineRequestInput {
  // Images cost the tokens the live engine charges for them (sim/vision.ts), after the text.
  const imageIds = item.images?.flatMap((im) => imageUrlTokenIds(im.url));
  return {
    id: item.id,
    promptTokens: item.promptTokens + (imageIds?.length ?? 0),
    outputTokens: out.tokens,
    finishReason: out.finishReason,
    promptBlockHashes: promptBlockHashes(ve, config, item, prompt, out.tokens, imageIds),
    sink,
    ...(item.priority !== undefined ? { priority: item.priority } : {}),
  };
}

/**
 * The prefix-cache blocks of a request's prompt. A session turn's prompt holds earlier turns and
 * replies, and a trace's prompts share hash blocks, as prompts of one prefix group do: hashed
 * from their real tokens (and the reply's), as the live engine does, so a later request finds
 * them in the prefix cache; so are a traffic class's (its own system prompt). Other synthetic
 * prompts share only the system prompt.
 */
function promptBlockHashes(
  ve: VirtualEngine,
  config: BenchmarkConfig,
  item: WorkItem,
  prompt: VirtualPrompt,
  outputTokens: number,
  imageIds: number[] | undefined,
): EngineRequestInput['promptBlockHashes'] {
  if (imageIds)
    return sequenceBlockHashes(
      [...tokenIds(prompt.text), ...imageIds],
      prompt.seed,
      outputTokens,
      ve.blockSize,
    );
  const { workload } = config;
  if (
    item.sessionId !== undefined ||
    item.class !== undefined ||
    workload.trace !== undefined ||
    workload.prefixGroups !== undefined
  )
    return sequenceBlockHashes(tokenIds(prompt.text), prompt.seed, outputTokens, ve.blockSize);
  const system = workload.systemPromptTokens;
  return syntheticBlockHashes(
    { promptTokens: item.promptTokens, ...(system ? { sharedPrefixTokens: system, prefixId: 1 } : {}) },
    item.index,
    ve.blockSize,
  );
}

/**
 * The client's side going away while the engine works: the run's stop (deadline, Ctrl-C) and the
 * simulated user's cancel (`cancelAfterMs`) end the request and tell the engine.
 */
function watchClient(ve: VirtualEngine, item: WorkItem, signal: AbortSignal, request: VirtualRequest): void {
  const onAbort = (): void => {
    ve.clientGone(item.id);
    const reason: unknown = signal.reason;
    request.finish({
      kind: 'interrupted',
      message: reason instanceof Error ? reason.message : 'run stopped',
    });
  };
  if (signal.aborted) {
    onAbort();
    return;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  request.onEnd(() => signal.removeEventListener('abort', onAbort));
  const after = item.cancelAfterMs;
  if (after !== undefined)
    request.onEnd(
      ve.clock.at(request.sentMs + after, () => {
        ve.clientGone(item.id);
        request.finish({ kind: 'cancelled', afterMs: after });
      }),
    );
}

/** A virtual request's times as its record takes them. */
type VirtualTimes = Parameters<typeof virtualRecord>[1];

/** One request in the engine as its client sees it: the token times as they arrive, and one end. */
class VirtualRequest {
  readonly sentMs: number;
  private readonly tokenMs: number[] = [];
  private readonly stepTokens: number[] = [];
  private done = false;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    private readonly clock: VirtualClock,
    private readonly scheduledMs: number,
    private readonly ended: (times: VirtualTimes, end: VirtualEnd) => void,
  ) {
    this.sentMs = clock.now();
  }

  /** The engine's sink for it; `finished` hears the tokens the engine generated. */
  sink(finished: (generated: number) => void): RequestSink {
    return {
      onToken: (_req, tMs, count) => {
        if (this.done) return;
        this.stepTokens.push(count);
        for (let i = 0; i < count; i++) this.tokenMs.push(tMs);
      },
      onFinish: (req) => {
        finished(req.generated);
        this.finish({ kind: 'finished', finishReason: req.finishedAs ?? 'stop' });
      },
    };
  }

  /** Runs when the request ends (a timer to cancel, a listener to remove). */
  onEnd(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  /** Ends the request the first time only. */
  finish(end: VirtualEnd): void {
    if (this.done) return;
    this.done = true;
    for (const cleanup of this.cleanups) cleanup();
    const { scheduledMs, sentMs, tokenMs, stepTokens } = this;
    this.ended({ scheduledMs, sentMs, endMs: this.clock.now(), tokenMs, stepTokens }, end);
  }
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
  const resolved = typeof profile === 'object' ? profile : resolveProfile(profile);
  const base = config.model ?? resolved.model.servedName;
  const engine = withoutBaseAdapter(embeddedEngineOptions(config.sim), base);
  const ve = new VirtualEngine(clock, {
    profile: resolved,
    seed: config.seed,
    ...(engine !== undefined ? { engine } : {}),
  });
  const sender = virtualSender(ve, config, { base, adapters: new Set(ve.engine.config.loraModules) });
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
