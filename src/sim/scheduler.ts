/**
 * The engine: a step-driven continuous-batching scheduler over a paged KV cache.
 *
 * Each step is planned (`plan`), takes the roofline's time, then is committed (`commit`),
 * which advances every scheduled sequence and samples a token for those whose known tokens
 * are all computed. Two policies, as in vLLM:
 * - chunked prefill on (V1): running sequences first (decodes and unfinished prefills), then
 *   waiting ones, all under one token budget; a long prompt is split across steps;
 * - chunked prefill off (V0): when requests wait and whole prompts fit the budget, the step is
 *   prefill-only (running decodes stall); otherwise a decode-only step.
 * When a running sequence needs a block and none is free, the most recently admitted running
 * sequence is preempted (blocks freed, recomputed later from the front of the queue).
 * With `--scheduling-policy priority` (vLLM V1's), the queue is ordered by each request's
 * `priority` (lower first), then arrival, and the preempted one is the running request of the
 * lowest priority (highest value, latest arrival); under 'fcfs' a non-zero priority is refused,
 * as vLLM refuses it.
 * With LoRA adapters (lora.ts), at most max-loras distinct adapters run at once: a waiting
 * request whose adapter would be one more is skipped (those behind it may go), and a step
 * costs its adapters' weights, their tokens and the adapters it loads into a GPU slot.
 * With speculative decoding (spec-decode.ts), a sequence in decode verifies its last token and
 * k drafts in one step and emits the accepted ones plus one.
 * The engine knows no clock: callers pass times in, so it runs live or in virtual time.
 *
 * @module
 */

import type { EngineConfig } from './engine-config.js';
import { KvCache } from './kv-cache.js';
import { createLoraCost, type LoraCost, LoraSlots } from './lora.js';
import type { SimProfile } from './profiles.js';
import type { EngineRequest, EngineRequestInput, FinishReason } from './request.js';
import { emptyCounters } from './request.js';
import { createSimRng, type SimRng } from './rng.js';
import { createRoofline, type Roofline, type StepCost } from './roofline.js';
import { acceptChain, createDraftCost, type DraftCost } from './spec-decode.js';

export interface StepEntry {
  req: EngineRequest;
  /** Tokens computed this step (draft tokens included). */
  newTokens: number;
  contextTokens: number;
  /** Speculative decoding: draft tokens verified after the last token (0 without). */
  draftTokens: number;
}

/** A planned step: who computes how many tokens, and how long it takes. */
export interface StepPlan {
  entries: StepEntry[];
  cost: StepCost;
  /** cost.totalMs × slowdown. */
  durationMs: number;
  prefillOnly: boolean;
}

/** Observers of the engine (metrics). */
export interface EngineListener {
  /** Once per step that emitted tokens for `req` (`count` of them); gapMs since its previous emission. */
  onToken?(req: EngineRequest, tMs: number, gapMs: number | undefined, count: number): void;
  onFinish?(req: EngineRequest, tMs: number): void;
}

/** A request the engine refuses (vLLM answers 400). */
export class EngineRejection extends Error {
  override name = 'EngineRejection';
}

/** The priority policy's order: lower priority value first, then earlier arrival (then admission order). */
function servedBefore(a: EngineRequest, b: EngineRequest): boolean {
  const pa = a.priority ?? 0;
  const pb = b.priority ?? 0;
  if (pa !== pb) return pa < pb;
  if (a.arrivalMs !== b.arrivalMs) return a.arrivalMs < b.arrivalMs;
  return a.seq < b.seq;
}

export class Engine {
  readonly config: EngineConfig;
  readonly profile: SimProfile;
  readonly kv: KvCache;
  readonly roofline: Roofline;
  readonly counters = emptyCounters();
  readonly listeners: EngineListener[] = [];
  /** Multiplies every step's time (1 = the roofline; 3 = three times slower). */
  slowdown = 1;
  private waiting: EngineRequest[] = [];
  private running: EngineRequest[] = [];
  private readonly byId = new Map<string, EngineRequest>();
  private seq = 0;
  /** Speculative decoding: draws of the acceptance chain, and the drafter's time per step. */
  private readonly rng: SimRng;
  private readonly draftCost: DraftCost | undefined;
  /** LoRA adapters: the GPU slots and the cost of a step's adapters (absent without adapters). */
  private readonly lora: { slots: LoraSlots; cost: LoraCost } | undefined;

  /** `seed` seeds the acceptance draws of speculative decoding (nothing else is random here). */
  constructor(profile: SimProfile, config: EngineConfig, seed = 0) {
    this.profile = profile;
    this.config = config;
    this.kv = new KvCache(config.numGpuBlocks, config.blockSize);
    this.roofline = createRoofline(profile);
    this.rng = createSimRng(seed ^ 0x5bec);
    if (config.loraModules.length > 0)
      this.lora = {
        slots: new LoraSlots(config.maxLoras),
        cost: createLoraCost(profile, config.maxLoraRank),
      };
    if (config.speculative) {
      this.draftCost = createDraftCost(profile, config.speculative);
      this.counters.specAcceptedByPosition = new Array<number>(config.speculative.numSpeculativeTokens).fill(
        0,
      );
    }
  }

  get numRunning(): number {
    return this.running.length;
  }
  get numWaiting(): number {
    return this.waiting.length;
  }
  hasWork(): boolean {
    return this.running.length > 0 || this.waiting.length > 0;
  }
  get(id: string): EngineRequest | undefined {
    return this.byId.get(id);
  }

  /** The adapters of the running and of the waiting requests (vLLM's lora_requests_info labels). */
  loraUsage(): { running: string[]; waiting: string[] } {
    const of = (list: readonly EngineRequest[]) => [
      ...new Set(list.flatMap((r) => (r.lora === undefined ? [] : [r.lora]))),
    ];
    return { running: of(this.running), waiting: of(this.waiting) };
  }

  /**
   * Why a request of this size can never run (too long for the context or the cache), or with
   * this priority (a non-zero one without the priority policy, refused as vLLM refuses it), or undefined.
   */
  check(promptTokens: number, outputTokens: number, priority = 0): string | undefined {
    const {
      maxModelLen,
      maxNumBatchedTokens,
      enableChunkedPrefill,
      blockSize,
      numGpuBlocks,
      watermarkBlocks,
    } = this.config;
    const total = promptTokens + outputTokens;
    if (priority !== 0 && this.config.schedulingPolicy !== 'priority')
      return `Got priority ${priority} but Priority scheduling is not enabled.`;
    if (promptTokens < 1) return 'the prompt is empty';
    if (outputTokens < 1) return 'max_tokens must be at least 1';
    if (total > maxModelLen)
      return `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${total} tokens (${promptTokens} in the messages, ${outputTokens} in the completion). Please reduce the length of the messages or completion.`;
    if (!enableChunkedPrefill && promptTokens > maxNumBatchedTokens)
      return `the prompt (${promptTokens} tokens) exceeds max-num-batched-tokens (${maxNumBatchedTokens}) with chunked prefill off`;
    if (Math.ceil(total / blockSize) > numGpuBlocks - watermarkBlocks)
      return `the request needs ${Math.ceil(total / blockSize)} KV blocks, more than the cache holds (${numGpuBlocks})`;
    return undefined;
  }

  /** Queue a request; throws EngineRejection when it can never run (see check). */
  add(input: EngineRequestInput, nowMs: number): EngineRequest {
    const priority = input.priority ?? 0;
    const why = this.check(input.promptTokens, input.outputTokens, priority);
    if (why) {
      this.counters.rejected++;
      throw new EngineRejection(why);
    }
    // Built field by field (no spread) so every request shares one hidden class: the step loop is hot.
    const req: EngineRequest = {
      id: input.id,
      promptTokens: input.promptTokens,
      promptBlockHashes: input.promptBlockHashes,
      outputTokens: input.outputTokens,
      finishReason: input.finishReason,
      sink: input.sink,
      priority,
      lora: input.lora,
      seq: this.seq++,
      arrivalMs: nowMs,
      status: 'waiting',
      computed: 0,
      generated: 0,
      blocks: [],
      registeredBlocks: 0,
      firstScheduledMs: undefined,
      firstTokenMs: undefined,
      lastTokenMs: undefined,
      finishedMs: undefined,
      finishedAs: undefined,
      preemptions: 0,
      cachedPromptTokens: 0,
      detached: false,
    };
    this.byId.set(req.id, req);
    this.enqueue(req);
    return req;
  }

  /** Into the waiting queue: at the back (fcfs), or by priority, then arrival (priority). */
  private enqueue(req: EngineRequest): void {
    if (this.config.schedulingPolicy !== 'priority') {
      this.waiting.push(req);
      return;
    }
    let lo = 0;
    let hi = this.waiting.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (servedBefore(this.waiting[mid]!, req)) lo = mid + 1;
      else hi = mid;
    }
    this.waiting.splice(lo, 0, req);
  }

  /** The running request preempted when blocks run out: the newest (fcfs), or the lowest priority's latest. */
  private victim(): EngineRequest {
    const running = this.running;
    let victim = running[running.length - 1]!;
    if (this.config.schedulingPolicy === 'priority')
      for (const r of running) if (servedBefore(victim, r)) victim = r;
    return victim;
  }

  /** The client went away: abort (default) or keep generating as wasted work (--no-abort-on-disconnect). */
  clientGone(id: string, nowMs: number): void {
    const req = this.byId.get(id);
    if (!req) return;
    if (this.config.abortOnDisconnect) this.abort(id, nowMs);
    else req.detached = true;
  }

  /** Remove a request now and free its blocks. Returns false if it is unknown or already finished. */
  abort(id: string, nowMs: number): boolean {
    const req = this.byId.get(id);
    if (!req) return false;
    const list = req.status === 'waiting' ? this.waiting : this.running;
    const i = list.indexOf(req);
    if (i >= 0) list.splice(i, 1);
    this.finish(req, 'abort', nowMs);
    return true;
  }

  /** Decide the next step, allocating blocks (and preempting) as needed; null when idle. */
  plan(nowMs: number): StepPlan | null {
    if (!this.hasWork()) return null;
    const entries: StepEntry[] = [];
    let budget = this.config.maxNumBatchedTokens;
    if (!this.config.enableChunkedPrefill && this.waiting.length > 0) {
      this.admit(entries, budget, true, nowMs);
      if (entries.length > 0) return this.toPlan(entries, true);
    }
    const preemptionsBefore = this.counters.preemptions;
    budget = this.scheduleRunning(entries, budget);
    if (this.config.enableChunkedPrefill && this.counters.preemptions === preemptionsBefore && budget > 0)
      this.admit(entries, budget, false, nowMs);
    return entries.length > 0 ? this.toPlan(entries, false) : null;
  }

  /** Apply a planned step that ended at `endMs`: advance sequences, sample tokens, finish requests. */
  commit(plan: StepPlan, endMs: number): void {
    const bs = this.config.blockSize;
    this.counters.steps++;
    this.counters.busyMs += plan.durationMs;
    let anyFinished = false;
    for (const { req, newTokens, draftTokens } of plan.entries) {
      if (req.status !== 'running') continue;
      const before = req.computed;
      const known = req.promptTokens + req.generated;
      // Tokens emitted this step: 1, or with drafts the accepted ones plus one (never past the length).
      let emit = 1;
      if (draftTokens > 0) {
        const accepted = this.verify(draftTokens);
        emit = Math.min(accepted + 1, req.outputTokens - req.generated);
        // The KV cache keeps the last token and the accepted drafts; rejected slots are recomputed.
        req.computed += emit;
      } else req.computed += newTokens;
      if (!(req.generated > 0 && before === known - 1)) this.counters.computedPrefillTokens += newTokens;
      for (let b = Math.floor(before / bs); b * bs < req.computed; b++)
        this.kv.setFill(req.blocks[b]!, Math.min(bs, req.computed - b * bs));
      const hashes = req.promptBlockHashes;
      if (hashes && this.config.enablePrefixCaching)
        while (req.registeredBlocks < hashes.length && (req.registeredBlocks + 1) * bs <= req.computed) {
          this.kv.register(req.blocks[req.registeredBlocks]!, hashes[req.registeredBlocks]!);
          req.registeredBlocks++;
        }
      if (req.computed < known) continue;
      req.generated += emit;
      this.counters.generationTokens += emit;
      if (req.detached) this.counters.abandonedTokens += emit;
      if (req.firstTokenMs === undefined) {
        req.firstTokenMs = endMs;
        this.counters.promptTokens += req.promptTokens;
      }
      const gap = req.lastTokenMs === undefined ? undefined : endMs - req.lastTokenMs;
      req.lastTokenMs = endMs;
      req.sink.onToken(req, endMs, emit);
      for (const l of this.listeners) l.onToken?.(req, endMs, gap, emit);
      if (req.generated >= req.outputTokens) {
        this.finish(req, req.finishReason, endMs);
        anyFinished = true;
      }
    }
    if (anyFinished) this.running = this.running.filter((r) => r.status === 'running');
  }

  /** One verification of `draftTokens` drafts: the accepted chain, counted as vLLM counts it. */
  private verify(draftTokens: number): number {
    const accepted = acceptChain(this.config.speculative!.acceptance, draftTokens, this.rng.next);
    const c = this.counters;
    c.specDrafts++;
    c.specDraftTokens += draftTokens;
    c.specAcceptedTokens += accepted;
    for (let i = 0; i < accepted; i++) c.specAcceptedByPosition[i]!++;
    return accepted;
  }

  private toPlan(entries: StepEntry[], prefillOnly: boolean): StepPlan {
    let cost = this.roofline.cost(entries);
    if (this.lora) {
      const adapters = new Set<string>();
      let tokens = 0;
      for (const e of entries)
        if (e.req.lora !== undefined) {
          adapters.add(e.req.lora);
          tokens += e.newTokens;
        }
      const loraMs = this.lora.cost(adapters.size, tokens, this.lora.slots.use(adapters));
      if (loraMs > 0) cost = { ...cost, loraMs, totalMs: cost.totalMs + loraMs };
    }
    if (this.draftCost) {
      // The drafter proposes for every sequence that verifies drafts this step.
      let seqs = 0;
      let context = 0;
      for (const e of entries)
        if (e.draftTokens > 0) {
          seqs++;
          context += e.contextTokens;
        }
      const draftMs = this.draftCost(seqs, context, context + seqs);
      if (draftMs > 0) cost = { ...cost, draftMs, totalMs: cost.totalMs + draftMs };
    }
    return { entries, cost, durationMs: cost.totalMs * this.slowdown, prefillOnly };
  }

  /**
   * Draft tokens for a sequence in decode this step: k, fewer when the token budget or the
   * context (max-model-len, KV capacity) leaves less room; 0 without speculative decoding.
   */
  private draftsFor(req: EngineRequest, budget: number): number {
    const spec = this.config.speculative;
    if (!spec) return 0;
    const { maxModelLen, numGpuBlocks, watermarkBlocks, blockSize } = this.config;
    const room = Math.min(maxModelLen, (numGpuBlocks - watermarkBlocks) * blockSize) - req.computed - 1;
    return Math.max(0, Math.min(spec.numSpeculativeTokens, budget - 1, room));
  }

  /** Running sequences first, in admission order; preempt the newest when blocks run out. */
  private scheduleRunning(entries: StepEntry[], budget: number): number {
    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const req = this.running[i]!;
      const left = req.promptTokens + req.generated - req.computed;
      let n = Math.min(left, budget);
      if (n <= 0) continue;
      // In decode (the last sampled token is the only one not in the cache): verify drafts too.
      const drafts = left === 1 && req.generated > 0 ? this.draftsFor(req, budget) : 0;
      n += drafts;
      while (!this.grow(req, req.computed + n)) {
        const victim = this.victim();
        const at = this.running.indexOf(victim);
        this.preempt(victim);
        if (victim === req) break;
        if (at < i) {
          // Priority policy: a victim already scheduled this step gives its tokens back (as vLLM V1).
          const k = entries.findIndex((e) => e.req === victim);
          if (k >= 0) budget += entries.splice(k, 1)[0]!.newTokens;
          i--;
        }
      }
      if (req.status !== 'running') break;
      entries.push({ req, newTokens: n, contextTokens: req.computed, draftTokens: drafts });
      budget -= n;
    }
    return budget;
  }

  /** Admit waiting requests in order while budget, sequence slots and blocks (above the watermark) allow. */
  private admit(entries: StepEntry[], budget: number, wholeOnly: boolean, nowMs: number): void {
    const { blockSize: bs, maxNumSeqs, enablePrefixCaching, watermarkBlocks } = this.config;
    const adapters = this.lora ? new Set(this.loraUsage().running) : undefined;
    let at = 0;
    while (at < this.waiting.length && budget > 0 && this.running.length < maxNumSeqs) {
      const req = this.waiting[at]!;
      // Its adapter would be one too many in the batch: it waits for a slot, the next may go.
      if (adapters && req.lora !== undefined && !adapters.has(req.lora)) {
        if (adapters.size >= this.config.maxLoras) {
          at++;
          continue;
        }
        adapters.add(req.lora);
      }
      const total = req.promptTokens + req.generated;
      const hashes = req.promptBlockHashes;
      // At least one token is always computed, so a full hit leaves the last block to recompute.
      const hit =
        enablePrefixCaching && hashes?.length ? this.kv.lookup(hashes, Math.floor((total - 1) / bs)) : [];
      const start = hit.length * bs;
      let n = total - start;
      if (n > budget) {
        if (wholeOnly) break;
        n = budget;
      }
      const need = Math.ceil((start + n) / bs) - hit.length;
      if (this.kv.freeBlocks() - this.kv.countFreeCached(hit) - need < watermarkBlocks) break;
      this.kv.acquire(hit);
      req.blocks = hit.concat(this.kv.allocate(need)!);
      req.registeredBlocks = hit.length;
      req.computed = start;
      if (enablePrefixCaching) {
        this.counters.prefixCacheQueries += total;
        this.counters.prefixCacheHits += start;
      }
      if (req.firstScheduledMs === undefined) {
        req.firstScheduledMs = nowMs;
        req.cachedPromptTokens = start;
      }
      this.waiting.splice(at, 1);
      req.status = 'running';
      this.running.push(req);
      entries.push({ req, newTokens: n, contextTokens: start, draftTokens: 0 });
      budget -= n;
    }
  }

  private grow(req: EngineRequest, tokens: number): boolean {
    const need = Math.ceil(tokens / this.config.blockSize) - req.blocks.length;
    if (need <= 0) return true;
    const got = this.kv.allocate(need);
    if (!got) return false;
    for (const b of got) req.blocks.push(b);
    return true;
  }

  /** Recompute preemption: free everything, back to the front of the queue. */
  private preempt(req: EngineRequest): void {
    this.running.splice(this.running.lastIndexOf(req), 1);
    this.kv.release(req.blocks);
    req.blocks = [];
    req.computed = 0;
    req.registeredBlocks = 0;
    req.status = 'waiting';
    req.preemptions++;
    this.counters.preemptions++;
    if (this.config.schedulingPolicy === 'priority') this.enqueue(req);
    else this.waiting.unshift(req);
  }

  private finish(req: EngineRequest, reason: FinishReason, tMs: number): void {
    if (req.blocks.length > 0) this.kv.release(req.blocks);
    req.blocks = [];
    req.status = 'finished';
    req.finishedAs = reason;
    req.finishedMs = tMs;
    this.counters.finished[reason]++;
    this.byId.delete(req.id);
    req.sink.onFinish(req, tMs);
    for (const l of this.listeners) l.onFinish?.(req, tMs);
  }
}
