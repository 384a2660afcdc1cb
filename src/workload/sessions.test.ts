import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import type { WorkloadSpec } from '../types.js';
import { conversationAffinityId } from './affinity.js';
import { parseJsonlDataset, parseShareGptDataset } from './dataset.js';
import { createTokenizer, promptText } from './tokenizer.js';
import { createWorkload } from './workload.js';

const tokenizer = createTokenizer();

const synthetic: WorkloadSpec = {
  kind: 'synthetic',
  api: 'chat',
  promptTokens: 60,
  maxTokens: 16,
  tokenizer: 'o200k_base',
  systemPromptTokens: 30,
  sessions: { turns: { min: 2, max: 5 }, turnTokens: 12, thinkTime: { meanMs: 1000, dist: 'exponential' } },
};

describe('synthetic sessions', () => {
  const wl = createWorkload(synthetic, { seed: 4, warmup: 0, tokenizer });
  const source = wl.sessions!;

  it('turns within the range, a shared system prompt, exact prompt tokens with the history', () => {
    const counts = new Set<number>();
    for (let s = 0; s < 40; s++) counts.add(source.session(s).turns);
    expect([...counts].sort()).toEqual([2, 3, 4, 5]);
    const script = source.session(3);
    const replies = [' the first reply', ' and the second one'];
    const t3 = script.request(2, replies, 17, false);
    expect(t3).toMatchObject({ index: 17, id: 'r-000018', sessionId: 's-000004', turn: 3, maxTokens: 16 });
    expect(t3.messages!.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(t3.messages!.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(replies);
    expect(t3.messages![0]!.content).toBe(source.session(9).request(0, [], 0, false).messages![0]!.content);
    // Each part counted once and summed: the whole text counts the same.
    expect(t3.promptTokens).toBe(tokenizer.count(promptText(t3)));
    expect(tokenizer.count(t3.messages![1]!.content)).toBe(60);
    expect(tokenizer.count(t3.messages![3]!.content)).toBe(12);
    // Turn 3 extends turn 2 exactly (the prefix a server caches).
    const t2 = script.request(1, replies.slice(0, 1), 16, false);
    expect(t3.messages!.slice(0, 5)).toEqual([...t2.messages!, { role: 'assistant', content: replies[1] }]);
  });

  it('is deterministic in any order of asking, and sessions differ after the system prompt', () => {
    const again = createWorkload(synthetic, { seed: 4, warmup: 0, tokenizer }).sessions!;
    const a = [5, 1, 3].map((s) => again.session(s).request(0, [], 0, false).messages);
    const b = [5, 1, 3]
      .reverse()
      .map((s) => source.session(s).request(0, [], 0, false).messages)
      .reverse();
    expect(a).toEqual(b);
    expect(a[0]![1]!.content).not.toBe(a[1]![1]!.content);
    expect(source.warmup(0).request(0, [], 0, true).messages![1]!.content).not.toBe(a[1]![1]!.content);
  });

  it('think times: exponential with the given mean, fixed when asked', () => {
    let sum = 0;
    const n = 2000;
    for (let s = 0; s < n; s++) sum += source.session(s).thinkMs(1);
    expect(sum / n).toBeGreaterThan(900);
    expect(sum / n).toBeLessThan(1100);
    const fixed = createWorkload(
      { ...synthetic, sessions: { thinkTime: { meanMs: 750, dist: 'fixed' } } },
      { seed: 1, warmup: 0, tokenizer },
    ).sessions!;
    expect(fixed.session(0).thinkMs(1)).toBe(750);
    expect(fixed.session(0).turns).toBe(1);
  });

  it('the completions API gets the whole conversation as one prompt', () => {
    const wlc = createWorkload({ ...synthetic, api: 'completions' }, { seed: 4, warmup: 0, tokenizer });
    const chat = source.session(0).request(1, [' ok'], 1, false);
    const comp = wlc.sessions!.session(0).request(1, [' ok'], 1, false);
    expect(comp.prompt).toBe(chat.messages!.map((m) => m.content).join(''));
    expect(comp.promptTokens).toBe(chat.promptTokens);
  });
});

const datasetSpec: WorkloadSpec = {
  kind: 'dataset',
  api: 'chat',
  maxTokens: 64,
  tokenizer: 'o200k_base',
  sessions: {},
};

describe('dataset sessions', () => {
  it('a ShareGPT file with multi-turn conversations yields all turns as sessions', () => {
    const { entries } = parseShareGptDataset(
      JSON.stringify([
        {
          conversations: [
            { from: 'system', value: 'You are terse.' },
            { from: 'human', value: 'What is a KV cache?' },
            { from: 'gpt', value: 'Keys and values kept per token.' },
            { from: 'human', value: 'Why page it?' },
            { from: 'gpt', value: 'To avoid fragmentation.' },
            { from: 'human', value: 'Thanks.' },
          ],
        },
      ]),
      'chat.json',
    );
    const wl = createWorkload(datasetSpec, { seed: 1, warmup: 0, dataset: entries, tokenizer });
    const s = wl.sessions!.session(0);
    expect(s.turns).toBe(3);
    const last = s.request(2, [' server one', ' server two'], 2, false);
    expect(last.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'What is a KV cache?' },
      { role: 'assistant', content: ' server one' },
      { role: 'user', content: 'Why page it?' },
      { role: 'assistant', content: ' server two' },
      { role: 'user', content: 'Thanks.' },
    ]);
    // Output lengths from the dataset's replies; the last turn has none, so --max-tokens.
    expect(s.request(0, [], 0, false).maxTokens).toBe(tokenizer.count('Keys and values kept per token.'));
    expect(s.request(1, [' a'], 1, false).maxTokens).toBe(tokenizer.count('To avoid fragmentation.'));
    expect(last.maxTokens).toBe(64);
  });

  it('OpenAI messages JSONL replays turn by turn; a conversation trace synthesises exact user turns', () => {
    const entries = parseJsonlDataset(
      [
        '{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello there"}, {"role": "user", "content": "Bye"}]}',
        '{"turns": [{"input_tokens": 40, "output_tokens": 7}, {"input_tokens": 9, "output_tokens": 3, "delay_ms": 1500}]}',
      ].join('\n'),
      'c.jsonl',
    );
    const wl = createWorkload(datasetSpec, {
      seed: 1,
      warmup: 0,
      dataset: entries,
      tokenizer,
      shuffle: false,
    });
    const chat = wl.sessions!.session(0);
    expect(chat.turns).toBe(2);
    expect(chat.request(1, [' yo'], 1, false).messages!.map((m) => m.content)).toEqual(['Hi', ' yo', 'Bye']);
    const trace = wl.sessions!.session(1);
    expect(trace.turns).toBe(2);
    const t2 = trace.request(1, [' r'], 3, false);
    expect(tokenizer.count(t2.messages![0]!.content)).toBe(40);
    expect(tokenizer.count(t2.messages![2]!.content)).toBe(9);
    expect(t2.promptTokens).toBe(40 + tokenizer.count(' r') + 9);
    expect([trace.request(0, [], 2, false).maxTokens, t2.maxTokens]).toEqual([7, 3]);
    expect(trace.thinkMs(1)).toBe(1500);
  });

  it('bad conversations are errors naming the line and the field', () => {
    const noUser = parseJsonlDataset(
      '{"prompt": "fine"}\n{"messages": [{"role": "system", "content": "only a system prompt"}]}',
      'd.jsonl',
    );
    const err = (() => {
      try {
        createWorkload(datasetSpec, { seed: 1, warmup: 0, dataset: noUser, tokenizer });
      } catch (e) {
        return e as GoodputError;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect(err!.message).toBe('d.jsonl:2: field "messages": no user turn, so there is no session to replay');
    for (const [line, field, problem] of [
      ['{"turns": []}', 'turns', 'is empty'],
      [
        '{"turns": [{"input_tokens": 5}]}',
        'turns[0].output_tokens',
        'expected a whole number ≥ 1, got missing',
      ],
      ['{"turns": [{"input_tokens": -3, "output_tokens": 2}]}', 'turns[0].input_tokens', 'got -3'],
      [
        '{"turns": [{"input_tokens": 3, "output_tokens": 2, "delay_ms": "soon"}]}',
        'turns[0].delay_ms',
        'got string',
      ],
    ] as const) {
      expect(() => parseJsonlDataset(`{"prompt": "ok"}\n${line}`, 't.jsonl')).toThrow(
        new RegExp(`^t\\.jsonl:2: field "${field.replace(/[[\]]/g, '\\$&')}": .*${problem}`),
      );
    }
  });

  it('a conversation trace without --sessions is refused with the fix', () => {
    const entries = parseJsonlDataset('{"turns": [{"input_tokens": 4, "output_tokens": 2}]}', 'c.jsonl');
    expect(() =>
      createWorkload(
        { ...datasetSpec, sessions: undefined },
        { seed: 1, warmup: 0, dataset: entries, tokenizer },
      ),
    ).toThrow(/c\.jsonl:1: a conversation trace/);
  });
});

describe('session turns carry their conversation affinity id', () => {
  it('every turn of a session the same, every session and warmup session its own; single requests none', () => {
    const spec = {
      kind: 'synthetic',
      api: 'chat',
      promptTokens: 16,
      maxTokens: 4,
      tokenizer: 'o200k_base',
      sessions: { turns: { min: 3, max: 3 } },
    } as const;
    const wl = createWorkload(spec, { seed: 42, warmup: 1, tokenizer });
    const ids = [wl.sessions!.warmup(0), wl.sessions!.session(0), wl.sessions!.session(1)].map((script) => {
      const turns = [0, 1, 2].map((t) => script.request(t, ['a', 'b'].slice(0, t), t, false).affinityId);
      expect(new Set(turns).size).toBe(1);
      return turns[0];
    });
    expect(ids).toEqual([
      conversationAffinityId(42, 'w-000001'),
      conversationAffinityId(42, 's-000001'),
      conversationAffinityId(42, 's-000002'),
    ]);
    expect(new Set(ids).size).toBe(3);
    const single = createWorkload({ ...spec, sessions: undefined }, { seed: 42, warmup: 0, tokenizer });
    expect(single.item(0).affinityId).toBeUndefined();
  });
});
