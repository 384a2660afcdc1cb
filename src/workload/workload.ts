/**
 * The workload of a run: a lazy, deterministic sequence of WorkItems.
 *
 * `item(i)` depends only on the seed, the spec and i, never on the order of calls: every
 * random choice comes from its own stream, forked by purpose and index ("42/prompt/17",
 * "42/length/17", "42/cancel/17"), so changing one choice (say, the cancel rate) does not
 * shift the prompts or the arrivals. Open-loop arrival times are cumulative; they come from
 * an ArrivalSchedule, cheap for sequential access and exact for any order.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { LoadStage, ToolChoice, ToolDefinition, WorkItem, WorkloadSpec } from '../types.js';
import type { AgentTrace } from './agent-trace.js';
import { type AgentSource, createAgentSource } from './agents.js';
import { ArrivalSchedule, warmupArrivalsOf } from './arrivals.js';
import type { ClassInputs } from './class-spec.js';
import { createClassWorkload } from './classes.js';
import type { Dataset, DatasetEntry } from './dataset.js';
import type { ImageFolder } from './image-folder.js';
import { type ImageSource, imageSource } from './images.js';
import { drawLength, type LengthDist, lengthDistSpec, meanLength } from './length-dist.js';
import { PrefixGroups } from './prefix-groups.js';
import type { PromptFrame } from './prompt-frame.js';
import {
  datasetPrompts,
  type FillPrompt,
  promptBuilder,
  replayPrompts,
  syntheticPromptFrame,
  syntheticPrompts,
} from './request-prompts.js';
import { createRng, type Rng } from './rng.js';
import { createSessionSource, type SessionScript, type SessionSource } from './sessions.js';
import { StagedArrivals } from './stages.js';
import { syntheticPrompt } from './synthetic.js';
import { createTokenizer, type Tokenizer } from './tokenizer.js';
import { type TraceReplay, type TraceReplayOptions, traceReplay } from './trace/replay.js';
import { checkWorkloadOptions, usage } from './workload-checks.js';

export interface WorkloadOptions {
  /** Seed of every random choice. */
  seed: number;
  /**
   * The first `warmup` items are warmup: never cancelled; scheduled only in an open loop at a
   * steady rate, before the measured start (negative scheduledMs: arrivals.ts WarmupArrivals).
   */
  warmup: number;
  /** Measured requests, when the run is bounded by count (`total` = warmup + requests). */
  requests?: number;
  /** Open loop: requests per second (Infinity = all at once). Undefined = closed loop (no scheduledMs). */
  rate?: number;
  /** Gamma shape of inter-arrival gaps; 1 (default) = Poisson. */
  burstiness?: number;
  /** Overrides spec.cancelRate. */
  cancelRate?: number;
  /** Overrides spec.cancelAfterMs. */
  cancelAfterMs?: number;
  /** Required when spec.kind is 'dataset': a loaded Dataset (its path, format, sha256 are recorded) or bare entries. */
  dataset?: Dataset | DatasetEntry[];
  /** Defaults to createTokenizer(spec.tokenizer). */
  tokenizer?: Tokenizer;
  /**
   * Dataset only: take each entry's output length (its max_tokens, or the ShareGPT reply's
   * token count) instead of spec.maxTokens. Default true; pass false when --max-tokens was given.
   */
  outputFromDataset?: boolean;
  /** Dataset only: visit entries in a seeded random order (default true), else in file order. */
  shuffle?: boolean;
  /**
   * Required when spec.kind is 'trace': the trace and how to replay it. Measured request k is
   * entry k at its trace time (this replaces `rate`); outputs take the trace's lengths unless
   * `outputFromDataset` is false.
   */
  trace?: TraceReplayOptions;
  /** Open loop shaped by stages (`--stages … --stages-of rate`): their targets are rates; replaces `rate`. */
  stages?: readonly LoadStage[];
  /** Hears what the user should know while the workload is used (sessions: turn-count.ts). */
  note?: (text: string) => void;
  /**
   * Length distributions (length-dist.ts): `prompt` replaces spec.promptTokens and its range
   * (synthetic), `output` replaces spec.maxTokens and a dataset's own lengths. Recorded in the
   * spec as promptTokensDist / maxTokensDist. Not with sessions or a trace.
   */
  lengths?: { prompt?: LengthDist; output?: LengthDist };
  /** Agent runs (spec.agents): the tool latency (ms) and tool-result length distributions. */
  agents?: {
    toolLatency: LengthDist;
    toolResultTokens: LengthDist;
    tools?: ToolDefinition[];
    /** `--agent-trace`: the recorded runs to replay. */
    trace?: AgentTrace;
  };
  /** spec.tools: the functions every single request offers (with spec.tools.choice). */
  tools?: readonly ToolDefinition[];
  /** Required when spec.images.folder is set: the folder's images, read (image-folder.ts). */
  imageFolder?: ImageFolder;
  /**
   * Traffic classes in a closed loop: the run's users (`--concurrency`, `--sessions`), of which
   * each class has its share (classes.ts). Absent: a share is of the requests or sessions.
   */
  users?: number;
  /** Traffic classes: what each class (by index in spec.classes) names in a file, read (class-spec.ts). */
  classInputs?: readonly (ClassInputs | undefined)[];
}

export interface Workload {
  /** The spec as run: tokenizer, dataset identity and cancel settings filled in. */
  readonly spec: WorkloadSpec;
  /** warmup + requests when the run is bounded by count; undefined otherwise (items are endless). */
  readonly total: number | undefined;
  /**
   * The i-th request (0-based, warmup included). With sessions: warmup items are the first
   * turns of warmup sessions, and the runner asks `sessions` for the measured turns. With
   * traffic classes, `cls` asks for the item as a request of that class (a closed loop's user's).
   */
  item(i: number, cls?: number): WorkItem;
  /** Traffic classes in a closed loop: the class (index in spec.classes) of the run's user at `position`. */
  readonly userClass?: (position: number) => number;
  /** Multi-turn sessions (spec.sessions): the conversations the runner replays turn by turn. */
  readonly sessions?: SessionSource;
  /** Agent runs (spec.agents): what each run sends (agents.ts); the runner runs the loop. */
  readonly agents?: AgentSource;
}

/** "r-000001" for index 0. */
export function requestId(index: number): string {
  return `r-${String(index + 1).padStart(6, '0')}`;
}

/** Sessions whose every turn offers the run's tools (`--tools`): a reply that calls one is carried on as its text. */
function withTools(
  source: SessionSource,
  tools: { tools: readonly ToolDefinition[]; choice: ToolChoice | undefined } | undefined,
): SessionSource {
  if (!tools) return source;
  const offer = (item: WorkItem): WorkItem => {
    item.tools = tools.tools;
    if (tools.choice !== undefined) item.toolChoice = tools.choice;
    return item;
  };
  const script = (s: SessionScript): SessionScript => ({
    ...s,
    request: (t, replies, i, warmup) => offer(s.request(t, replies, i, warmup)),
  });
  return {
    ...source,
    session: (s) => script(source.session(s)),
    warmup: (w) => script(source.warmup(w)),
  };
}

/** Seeded Fisher–Yates permutation of 0..n-1. */
function permutation(n: number, rng: Rng): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}

/** The entries of options.dataset, refused when a dataset run has none or a single-request run has a trace's turns. */
function datasetEntries(spec: WorkloadSpec, dataset: WorkloadOptions['dataset']): DatasetEntry[] | undefined {
  const entries = dataset === undefined ? undefined : Array.isArray(dataset) ? dataset : dataset.entries;
  if (spec.kind === 'dataset' && (entries === undefined || entries.length === 0)) {
    throw new GoodputError(
      'E_DATASET',
      'the dataset has no prompts',
      'pass a --dataset file with at least one prompt',
    );
  }

  if (spec.kind === 'dataset' && spec.sessions === undefined) {
    const trace = entries!.find((e) => e.prompt === undefined && e.messages === undefined);
    if (trace) {
      throw new GoodputError(
        'E_DATASET',
        `${trace.conversation?.source ?? 'the dataset'}: a conversation trace (turns of token counts) has no prompt to send alone`,
        'replay it as multi-turn sessions: add --sessions N (or --session-rate R)',
      );
    }
  }
  return entries;
}

/** What the spec as run records beside the spec as given. */
interface SpecAsRun {
  tokenizer: Tokenizer;
  cancelRate: number | undefined;
  cancelAfterMs: number | undefined;
  dataset: WorkloadOptions['dataset'];
  entries: readonly DatasetEntry[] | undefined;
  replay: TraceReplay | undefined;
  lengths: WorkloadOptions['lengths'];
  images: ImageSource | undefined;
}

/** The spec as run (Workload.spec): the tokenizer, cancel settings, dataset, trace, length distributions and images filled in. */
function specAsRun(spec: WorkloadSpec, run: SpecAsRun): WorkloadSpec {
  const { tokenizer, cancelRate, cancelAfterMs, dataset, entries, replay, images } = run;
  const resolved: WorkloadSpec = { ...spec, tokenizer: tokenizer.name };
  if (tokenizer.file) resolved.tokenizerFile = { ...tokenizer.file };
  if (cancelRate !== undefined) resolved.cancelRate = cancelRate;
  if (cancelAfterMs !== undefined) resolved.cancelAfterMs = cancelAfterMs;
  if (dataset !== undefined && !Array.isArray(dataset)) {
    resolved.dataset = {
      path: dataset.path,
      format: dataset.format,
      sha256: dataset.sha256,
      entries: entries!.length,
    };
  }
  if (replay) resolved.trace = replay.spec;
  const promptDist = run.lengths?.prompt;
  const outputDist = run.lengths?.output;
  if (promptDist) {
    resolved.promptTokensDist = lengthDistSpec(promptDist);
    resolved.promptTokens = Math.max(1, Math.round(meanLength(promptDist)));
  }
  if (outputDist) {
    resolved.maxTokensDist = lengthDistSpec(outputDist);
    resolved.maxTokens = Math.max(1, Math.round(meanLength(outputDist)));
    delete resolved.maxTokensFrom;
  }
  if (images) resolved.images = images.spec;
  return resolved;
}

/** The open loop's arrival times: shaped by stages, or at a steady rate; undefined for a closed loop. */
function arrivalsOf(options: WorkloadOptions, root: Rng): ArrivalSchedule | StagedArrivals | undefined {
  return options.stages
    ? new StagedArrivals(options.stages, options.burstiness ?? 1, root.fork('arrivals'))
    : options.rate === undefined
      ? undefined
      : new ArrivalSchedule(options.rate, options.burstiness ?? 1, root.fork('arrivals'));
}

/** What a workload's sessions and agent runs are built from, beside the spec and options. */
interface ConversationInputs {
  tokenizer: Tokenizer;
  root: Rng;
  systemText: string;
  systemTokens: number;
  entries: DatasetEntry[] | undefined;
  order: Uint32Array | undefined;
  schedule: ArrivalSchedule | StagedArrivals | undefined;
  frame: PromptFrame | undefined;
}

/** spec.sessions: the conversations the runner replays turn by turn, each turn offering the run's tools. */
function sessionsOf(spec: WorkloadSpec, options: WorkloadOptions, inputs: ConversationInputs): SessionSource {
  const { tokenizer, root, systemText, systemTokens, entries, order, schedule, frame } = inputs;
  return withTools(
    createSessionSource({
      spec,
      sessions: spec.sessions!,
      tokenizer,
      root,
      systemText,
      systemTokens,
      ...(entries ? { entries } : {}),
      ...(order ? { order } : {}),
      outputFromDataset: options.outputFromDataset !== false,
      ...(schedule ? { arrivals: schedule } : {}),
      ...(frame ? { frame } : {}),
      ...(options.note ? { note: options.note } : {}),
    }),
    options.tools && spec.tools ? { tools: options.tools, choice: spec.tools.choice } : undefined,
  );
}

/** spec.agents with options.agents: what each agent run sends; undefined otherwise. */
function agentsOf(
  spec: WorkloadSpec,
  options: WorkloadOptions,
  inputs: ConversationInputs,
): AgentSource | undefined {
  return spec.agents && options.agents
    ? createAgentSource({
        spec: spec.agents,
        ...options.agents,
        taskTokens: spec.promptTokens ?? 256,
        maxTokens: spec.maxTokens,
        tokenizer: inputs.tokenizer,
        root: inputs.root,
        systemText: inputs.systemText,
      })
    : undefined;
}

/** What `item(i)` is made of once the workload is set up. */
interface ItemInputs {
  spec: WorkloadSpec;
  options: WorkloadOptions;
  root: Rng;
  sessions: SessionSource | undefined;
  /** The prompt of a single request, by kind of workload (request-prompts.ts). */
  fill: FillPrompt;
  schedule: ArrivalSchedule | StagedArrivals | undefined;
  /** A measured request's cancel delay (ms), when it is one of the cancelled. */
  cancelOf: (i: number) => number | undefined;
  outputDist: LengthDist | undefined;
  images: ImageSource | undefined;
}

/** Workload.item: a session's first turn, or a single request with its prompt, lengths, images, tools, time and cancel. */
function itemMaker(inputs: ItemInputs): (i: number) => WorkItem {
  const { spec, options, sessions, fill, schedule, cancelOf, outputDist, images } = inputs;
  const warmup = options.warmup;
  const outputStreams = inputs.root.fork('output-length');
  const warmupSchedule = schedule ? warmupArrivalsOf(options, inputs.root) : undefined;
  return (i) => {
    if (!Number.isInteger(i) || i < 0)
      throw new RangeError(`workload item index must be an integer ≥ 0, got ${i}`);
    const isWarmup = i < warmup;
    if (sessions) {
      const first = (isWarmup ? sessions.warmup(i) : sessions.session(i - warmup)).request(
        0,
        [],
        i,
        isWarmup,
      );
      const cancelAfterMs = isWarmup ? undefined : cancelOf(i);
      if (cancelAfterMs !== undefined) first.cancelAfterMs = cancelAfterMs;
      return first;
    }
    const workItem: WorkItem = {
      index: i,
      id: requestId(i),
      warmup: isWarmup,
      promptTokens: 0,
      maxTokens: spec.maxTokens,
    };
    fill(i, workItem);
    if (outputDist) workItem.maxTokens = drawLength(outputDist, outputStreams.fork(i));
    if (images) workItem.images = images.imagesOf(i);
    if (options.tools && spec.tools) {
      workItem.tools = options.tools;
      if (spec.tools.choice !== undefined) workItem.toolChoice = spec.tools.choice;
    }
    if (schedule && !isWarmup) workItem.scheduledMs = schedule.offsetAt(i - warmup);
    else if (isWarmup && warmupSchedule) workItem.scheduledMs = warmupSchedule.offsetAt(i);
    const cancelAfterMs = isWarmup ? undefined : cancelOf(i);
    if (cancelAfterMs !== undefined) workItem.cancelAfterMs = cancelAfterMs;
    return workItem;
  };
}

/**
 * Creates the workload. Synthetic prompts have exactly spec.promptTokens tokens (spread by
 * promptTokensRange), after a shared system prompt of spec.systemPromptTokens tokens (the
 * same text for every request); datasets are cycled through in a seeded order.
 *
 * @example
 * const wl = createWorkload(
 *   { kind: 'synthetic', api: 'chat', promptTokens: 512, maxTokens: 128, tokenizer: 'o200k_base' },
 *   { seed: 42, warmup: 2, requests: 100, rate: 5 },
 * );
 * wl.item(2); // { id: 'r-000003', warmup: false, messages: [...], promptTokens: 512, scheduledMs: 0, ... }
 */
export function createWorkload(spec: WorkloadSpec, options: WorkloadOptions): Workload {
  if (spec.classes && spec.classes.length > 0) return createClassWorkload(spec, options, createWorkload);
  const cancelRate = options.cancelRate ?? spec.cancelRate;
  const cancelAfterMs = options.cancelAfterMs ?? spec.cancelAfterMs;
  checkWorkloadOptions(spec, options, cancelRate);
  const tokenizer = options.tokenizer ?? createTokenizer(spec.tokenizer);
  const root = createRng(options.seed);
  const warmup = options.warmup;
  const entries = datasetEntries(spec, options.dataset);
  const replay =
    spec.kind === 'trace'
      ? traceReplay(
          options.trace ??
            (() => {
              throw usage('a trace workload needs a trace', 'pass --trace FILE');
            })(),
          tokenizer,
          options.seed,
        )
      : undefined;
  const images = spec.images ? imageSource(spec.images, root.fork('image'), options.imageFolder) : undefined;
  const resolved = specAsRun(spec, {
    tokenizer,
    cancelRate,
    cancelAfterMs,
    dataset: options.dataset,
    entries,
    replay,
    lengths: options.lengths,
    images,
  });
  const prefixGroups = spec.prefixGroups
    ? new PrefixGroups(spec.prefixGroups, root.fork('prefix-group'))
    : undefined;

  const systemTokens = spec.systemPromptTokens ?? 0;
  const systemText = systemTokens > 0 ? syntheticPrompt(systemTokens, root.fork('system'), tokenizer) : '';
  const schedule = replay ? undefined : arrivalsOf(options, root);
  const cancels = cancelRate !== undefined && cancelRate > 0 && cancelAfterMs !== undefined;
  const cancelStreams = root.fork('cancel');
  const cancelOf = (i: number) =>
    cancels && cancelStreams.fork(i).next() < cancelRate! ? cancelAfterMs! : undefined;

  const order =
    spec.kind === 'dataset' && options.shuffle !== false
      ? permutation(entries!.length, root.fork('order'))
      : undefined;
  const build = promptBuilder(spec.api);
  const toRequest = (user: string, item: WorkItem): void => {
    Object.assign(item, build(systemText, user));
  };
  const promptDist = options.lengths?.prompt;
  const frame =
    spec.kind === 'synthetic'
      ? syntheticPromptFrame(spec, tokenizer, build, { text: systemText, tokens: systemTokens }, promptDist)
      : undefined;
  const outputFromDataset = options.outputFromDataset !== false;
  const fill = replay
    ? replayPrompts(replay, { seed: options.seed, warmup, outputFromDataset }, toRequest)
    : spec.kind === 'dataset'
      ? datasetPrompts({
          api: spec.api,
          tokenizer,
          entries: entries!,
          order,
          systemText,
          outputFromDataset,
          toRequest,
        })
      : syntheticPrompts({ spec, tokenizer, root, systemTokens, frame, prefixGroups, promptDist, toRequest });

  const conversation = { tokenizer, root, systemText, systemTokens, entries, order, schedule, frame };
  const sessions = spec.sessions === undefined ? undefined : sessionsOf(spec, options, conversation);
  const agents = agentsOf(spec, options, conversation);
  const outputDist = options.lengths?.output;
  const item = itemMaker({ spec, options, root, sessions, fill, schedule, cancelOf, outputDist, images });
  const measured = replay ? Math.min(options.requests ?? replay.count, replay.count) : options.requests;
  return {
    spec: resolved,
    total: measured === undefined ? undefined : warmup + measured,
    item,
    ...(sessions ? { sessions } : {}),
    ...(agents ? { agents } : {}),
  };
}
