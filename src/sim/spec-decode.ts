/**
 * Speculative decoding in the simulated engine, configured as vLLM takes it
 * (`--speculative-config '{"method":"ngram","num_speculative_tokens":3}'`, vllm/config/speculative.py):
 *
 * - each decode step, a running sequence in decode proposes k draft tokens; the target model
 *   verifies the last token and the k drafts in one forward pass (k+1 tokens through the
 *   roofline, against the batched-token budget like prefill tokens);
 * - the drafts are accepted position by position, position i with probability `acceptance[i]`
 *   given that the ones before it were (a simulation-only knob: `acceptance_probability`), the
 *   first rejection ending the chain; the step emits accepted + 1 tokens (the bonus or corrected
 *   token), never past the request's length;
 * - the drafter's own time: ngram is a CPU lookup (free); draft_model, eagle, eagle3 and mtp
 *   run k autoregressive passes, medusa one, of a drafter modelled as a fraction of the target
 *   (DRAFTERS below) on the same roofline.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { SimProfile } from './profiles.js';
import { createRoofline, type Roofline } from './roofline.js';

/** The methods the simulator models (vLLM's names; the `*_mtp` names count as `mtp`). */
export type SpecMethod = 'ngram' | 'draft_model' | 'eagle' | 'eagle3' | 'mtp' | 'medusa';

/** A validated speculative-decoding configuration. */
export interface SpeculativeConfig {
  method: SpecMethod;
  /** k: draft tokens proposed per sequence and step. */
  numSpeculativeTokens: number;
  /** Probability that draft position i is accepted given positions before it were (length k). */
  acceptance: number[];
  /** The drafter's model id, as given (vLLM's `model`); informational. */
  model?: string;
}

/**
 * How each method drafts: the drafter's size as a fraction of the target's parameters (and
 * layers, at least one), the forward passes it runs per step, and the default per-position
 * acceptance probability when `acceptance_probability` is not given.
 *
 * - ngram: prompt lookup on the CPU, no GPU time; 0.5 (depends entirely on how repetitive the text is);
 * - draft_model: a small model of the same family, ~1/10 of the target (Llama-3.2-1B for an
 *   8B), k autoregressive passes; 0.7;
 * - eagle / eagle3: one decoder layer plus the LM head, ~1/20 of the target, k passes; 0.7 / 0.8
 *   (EAGLE-3's higher acceptance);
 * - mtp: the model's own multi-token-prediction layer, ~1/20, k passes; 0.8;
 * - medusa: k parallel heads, ~1/50, one pass; 0.6.
 */
export const DRAFTERS: Record<SpecMethod, { sizeFraction: number; passes: 'k' | 1; acceptance: number }> = {
  ngram: { sizeFraction: 0, passes: 1, acceptance: 0.5 },
  draft_model: { sizeFraction: 0.1, passes: 'k', acceptance: 0.7 },
  eagle: { sizeFraction: 0.05, passes: 'k', acceptance: 0.7 },
  eagle3: { sizeFraction: 0.05, passes: 'k', acceptance: 0.8 },
  mtp: { sizeFraction: 0.05, passes: 'k', acceptance: 0.8 },
  medusa: { sizeFraction: 0.02, passes: 1, acceptance: 0.6 },
};

/** Fixed cost of one drafter forward pass (kernel launches under CUDA graphs), ms. */
export const DRAFT_PASS_OVERHEAD_MS = 0.1;

/** Largest k accepted (vLLM has no hard limit; beyond this acceptance makes drafting pointless). */
export const MAX_SPECULATIVE_TOKENS = 16;

/** vLLM keys accepted and ignored: they do not change the simulation (model files, quantisation, n-gram window). */
const IGNORED_KEYS = [
  'model',
  'draft_tensor_parallel_size',
  'prompt_lookup_max',
  'prompt_lookup_min',
  'quantization',
  'revision',
  'code_revision',
  'max_model_len',
  'speculative_token_tree',
  'disable_padded_drafter_batch',
];
const KEYS = new Set(['method', 'num_speculative_tokens', 'acceptance_probability', ...IGNORED_KEYS]);

const EXAMPLE = `--speculative-config '{"method":"eagle","num_speculative_tokens":3}'`;

function bad(message: string, hint: string): GoodputError {
  return new GoodputError('E_SIM', `--speculative-config: ${message}`, hint);
}

/** vLLM's rule when `method` is absent: from the drafter's model name. */
function methodFromModel(model: string): SpecMethod {
  const m = model.toLowerCase();
  if (m === 'ngram' || m === '[ngram]') return 'ngram';
  if (m.includes('eagle3') || m.includes('eagle-3')) return 'eagle3';
  if (m.includes('eagle-')) return 'eagle';
  if (m.includes('medusa')) return 'medusa';
  return 'draft_model';
}

function methodOf(raw: unknown, model: string | undefined): SpecMethod {
  if (raw === undefined || raw === null) {
    if (model === undefined)
      throw bad(
        'needs a "method" (or a draft "model")',
        `e.g. ${EXAMPLE}; methods: ${Object.keys(DRAFTERS).join(', ')}`,
      );
    return methodFromModel(model);
  }
  if (typeof raw !== 'string') throw bad('"method" must be a string', `e.g. ${EXAMPLE}`);
  if (raw === 'mtp' || raw.endsWith('_mtp')) return 'mtp';
  if (raw in DRAFTERS) return raw as SpecMethod;
  throw bad(
    `method "${raw}" is not simulated`,
    `use one of ${Object.keys(DRAFTERS).join(', ')} (e.g. ${EXAMPLE})`,
  );
}

function acceptanceOf(raw: unknown, k: number, method: SpecMethod): number[] {
  if (raw === undefined) return new Array<number>(k).fill(DRAFTERS[method].acceptance);
  const list = typeof raw === 'number' ? [raw] : raw;
  const hint =
    'give "acceptance_probability" as a number in [0, 1] or a list of them, one per draft position';
  if (!Array.isArray(list) || list.length === 0)
    throw bad('"acceptance_probability" is not a number or a list', hint);
  if (list.length > k)
    throw bad(`"acceptance_probability" has ${list.length} positions for ${k} draft tokens`, hint);
  for (const p of list)
    if (!(typeof p === 'number' && p >= 0 && p <= 1))
      throw bad(`acceptance probability ${JSON.stringify(p)} is outside [0, 1]`, hint);
  // A shorter list: its last value holds for the positions after it.
  return Array.from({ length: k }, (_, i) => list[Math.min(i, list.length - 1)] as number);
}

/**
 * Validate vLLM's speculative config (a JSON string or its parsed object) into a SpeculativeConfig.
 * Bad JSON, an unknown key or method, k outside 1..16, or a probability outside [0, 1] is E_SIM.
 */
export function parseSpeculativeConfig(input: string | Record<string, unknown>): SpeculativeConfig {
  let json: unknown = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch {
      throw bad(`not valid JSON: ${input.slice(0, 80)}`, `quote the JSON for the shell, e.g. ${EXAMPLE}`);
    }
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw bad('not a JSON object', `e.g. ${EXAMPLE}`);
  const o = json as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!KEYS.has(key))
      throw bad(
        `unknown key "${key}"`,
        `use method, num_speculative_tokens, acceptance_probability (simulation only) or model`,
      );
  const model = typeof o.model === 'string' ? o.model : undefined;
  const method = methodOf(o.method, model);
  const k = o.num_speculative_tokens;
  if (k === undefined) throw bad('needs num_speculative_tokens (draft tokens per step)', `e.g. ${EXAMPLE}`);
  if (!(typeof k === 'number' && Number.isInteger(k) && k >= 1 && k <= MAX_SPECULATIVE_TOKENS))
    throw bad(
      `num_speculative_tokens ${JSON.stringify(k)} must be an integer from 1 to ${MAX_SPECULATIVE_TOKENS}`,
      `e.g. ${EXAMPLE}`,
    );
  const config: SpeculativeConfig = {
    method,
    numSpeculativeTokens: k,
    acceptance: acceptanceOf(o.acceptance_probability, k, method),
  };
  if (model !== undefined) config.model = model;
  return config;
}

/**
 * Accepted draft tokens of one verification: position i is kept when a uniform draw falls
 * under `acceptance[i]`, and the first rejection ends the chain. Draws one number per
 * position examined (so a run is reproducible from its seed).
 */
export function acceptChain(acceptance: readonly number[], draftTokens: number, next: () => number): number {
  let accepted = 0;
  while (accepted < draftTokens && next() < (acceptance[accepted] as number)) accepted++;
  return accepted;
}

/**
 * Expected figures of a chain of k drafts (what vLLM's counters converge to): the share of
 * drafts whose first i+1 tokens are kept per position (Π p_0..p_i), their sum as accepted
 * tokens per draft (and its variance, for sampling error), acceptance rate = that / k, mean
 * accepted length = 1 + that.
 */
export function expectedAcceptance(acceptance: readonly number[]): {
  byPosition: number[];
  acceptedPerDraft: number;
  acceptedVariance: number;
  acceptanceRate: number;
  meanAcceptedLength: number;
} {
  const byPosition: number[] = [];
  let run = 1;
  for (const p of acceptance) {
    run *= p;
    byPosition.push(run);
  }
  // P(A ≥ a) = byPosition[a-1]: E[A] = Σ P(A ≥ a), E[A²] = Σ (2a − 1) P(A ≥ a).
  let mean = 0;
  let square = 0;
  byPosition.forEach((atLeast, i) => {
    mean += atLeast;
    square += (2 * i + 1) * atLeast;
  });
  return {
    byPosition,
    acceptedPerDraft: mean,
    acceptedVariance: square - mean * mean,
    acceptanceRate: acceptance.length > 0 ? mean / acceptance.length : 0,
    meanAcceptedLength: 1 + mean,
  };
}

/** The drafter's time for one step, ms, given the sequences that draft and their cached context. */
export type DraftCost = (seqs: number, contextTokens: number, attnPairs: number) => number;

/**
 * The drafter's cost model on the target's roofline: a model of `sizeFraction` of the target's
 * parameters and layers (at least one), same width, same GPUs; each pass drafts one token for
 * every drafting sequence (weights + its share of their KV read, or FLOPs when the batch is
 * large), plus DRAFT_PASS_OVERHEAD_MS. ngram costs nothing.
 */
export function createDraftCost(profile: SimProfile, spec: SpeculativeConfig): DraftCost {
  const d = DRAFTERS[spec.method];
  if (d.sizeFraction === 0) return () => 0;
  const passes = d.passes === 'k' ? spec.numSpeculativeTokens : 1;
  const { model } = profile;
  const drafter: Roofline = createRoofline({
    ...profile,
    model: {
      ...model,
      params: model.params * d.sizeFraction,
      layers: Math.max(1, Math.round(model.layers * d.sizeFraction)),
    },
    stepOverheadMs: DRAFT_PASS_OVERHEAD_MS,
    perSeqOverheadUs: 0,
  });
  return (seqs, contextTokens, attnPairs) =>
    seqs === 0 ? 0 : passes * drafter.costFromSums(seqs, attnPairs, contextTokens, seqs).totalMs;
}
