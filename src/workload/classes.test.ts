import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import type { TrafficClassSpec, WorkloadSpec } from '../types.js';
import { syntheticTools } from './agents.js';
import { checkClasses, parseTrafficClass } from './class-spec.js';
import { CLASS_BLOCK, classDealer, dealUsers, fewestUsers } from './classes.js';
import { parseLengthDist } from './length-dist.js';
import { parseHistogramCsv } from './length-dist-file.js';
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
    [
      'name=agent,share=0.4,tools=4,tool-choice=tool_2,turns=2-5,turn-tokens=40,think-time=exp:2s',
      {
        name: 'agent',
        share: 0.4,
        tools: { count: 4, choice: { name: 'tool_2' } },
        sessions: {
          turns: { min: 2, max: 5 },
          turnTokens: 40,
          thinkTime: { meanMs: 2000, dist: 'exponential' },
        },
      },
    ],
    [
      'name=f,share=1,tools=defs.json,tool-choice=search,turns=1,think-time=0',
      {
        name: 'f',
        share: 1,
        tools: { count: 0, file: { path: 'defs.json', sha256: '' }, choice: { name: 'search' } },
        sessions: { turns: { min: 1, max: 1 }, thinkTime: { meanMs: 0, dist: 'fixed' } },
      },
    ],
    [
      'name=e,share=1,prompt-tokens-dist=empirical:lengths.csv',
      {
        name: 'e',
        share: 1,
        promptTokensDist: { kind: 'empirical', text: 'empirical:lengths.csv', mean: 0 },
      },
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
    ['name=a,share=1,tool-choice=auto', /tool-choice= without tools=/],
    ['name=a,share=1,tools=4,tool-choice=tool_7', /tool-choice=tool_7 names no tool it offers/],
    ['name=a,share=1,tools=0,tool-choice=auto', /tool-choice= with tools=0/],
    ['name=a,share=1,turns=0', /turns=0 must be N or MIN-MAX/],
    ['name=a,share=1,turns=4-2', /turns=4-2 must be N or MIN-MAX/],
    ['name=a,share=1,think-time=soon', /think-time=soon must be a time ≥ 0/],
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
    // The run's arrival times, whatever the class; the warmup's before the measured start.
    for (const it of items) expect(it.scheduledMs).toBe(plain.item(it.index).scheduledMs);
    expect(items[0]!.scheduledMs).toBeLessThan(items[1]!.scheduledMs!);
    expect(items[1]!.scheduledMs).toBeLessThan(0);
    expect(items[2]!.scheduledMs).toBe(0);
    // Deterministic, and the same item on a second ask.
    const again = createWorkload({ ...base, classes: two }, { seed: 3, warmup: 2, requests: 200, rate: 10 });
    expect(again.item(150)).toEqual(wl.item(150));
  });

  it('refuses classes with a trace or agents, session keys without sessions, and class prompt lengths with a dataset', () => {
    expect(() =>
      createWorkload(
        { ...base, classes: [{ ...two[0]!, sessions: { turns: { min: 2, max: 2 } } }, two[1]!] },
        { seed: 1, warmup: 0 },
      ),
    ).toThrow(/class chat sets turns of multi-turn sessions, but the run has none/);
    expect(() =>
      createWorkload(
        { ...base, kind: 'dataset', classes: two },
        { seed: 1, warmup: 0, dataset: [{ prompt: 'hello there' }] },
      ),
    ).toThrow(/prompt-tokens needs synthetic prompts/);
    expect(() =>
      createWorkload(
        { ...base, api: 'completions', classes: [{ ...two[0]!, tools: { count: 2 } }, two[1]!] },
        { seed: 1, warmup: 0 },
      ),
    ).toThrow(/tools need --api chat or responses/);
  });
});

describe('tools, empirical lengths and sessions within a class', () => {
  const spec = (classes: TrafficClassSpec[], extra: Partial<WorkloadSpec> = {}): WorkloadSpec => ({
    ...base,
    classes,
    ...extra,
  });

  it("offers a class its own tools, none to a class without, and tools=0 takes the run's away", () => {
    const classes: TrafficClassSpec[] = [
      { name: 'agent', share: 0.5, tools: { count: 2, choice: 'required' } },
      { name: 'chat', share: 0.5 },
    ];
    const wl = createWorkload(spec(classes), { seed: 5, warmup: 0, requests: 100 });
    const items = Array.from({ length: 100 }, (_, i) => wl.item(i));
    for (const it of items.filter((x) => x.class === 'agent')) {
      expect(it.tools?.map((t) => t.name)).toEqual(['tool_0', 'tool_1']);
      expect(it.toolChoice).toBe('required');
    }
    for (const it of items.filter((x) => x.class === 'chat')) expect(it.tools).toBeUndefined();
    // The run offers 3 tools: a class without tools= keeps them, tools=0 drops them.
    const run = createWorkload(
      spec(
        [
          { name: 'a', share: 0.5 },
          { name: 'b', share: 0.5, tools: { count: 0 } },
        ],
        { tools: { count: 3 } },
      ),
      { seed: 5, warmup: 0, requests: 100, tools: syntheticTools(3) },
    );
    const all = Array.from({ length: 100 }, (_, i) => run.item(i));
    for (const it of all) expect(it.tools?.length).toBe(it.class === 'a' ? 3 : undefined);
  });

  it("draws a class's lengths from its empirical histogram once read, and refuses it unread", async () => {
    const classes: TrafficClassSpec[] = [
      { name: 'hist', share: 0.5, promptTokensDist: { kind: 'empirical', text: 'empirical:h.csv', mean: 0 } },
      { name: 'plain', share: 0.5, promptTokens: 50 },
    ];
    expect(() => createWorkload(spec(classes), { seed: 1, warmup: 0 })).toThrow(
      /empirical:h.csv is read before the run/,
    );
    const histogram = parseHistogramCsv('tokens,count\n30,1\n90,3\n', 'h.csv');
    const prompt = { ...parseLengthDist('empirical:h.csv', 'test'), histogram };
    const wl = createWorkload(spec(classes), {
      seed: 1,
      warmup: 0,
      requests: 400,
      classInputs: [{ lengths: { prompt } }, undefined],
    });
    const hist = Array.from({ length: 400 }, (_, i) => wl.item(i)).filter((it) => it.class === 'hist');
    expect(new Set(hist.map((it) => it.promptTokens))).toEqual(new Set([30, 90]));
    const long = hist.filter((it) => it.promptTokens === 90).length / hist.length;
    expect(long).toBeGreaterThan(0.6);
    expect(long).toBeLessThan(0.9);
  });

  it("deals sessions by their shares, each class with its own turns and tools, at the run's session arrivals", () => {
    const classes: TrafficClassSpec[] = [
      { name: 'chat', share: 0.6, sessions: { turns: { min: 1, max: 1 } } },
      { name: 'agent', share: 0.4, tools: { count: 1 }, sessions: { turns: { min: 3, max: 3 } } },
    ];
    const sessionSpec = spec(classes, { sessions: { turns: { min: 2, max: 2 } } });
    const wl = createWorkload(sessionSpec, { seed: 9, warmup: 2, rate: 4 });
    expect(wl.spec.classShareOf).toBe('sessions');
    const plain = createWorkload(
      { ...base, sessions: { turns: { min: 2, max: 2 } } },
      { seed: 9, warmup: 2, rate: 4 },
    );
    const counts = { chat: 0, agent: 0 };
    for (let s = 0; s < 200; s++) {
      const script = wl.sessions!.session(s);
      const first = script.request(0, [], s, false);
      const cls = first.class as 'chat' | 'agent';
      counts[cls]++;
      expect(script.turns).toBe(cls === 'chat' ? 1 : 3);
      expect(first.tools?.length).toBe(cls === 'agent' ? 1 : undefined);
      expect(wl.sessions!.startMs!(s)).toBe(plain.sessions!.startMs!(s));
    }
    expect(counts).toEqual({ chat: 120, agent: 80 });
    const later = wl.sessions!.session(0, 1).request(2, ['one', 'two'], 7, false);
    expect(later).toMatchObject({ class: 'agent', turn: 3, index: 7 });
    expect(later.tools?.[0]?.name).toBe('tool_0');
  });
});

describe('the closed loop: each class its share of the users', () => {
  it.each([
    [10, [0.7, 0.3], [7, 3]],
    [3, [0.5, 0.5], [2, 1]],
    [7, [0.55, 0.3, 0.15], [4, 2, 1]],
    [64, [0.7, 0.3], [45, 19]],
  ])('%i users over %j: %j', (users, shares, expected) => {
    const classes = shares.map((share, k) => ({ name: `c${k}`, share }));
    for (const seed of [1, 2]) {
      const dealt = dealUsers(seed, classes, users);
      expect(dealt.length).toBe(users);
      expect(shares.map((_, k) => dealt.filter((c) => c === k).length)).toEqual(expected);
    }
    // Seeded: the same seed deals the same users.
    expect(dealUsers(1, classes, users)).toEqual(dealUsers(1, classes, users));
  });

  it('refuses a class left without a user, naming the concurrency that gives it one', () => {
    expect(() =>
      dealUsers(
        1,
        [
          { name: 'big', share: 0.9 },
          { name: 'small', share: 0.1 },
        ],
        4,
      ),
    ).toThrow(/4 user\(s\) leave class small \(share 0.1\) without a user/);
    try {
      dealUsers(
        1,
        [
          { name: 'big', share: 0.9 },
          { name: 'small', share: 0.1 },
        ],
        4,
      );
    } catch (e) {
      expect((e as GoodputError).hint).toMatch(/at least 6/); // 5.4 / 0.6: the small class's remainder wins
    }
    expect(fewestUsers([0.9, 0.1])).toBe(6);
    expect(fewestUsers([0.5, 0.5])).toBe(2);
    expect(fewestUsers([0.7, 0.3])).toBe(2);
  });

  it('deals the requests, saying so, when the users are too few to give every class one', () => {
    const notes: string[] = [];
    const wl = createWorkload(
      { ...base, classes: two },
      { seed: 3, warmup: 0, requests: 100, users: 1, note: (t) => notes.push(t) },
    );
    expect(wl.userClass).toBeUndefined();
    expect(wl.spec.classShareOf).toBe('requests');
    expect(notes).toEqual([
      '1 user(s) cannot give each of the 2 classes one: their shares are of the requests in this run (of the users from 2 users on)',
    ]);
    const chat = Array.from({ length: 100 }, (_, i) => wl.item(i)).filter((it) => it.class === 'chat');
    expect(chat.length).toBe(70);
  });

  it("builds a user's items as its class's, whatever the index", () => {
    const wl = createWorkload({ ...base, classes: two }, { seed: 3, warmup: 0, users: 10 });
    expect(wl.spec.classShareOf).toBe('users');
    const classOf = Array.from({ length: 10 }, (_, u) => wl.userClass!(u));
    expect(classOf.filter((k) => k === 0).length).toBe(7);
    for (let i = 0; i < 50; i++) {
      expect(wl.item(i, 1)).toMatchObject({ class: 'batch', promptTokens: 300, index: i });
      expect(wl.item(i, 0)).toMatchObject({ class: 'chat', promptTokens: 28, index: i });
    }
    expect(createWorkload({ ...base, classes: two }, { seed: 3, warmup: 0 }).userClass).toBeUndefined();
  });
});
