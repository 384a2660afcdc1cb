import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from './engine-config.js';
import { resolveProfile } from './profiles.js';
import type { EngineRequest, RequestSink } from './request.js';
import { Engine, EngineRejection } from './scheduler.js';

const profile = resolveProfile('h100:llama-3.1-8b');
const noop: RequestSink = { onToken() {}, onFinish() {} };

function engine(policy: 'fcfs' | 'priority', opts: Parameters<typeof resolveEngineConfig>[1] = {}): Engine {
  return new Engine(profile, resolveEngineConfig(profile, { ...opts, schedulingPolicy: policy }));
}

function drain(e: Engine): void {
  let t = 0;
  for (let i = 0; i < 100_000 && e.hasWork(); i++) {
    const plan = e.plan(t);
    if (!plan) return;
    t += plan.durationMs;
    e.commit(plan, t);
  }
}

const add = (e: Engine, id: string, priority: number | undefined, promptTokens = 64, outputTokens = 16) =>
  e.add(
    {
      id,
      promptTokens,
      outputTokens,
      finishReason: 'length',
      sink: noop,
      ...(priority !== undefined ? { priority } : {}),
    },
    0,
  );

describe('engine: priority scheduling (vLLM semantics)', () => {
  it('admits waiting requests by priority (lower first), then arrival', () => {
    // One sequence at a time: the admission order is the order of first tokens.
    const e = engine('priority', { maxNumSeqs: 1 });
    const reqs = [add(e, 'a', 2), add(e, 'b', 0), add(e, 'c', 1), add(e, 'd', 0), add(e, 'e', -1)];
    drain(e);
    const order = [...reqs].sort((x, y) => x.firstTokenMs! - y.firstTokenMs!).map((r) => r.id);
    expect(order).toEqual(['e', 'b', 'd', 'c', 'a']);
  });

  it('keeps arrival order under fcfs and refuses a non-zero priority there, as vLLM does', () => {
    const e = engine('fcfs', { maxNumSeqs: 1 });
    const reqs = [add(e, 'a', 0), add(e, 'b', undefined), add(e, 'c', 0)];
    drain(e);
    expect([...reqs].sort((x, y) => x.firstTokenMs! - y.firstTokenMs!).map((r) => r.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(() => add(e, 'd', 1)).toThrow(EngineRejection);
    expect(() => add(e, 'd', 1)).toThrow(/priority 1 but Priority scheduling is not enabled/);
    expect(e.check(10, 10, 3)).toMatch(/not enabled/);
    expect(engine('priority').check(10, 10, 3)).toBeUndefined();
  });

  it('preempts the lowest-priority running request when blocks run out, not the newest', () => {
    // 3 requests of 32 prompt + 80 output tokens need 21 blocks at the end; 16 force a preemption.
    const run = (policy: 'fcfs' | 'priority'): EngineRequest[] => {
      const e = engine(policy, { numGpuBlocksOverride: 16, enablePrefixCaching: false, maxModelLen: 128 });
      const p = (n: number) => (policy === 'priority' ? n : undefined);
      // The low-priority one arrives first; under fcfs the newest (high priority) is the victim.
      const reqs = [
        add(e, 'low', p(5), 32, 80),
        add(e, 'high1', p(0), 32, 80),
        add(e, 'high2', p(0), 32, 80),
      ];
      drain(e);
      return reqs;
    };
    const [low, high1, high2] = run('priority');
    expect(low!.preemptions).toBeGreaterThan(0);
    expect(high1!.preemptions + high2!.preemptions).toBe(0);
    const [lowF, , high2F] = run('fcfs');
    expect(lowF!.preemptions).toBe(0);
    expect(high2F!.preemptions).toBeGreaterThan(0);
  });
});
