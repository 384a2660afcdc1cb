/**
 * Step time of one engine step from a roofline of the model on the GPU:
 * compute-bound prefill (FLOPs / effective peak), bandwidth-bound decode (weights + KV read
 * over effective HBM bandwidth), tensor-parallel all-reduces, and fixed per-step overheads.
 * The formulas are documented in docs/simulator.md.
 *
 * @module
 */

import { kvBytesPerToken, type SimProfile } from './profiles.js';

/** One sequence's share of a step: `newTokens` computed on top of `contextTokens` already cached. */
export interface StepSlice {
  contextTokens: number;
  newTokens: number;
}

/** Breakdown of a step's time, milliseconds. */
export interface StepCost {
  computeMs: number;
  memoryMs: number;
  commMs: number;
  overheadMs: number;
  /** Speculative decoding: the drafter's time, included in totalMs (absent without a drafter). */
  draftMs?: number;
  /** LoRA adapters: their weights read and applied, and any loaded into a GPU slot (lora.ts); included in totalMs. */
  loraMs?: number;
  totalMs: number;
}

/** Precomputed constants of a profile, so that the per-step cost is a few multiplications. */
export interface Roofline {
  profile: SimProfile;
  cost(slices: readonly StepSlice[]): StepCost;
  /** Cost from aggregate sums (what the scheduler accumulates without building slices). */
  costFromSums(tokens: number, attnPairs: number, kvTokensRead: number, seqs: number): StepCost;
}

/** Build the roofline for a profile. */
export function createRoofline(profile: SimProfile): Roofline {
  const { gpu, model, tensorParallel: tp } = profile;
  const flopsPerS = profile.stepTime?.flopsPerS ?? gpu.peakFlops * gpu.computeEfficiency * tp;
  const bytesPerS = profile.stepTime?.bytesPerS ?? gpu.memBandwidth * gpu.bandwidthEfficiency * tp;
  const weightBytes = model.params * model.dtypeBytes;
  const kvPerToken = kvBytesPerToken(model);
  // QKᵀ and AV: 2 matmuls × 2 FLOPs per multiply-add, per layer, per head dimension.
  const attnFlopsPerPair = 4 * model.layers * model.heads * model.headDim;
  const activationBytesPerToken = model.hidden * model.dtypeBytes;
  const ringFactor = tp > 1 ? (2 * (tp - 1)) / tp : 0;
  const allReducesPerStep = 2 * model.layers;

  const costFromSums = (tokens: number, attnPairs: number, kvTokensRead: number, seqs: number): StepCost => {
    const flops = 2 * model.params * tokens + attnFlopsPerPair * attnPairs;
    const computeMs = (flops / flopsPerS) * 1e3;
    const bytes = weightBytes + kvTokensRead * kvPerToken + tokens * kvPerToken;
    const memoryMs = (bytes / bytesPerS) * 1e3;
    const commMs =
      tp > 1
        ? allReducesPerStep *
          (gpu.allReduceLatencyUs / 1e3 +
            ((ringFactor * tokens * activationBytesPerToken) / gpu.linkBandwidth) * 1e3)
        : 0;
    const overheadMs = profile.stepOverheadMs + (profile.perSeqOverheadUs * seqs) / 1e3;
    return {
      computeMs,
      memoryMs,
      commMs,
      overheadMs,
      totalMs: Math.max(computeMs, memoryMs) + commMs + overheadMs,
    };
  };

  return {
    profile,
    costFromSums,
    cost(slices) {
      let tokens = 0;
      let pairs = 0;
      let kvRead = 0;
      for (const s of slices) {
        tokens += s.newTokens;
        pairs += attentionPairs(s.contextTokens, s.newTokens);
        kvRead += s.contextTokens;
      }
      return costFromSums(tokens, pairs, kvRead, slices.length);
    },
  };
}

/** Query-key pairs attended when `n` new tokens follow `c` cached ones (causal): n·c + n(n+1)/2. */
export function attentionPairs(c: number, n: number): number {
  return n * c + (n * (n + 1)) / 2;
}
