import { describe, expect, it } from 'vitest';
import { type EngineOptions, resolveEngineConfig } from './engine-config.js';
import { resolveProfile } from './profiles.js';
import type { RequestSink } from './request.js';
import { Engine, type StepPlan } from './scheduler.js';
import { expectedAcceptance } from './spec-decode.js';
import { simulateVirtual } from './virtual.js';

const profile = resolveProfile('h100:llama-3.1-8b');
const EAGLE3 = '{"method":"eagle","num_speculative_tokens":3}';

function engine(opts: EngineOptions, seed = 0): Engine {
  return new Engine(profile, resolveEngineConfig(profile, opts), seed);
}

/** Runs to idle, returning the plans stepped. */
function drain(e: Engine): StepPlan[] {
  const plans: StepPlan[] = [];
  let t = 0;
  for (let i = 0; i < 100_000; i++) {
    const plan = e.plan(t);
    if (!plan) return plans;
    plans.push(plan);
    t += plan.durationMs;
    e.commit(plan, t);
  }
  throw new Error('engine did not drain');
}

/** A sink that records each emission as [last index, count]. */
function recorder() {
  const emissions = new Map<string, [number, number][]>();
  const sink: RequestSink = {
    onToken: (r, _t, count) => emissions.set(r.id, [...(emissions.get(r.id) ?? []), [r.generated, count]]),
    onFinish() {},
  };
  return { emissions, sink };
}

describe('engine with speculative decoding', () => {
  it('delivers every token once, up to k+1 per step, never past the length', () => {
    const e = engine({ speculativeConfig: EAGLE3 });
    const { emissions, sink } = recorder();
    const lengths = [1, 2, 5, 37, 200];
    lengths.forEach((n, i) => {
      e.add({ id: `r${i}`, promptTokens: 100 + i, outputTokens: n, finishReason: 'length', sink }, 0);
    });
    drain(e);
    lengths.forEach((n, i) => {
      const list = emissions.get(`r${i}`)!;
      let last = 0;
      for (const [index, count] of list) {
        expect(count).toBeGreaterThanOrEqual(1);
        expect(count).toBeLessThanOrEqual(4);
        expect(index).toBe(last + count);
        last = index;
      }
      expect(last).toBe(n);
    });
    expect([...emissions.values()].flat().some(([, count]) => count > 1)).toBe(true);
    expect(e.counters.generationTokens).toBe(lengths.reduce((s, n) => s + n, 0));
  });

  it("counts drafts, draft and accepted tokens as vLLM does, from the steps' verifications", () => {
    const e = engine({ speculativeConfig: EAGLE3 });
    const { sink } = recorder();
    for (let i = 0; i < 6; i++)
      e.add({ id: `r${i}`, promptTokens: 300, outputTokens: 120, finishReason: 'length', sink }, 0);
    const plans = drain(e);
    const verifications = plans.flatMap((p) => p.entries.filter((x) => x.draftTokens > 0));
    const c = e.counters;
    expect(c.specDrafts).toBe(verifications.length);
    expect(c.specDraftTokens).toBe(verifications.reduce((s, x) => s + x.draftTokens, 0));
    expect(c.specAcceptedTokens).toBeLessThanOrEqual(c.specDraftTokens);
    expect(c.specAcceptedByPosition).toHaveLength(3);
    expect(c.specAcceptedByPosition.reduce((s, x) => s + x, 0)).toBe(c.specAcceptedTokens);
    for (let i = 1; i < 3; i++)
      expect(c.specAcceptedByPosition[i]!).toBeLessThanOrEqual(c.specAcceptedByPosition[i - 1]!);
    // Verified tokens go through the target: a decode entry computes the last token and its drafts.
    for (const x of verifications) expect(x.newTokens).toBe(1 + x.draftTokens);
    // The drafter's time is part of the step.
    const drafted = plans.find((p) => p.entries.some((x) => x.draftTokens > 0))!;
    expect(drafted.cost.draftMs).toBeGreaterThan(0);
  });

  it('drafts fewer tokens when the token budget leaves less room', () => {
    const e = engine({ speculativeConfig: EAGLE3, maxNumBatchedTokens: 10, maxModelLen: 512 });
    const { sink } = recorder();
    for (let i = 0; i < 4; i++)
      e.add({ id: `r${i}`, promptTokens: 8, outputTokens: 30, finishReason: 'length', sink }, 0);
    for (const p of drain(e)) expect(p.entries.reduce((s, x) => s + x.newTokens, 0)).toBeLessThanOrEqual(10);
    expect(e.counters.specDraftTokens).toBeLessThan(3 * e.counters.specDrafts);
    expect(e.counters.generationTokens).toBe(120);
  });

  it('a preempted request still delivers every token once', () => {
    const e = engine({
      speculativeConfig: EAGLE3,
      numGpuBlocksOverride: 14,
      enablePrefixCaching: false,
      maxModelLen: 128,
    });
    const { emissions, sink } = recorder();
    for (let i = 0; i < 4; i++)
      e.add({ id: `r${i}`, promptTokens: 32, outputTokens: 80, finishReason: 'length', sink }, 0);
    drain(e);
    expect(e.counters.preemptions).toBeGreaterThan(0);
    for (const list of emissions.values()) expect(list.at(-1)![0]).toBe(80);
    expect(e.kv.allocatedBlocks()).toBe(0);
  });

  it('is reproducible from its seed, and the seed matters', () => {
    const run = (seed: number) => {
      const e = engine({ speculativeConfig: EAGLE3 }, seed);
      const { sink } = recorder();
      e.add({ id: 'a', promptTokens: 50, outputTokens: 300, finishReason: 'length', sink }, 0);
      drain(e);
      return { ...e.counters };
    };
    expect(run(1)).toEqual(run(1));
    expect(run(1).specAcceptedTokens).not.toBe(run(2).specAcceptedTokens);
  });
});

describe('speculative decoding in virtual time', () => {
  const requests = Array.from({ length: 12 }, () => ({ promptTokens: 400, outputTokens: 200 }));
  const tpot = (spec?: string) => {
    const r = simulateVirtual(requests, {
      concurrency: 1,
      engine: spec ? { speculativeConfig: spec } : {},
      seed: 3,
    });
    const mean =
      r.timings.reduce((s, t) => s + (t.endMs - t.firstTokenMs!) / (t.outputTokens - 1), 0) /
      r.timings.length;
    return { mean, counters: r.counters };
  };

  it('lowers TPOT at concurrency 1, with acceptance within sampling error of the configured one', () => {
    const off = tpot();
    for (const json of [
      '{"method":"ngram","num_speculative_tokens":3}',
      EAGLE3,
      '{"method":"draft_model","num_speculative_tokens":4,"acceptance_probability":[0.9,0.8,0.6]}',
    ]) {
      const on = tpot(json);
      expect(on.mean).toBeLessThan(0.8 * off.mean);
      const c = on.counters;
      const k = c.specAcceptedByPosition.length;
      const e = expectedAcceptance(
        json.includes('ngram')
          ? [0.5, 0.5, 0.5]
          : json.includes('draft')
            ? [0.9, 0.8, 0.6, 0.6]
            : [0.7, 0.7, 0.7],
      );
      expect(k).toBe(e.byPosition.length);
      // Every draft is counted whole (as vLLM counts it), the end of a request included.
      const sigma = Math.sqrt(e.acceptedVariance / c.specDrafts);
      expect(Math.abs(c.specAcceptedTokens / c.specDrafts - e.acceptedPerDraft)).toBeLessThan(4 * sigma);
      expect(c.specDraftTokens).toBe(k * c.specDrafts);
    }
  });
});
