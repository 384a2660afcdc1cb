import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import type { TrafficClassSpec, WorkloadSpec } from '../types.js';
import { CLASS_BLOCK, checkClasses, classDealer, parseTrafficClass } from './classes.js';
import { createWorkload } from './workload.js';

const base: WorkloadSpec = {
  kind: 'synthetic',
  api: 'chat',
  promptTokens: 64,
  maxTokens: 32,
  tokenizer: 'o200k_base',
};
const two: TrafficClassSpec[] = [
  {
    name: 'chat',
    share: 0.7,
    promptTokens: 20,
    maxTokens: 10,
    systemPromptTokens: 8,
    priority: 0,
    slo: { ttftMs: 500 },
  },
  { name: 'batch', share: 0.3, promptTokens: 300, priority: 1, model: 'lora-batch' },
];

describe('parseTrafficClass', () => {
  it.each([
    [
      'name=chat,share=0.7,prompt-tokens=200,max-tokens=100,slo-ttft=500,priority=0',
      { name: 'chat', share: 0.7, promptTokens: 200, maxTokens: 100, slo: { ttftMs: 500 }, priority: 0 },
    ],
    [
      'name=batch,share=0.3,prompt-tokens-dist=lognormal:mean=512,sigma=0.6,slo-e2el=30s,slo-tpot=80,model=lora-a',
      {
        name: 'batch',
        share: 0.3,
        promptTokensDist: { kind: 'lognormal', text: 'lognormal:mean=512,sigma=0.6', mean: 512 },
        slo: { e2elMs: 30_000, tpotMs: 80 },
        model: 'lora-a',
      },
    ],
    [
      'name=x,share=1,system-prompt-tokens=0,slo-user-tps=20,priority=-3',
      { name: 'x', share: 1, systemPromptTokens: 0, slo: { userTps: 20 }, priority: -3 },
    ],
  ])('%s', (text, expected) => {
    expect(parseTrafficClass(text)).toEqual(expected);
  });

  it.each([
    ['share=0.5', /needs name=/],
    ['name=a', /needs share=/],
    ['name=a,share=1.5', /needs share=/],
    ['name=a,share=1,prompt-tokens=0', /prompt-tokens=0 must be a whole number ≥ 1/],
    ['name=a,share=1,priority=high', /priority=high must be a whole number/],
    ['name=a,share=1,slo-ttft=fast', /slo-ttft=fast must be a positive latency/],
    ['name=a,share=1,colour=red', /'colour=red' .* is not one of/],
    ['name=a,share=1,name=b', /'name' is given twice/],
    ['name=a,share=1,max-tokens=5,max-tokens-dist=uniform:1-9', /both max-tokens-dist and max-tokens/],
    ['name=a,share=1,prompt-tokens-dist=empirical:x.csv', /no empirical histogram/],
  ])('refuses %s with a usage error', (text, message) => {
    const err = (() => {
      try {
        parseTrafficClass(text);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect((err as GoodputError).code).toBe('E_USAGE');
    expect((err as GoodputError).message).toMatch(message);
    expect((err as GoodputError).hint).not.toBe('');
  });

  it('refuses shares that do not add up to 1 and names given twice', () => {
    expect(() => checkClasses([two[0]!, { ...two[1]!, share: 0.2 }])).toThrow(/add up to 0.9/);
    expect(() => checkClasses([two[0]!, { ...two[0]!, share: 0.3 }])).toThrow(/defined twice/);
    expect(() => checkClasses(two)).not.toThrow();
  });
});

describe('the class of each request', () => {
  it('gives every class its share of each block, in a seeded order that depends on the index only', () => {
    const shares = [0.55, 0.3, 0.15];
    const deal = classDealer(42, shares);
    const counts = [0, 0, 0];
    for (let i = 0; i < 10 * CLASS_BLOCK; i++) counts[deal(i)]!++;
    expect(counts).toEqual([550, 300, 150]);
    // Random access gives the same classes as sequential access, and another seed another order.
    const again = classDealer(42, shares);
    for (const i of [977, 3, 512, 0, 999]) expect(again(i)).toBe(deal(i));
    const other = classDealer(43, shares);
    expect(Array.from({ length: 100 }, (_, i) => other(i))).not.toEqual(
      Array.from({ length: 100 }, (_, i) => deal(i)),
    );
  });

  it('builds each request from its class: lengths, system prompt, priority, model, one arrival schedule', () => {
    const wl = createWorkload({ ...base, classes: two }, { seed: 3, warmup: 2, requests: 200, rate: 10 });
    expect(wl.spec.classes).toEqual(two);
    const plain = createWorkload(base, { seed: 3, warmup: 2, requests: 200, rate: 10 });
    const items = Array.from({ length: 202 }, (_, i) => wl.item(i));
    const chat = items.filter((it) => it.class === 'chat');
    const batch = items.filter((it) => it.class === 'batch');
    expect(chat.length + batch.length).toBe(202);
    for (const it of chat) {
      expect(it.promptTokens).toBe(28); // 8 system + 20 own
      expect(it.maxTokens).toBe(10);
      expect(it.priority).toBe(0);
      expect(it.model).toBeUndefined();
      expect(it.messages?.[0]?.role).toBe('system');
    }
    for (const it of batch) {
      expect(it.promptTokens).toBe(300);
      expect(it.maxTokens).toBe(32);
      expect(it.priority).toBe(1);
      expect(it.model).toBe('lora-batch');
    }
    // The run's arrival times, whatever the class; warmup unscheduled.
    for (const it of items) expect(it.scheduledMs).toBe(plain.item(it.index).scheduledMs);
    expect(items[0]!.scheduledMs).toBeUndefined();
    // Deterministic, and the same item on a second ask.
    const again = createWorkload({ ...base, classes: two }, { seed: 3, warmup: 2, requests: 200, rate: 10 });
    expect(again.item(150)).toEqual(wl.item(150));
  });

  it('refuses classes with sessions or a trace, and class prompt lengths with a dataset', () => {
    expect(() =>
      createWorkload(
        { ...base, classes: two, sessions: { turns: { min: 2, max: 2 } } },
        { seed: 1, warmup: 0 },
      ),
    ).toThrow(/--class cannot be used with sessions/);
    expect(() =>
      createWorkload(
        { ...base, kind: 'dataset', classes: two },
        { seed: 1, warmup: 0, dataset: [{ prompt: 'hello there' }] },
      ),
    ).toThrow(/prompt-tokens needs synthetic prompts/);
  });
});
