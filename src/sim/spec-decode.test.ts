import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { resolveEngineConfig } from './engine-config.js';
import { resolveProfile } from './profiles.js';
import { createRoofline } from './roofline.js';
import {
  acceptChain,
  createDraftCost,
  DRAFT_PASS_OVERHEAD_MS,
  DRAFTERS,
  expectedAcceptance,
  parseSpeculativeConfig,
  type SpeculativeConfig,
} from './spec-decode.js';

describe('--speculative-config (vLLM JSON)', () => {
  it('reads method, k, the acceptance knob and vLLM method inference', () => {
    const cases: [string, Partial<SpeculativeConfig>][] = [
      ['{"method":"ngram","num_speculative_tokens":3}', { method: 'ngram', acceptance: [0.5, 0.5, 0.5] }],
      ['{"method":"eagle","num_speculative_tokens":2}', { method: 'eagle', acceptance: [0.7, 0.7] }],
      ['{"method":"eagle3","num_speculative_tokens":1}', { method: 'eagle3', acceptance: [0.8] }],
      ['{"method":"deepseek_mtp","num_speculative_tokens":1}', { method: 'mtp' }],
      [
        '{"model":"yuhuili/EAGLE-LLaMA3.1-Instruct-8B","num_speculative_tokens":4}',
        { method: 'eagle', model: 'yuhuili/EAGLE-LLaMA3.1-Instruct-8B' },
      ],
      ['{"model":"meta-llama/Llama-3.2-1B-Instruct","num_speculative_tokens":4}', { method: 'draft_model' }],
      ['{"model":"ngram","num_speculative_tokens":2,"prompt_lookup_max":4}', { method: 'ngram' }],
      [
        '{"method":"ngram","num_speculative_tokens":3,"acceptance_probability":0.9}',
        { acceptance: [0.9, 0.9, 0.9] },
      ],
      [
        '{"method":"ngram","num_speculative_tokens":4,"acceptance_probability":[0.9,0.6]}',
        { acceptance: [0.9, 0.6, 0.6, 0.6] },
      ],
    ];
    for (const [json, want] of cases) expect(parseSpeculativeConfig(json)).toMatchObject(want);
    expect(parseSpeculativeConfig({ method: 'medusa', num_speculative_tokens: 2 }).numSpeculativeTokens).toBe(
      2,
    );
  });

  it('refuses bad JSON, unknown keys and methods, k out of range, bad probabilities: E_SIM with a hint', () => {
    const cases: [string, RegExp][] = [
      ['{method:ngram}', /not valid JSON/],
      ['[1,2]', /not a JSON object/],
      ['{"method":"ngram","num_speculative_tokens":3,"foo":1}', /unknown key "foo"/],
      ['{"method":"lookahead","num_speculative_tokens":3}', /method "lookahead" is not simulated/],
      ['{"num_speculative_tokens":3}', /needs a "method"/],
      ['{"method":"ngram"}', /needs num_speculative_tokens/],
      ['{"method":"ngram","num_speculative_tokens":0}', /num_speculative_tokens 0/],
      ['{"method":"ngram","num_speculative_tokens":17}', /num_speculative_tokens 17/],
      ['{"method":"ngram","num_speculative_tokens":2.5}', /num_speculative_tokens 2.5/],
      ['{"method":"ngram","num_speculative_tokens":2,"acceptance_probability":1.2}', /outside \[0, 1\]/],
      ['{"method":"ngram","num_speculative_tokens":2,"acceptance_probability":[0.5,0.5,0.5]}', /3 positions/],
      ['{"method":"ngram","num_speculative_tokens":2,"acceptance_probability":"high"}', /not a number/],
    ];
    for (const [json, message] of cases) {
      let err: unknown;
      try {
        parseSpeculativeConfig(json);
      } catch (e) {
        err = e;
      }
      expect(err, json).toBeInstanceOf(GoodputError);
      const g = err as GoodputError;
      expect(g.code).toBe('E_SIM');
      expect(g.message).toMatch(message);
      expect(g.hint.length).toBeGreaterThan(10);
    }
  });

  it('reaches the engine config through --speculative-config; absent leaves it off', () => {
    const p = resolveProfile();
    expect(resolveEngineConfig(p).speculative).toBeUndefined();
    const c = resolveEngineConfig(p, { speculativeConfig: '{"method":"eagle","num_speculative_tokens":3}' });
    expect(c.speculative?.numSpeculativeTokens).toBe(3);
  });
});

describe('acceptance chain', () => {
  /** A scripted source of draws. */
  const draws = (xs: number[]) => {
    let i = 0;
    return () => xs[i++] ?? 0.999;
  };

  it('accepts position by position and stops at the first rejection', () => {
    const p = [0.8, 0.6, 0.4];
    const cases: [number[], number, number, number][] = [
      // draws, drafts, accepted, draws used
      [[0.1, 0.1, 0.1], 3, 3, 3],
      [[0.9, 0.1, 0.1], 3, 0, 1],
      [[0.1, 0.7, 0.1], 3, 1, 2],
      [[0.1, 0.5, 0.5], 3, 2, 3],
      [[0.1, 0.1, 0.1], 2, 2, 2],
      [[0.1], 0, 0, 0],
    ];
    for (const [xs, drafts, accepted, used] of cases) {
      let n = 0;
      const next = draws(xs);
      expect(
        acceptChain(p, drafts, () => {
          n++;
          return next();
        }),
      ).toBe(accepted);
      expect(n).toBe(used);
    }
  });

  it('expected figures: per position Π p, rate, mean accepted length, variance', () => {
    const e = expectedAcceptance([0.8, 0.5, 0.5]);
    expect(e.byPosition).toEqual([0.8, 0.4, 0.2]);
    expect(e.acceptedPerDraft).toBeCloseTo(1.4, 12);
    expect(e.acceptanceRate).toBeCloseTo(1.4 / 3, 12);
    expect(e.meanAcceptedLength).toBeCloseTo(2.4, 12);
    // Distribution of A: P(0)=0.2, P(1)=0.4, P(2)=0.2, P(3)=0.2.
    const mean = 0.4 + 0.4 + 0.6;
    const second = 0.4 + 0.8 + 1.8;
    expect(e.acceptedVariance).toBeCloseTo(second - mean * mean, 12);
    expect(expectedAcceptance([1, 1]).acceptedVariance).toBeCloseTo(0, 12);
  });

  it('sampled chains converge to the expected figures', () => {
    const p = [0.7, 0.7, 0.7];
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const n = 20_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += acceptChain(p, 3, next);
    const e = expectedAcceptance(p);
    expect(Math.abs(sum / n - e.acceptedPerDraft)).toBeLessThan(4 * Math.sqrt(e.acceptedVariance / n));
  });
});

describe('step cost with speculative decoding (roofline)', () => {
  const profile = resolveProfile('h100:llama-3.1-8b');
  const target = createRoofline(profile);
  const spec = (json: string) => parseSpeculativeConfig(json);

  /** Target time per emitted token of a decode step of `batch` sequences at `context` tokens. */
  const perToken = (batch: number, context: number, s?: SpeculativeConfig): number => {
    const k = s?.numSpeculativeTokens ?? 0;
    const slices = Array.from({ length: batch }, () => ({ contextTokens: context, newTokens: 1 + k }));
    const step = target.cost(slices).totalMs;
    if (!s) return step;
    const draft = createDraftCost(profile, s)(batch, batch * context, batch * (context + 1));
    return (step + draft) / expectedAcceptance(s.acceptance).meanAcceptedLength;
  };

  it('ngram drafting is free; a drafter model costs k passes of a fraction of the target', () => {
    expect(
      createDraftCost(profile, spec('{"method":"ngram","num_speculative_tokens":3}'))(8, 8000, 8008),
    ).toBe(0);
    const eagle = (k: number) =>
      createDraftCost(profile, spec(`{"method":"eagle","num_speculative_tokens":${k}}`))(1, 1000, 1001);
    expect(eagle(4)).toBeCloseTo(2 * eagle(2), 9);
    expect(eagle(1)).toBeGreaterThan(DRAFT_PASS_OVERHEAD_MS);
    // One pass of the drafter is well under a target decode step (its size fraction, plus launch overhead).
    expect(eagle(1)).toBeLessThan(0.2 * target.cost([{ contextTokens: 1000, newTokens: 1 }]).totalMs);
    const medusa = createDraftCost(profile, spec('{"method":"medusa","num_speculative_tokens":4}'));
    expect(medusa(1, 1000, 1001)).toBeLessThan(eagle(1));
    expect(DRAFTERS.draft_model.sizeFraction).toBeGreaterThan(DRAFTERS.eagle.sizeFraction);
  });

  it('helps at low batch (memory-bound); the gain shrinks with batch and reverses when compute-bound', () => {
    const short = 256;
    const table = [1, 8, 32, 128, 256].map((batch) => ({
      batch,
      ngram5:
        perToken(batch, short) /
        perToken(batch, short, spec('{"method":"ngram","num_speculative_tokens":5}')),
      eagle3:
        perToken(batch, short) /
        perToken(batch, short, spec('{"method":"eagle","num_speculative_tokens":3}')),
    }));
    // Speedup (time per token without ÷ with): about 2× on the memory-bound plateau (batch 1 to 32:
    // the verified tokens ride on the same weight read), then falling once compute-bound.
    for (const col of ['ngram5', 'eagle3'] as const) {
      expect(table[0]![col]).toBeGreaterThan(1.5);
      for (const row of table.slice(1, 3)) expect(Math.abs(row[col] / table[0]![col] - 1)).toBeLessThan(0.05);
      for (let i = 3; i < table.length; i++) expect(table[i]![col]).toBeLessThan(table[i - 1]![col]);
    }
    // Compute-bound at 256 × 6 verified tokens: drafting five tokens to keep two costs more than it saves.
    expect(table.at(-1)!.ngram5).toBeLessThan(1);
    // The verification step itself: memory-bound alone, compute-bound with drafts at batch 256.
    const big = Array.from({ length: 256 }, () => ({ contextTokens: short, newTokens: 6 }));
    expect(target.cost(big).computeMs).toBeGreaterThan(target.cost(big).memoryMs);
    expect(target.cost([{ contextTokens: short, newTokens: 6 }]).memoryMs).toBeGreaterThan(
      target.cost([{ contextTokens: short, newTokens: 6 }]).computeMs,
    );
  });
});
