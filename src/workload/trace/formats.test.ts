import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GoodputError } from '../../errors.js';
import { conversationAffinityId } from '../affinity.js';
import { createTokenizer } from '../tokenizer.js';
import { createWorkload } from '../workload.js';
import { loadTrace } from './load.js';
import { traceReplay } from './replay.js';
import { entryHashIds } from './trace.js';

const tmp = () => mkdtemp(join(tmpdir(), 'goodput-trace-formats-'));

async function written(name: string, text: string): Promise<string> {
  const path = join(await tmp(), name);
  await writeFile(path, text);
  return path;
}

async function rejection(path: string): Promise<GoodputError> {
  const e = await loadTrace(path).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(GoodputError);
  return e as GoodputError;
}

// Header and cells as HPMLL/BurstGPT's data/BurstGPT_*.csv (Timestamp in seconds from the first day).
const BURSTGPT = [
  'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type',
  '5,ChatGPT,472,18,490,Conversation log',
  '45,ChatGPT,1087,0,1087,Conversation log',
  '118,GPT-4,417,38,455,API log',
].join('\n');

// Records as alibaba-edu/qwen-bailian-usagetraces-anon's qwen_*_blksz_16.jsonl.
const bailian = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');
const BAILIAN = bailian([
  {
    chat_id: 7,
    parent_chat_id: -1,
    timestamp: 0.5,
    input_length: 40,
    output_length: 12,
    type: 'text',
    turn: 1,
    hash_ids: [1, 2, 3],
  },
  {
    chat_id: 9,
    parent_chat_id: -1,
    timestamp: 1.25,
    input_length: 20,
    output_length: 5,
    type: 'search',
    turn: 1,
    hash_ids: [1, 4],
  },
  {
    chat_id: 12,
    parent_chat_id: 7,
    timestamp: 3,
    input_length: 70,
    output_length: 8,
    type: 'text',
    turn: 2,
    hash_ids: [1, 2, 3, 5, 6],
  },
  {
    chat_id: 15,
    parent_chat_id: 12,
    timestamp: 4.5,
    input_length: 90,
    output_length: 3,
    type: 'text',
    turn: 3,
    hash_ids: [1, 2, 3, 5, 6, 7],
  },
]);

describe('BurstGPT CSV traces', () => {
  it('is recognised from its header; seconds become ms; failed requests (0 response tokens) are kept', async () => {
    const t = await loadTrace(await written('BurstGPT_1.csv', BURSTGPT));
    expect(t.format).toBe('burstgpt');
    expect([...t.offsetMs]).toEqual([0, 40_000, 113_000]);
    expect([...t.input]).toEqual([472, 1087, 417]);
    expect([...t.output]).toEqual([18, 0, 38]);
    expect(t.columns).toBeUndefined();
  });

  it.each([
    ['1,ChatGPT,x,18,490,Conversation log', ':2: field "Request tokens": expected a whole number, got "x"'],
    [
      '5,ChatGPT,12,18,30,API log\n4,ChatGPT,12,18,30,API log',
      ':3: field "Timestamp": timestamp 4000 goes back',
    ],
    [',ChatGPT,12,18,30,API log', ':2: field "Timestamp": expected a number, got missing'],
  ])('a malformed line is an error naming the file, line and field: %s', async (lines, message) => {
    const header = BURSTGPT.split('\n')[0]!;
    const e = await rejection(await written('burst.csv', `${header}\n${lines}\n`));
    expect(e.code).toBe('E_DATASET');
    expect(e.message).toContain(`burst.csv${message}`);
    expect(e.hint).toContain('Timestamp,Model,Request tokens');
  });
});

describe('Bailian JSONL traces', () => {
  it('is recognised by chat_id and parent_chat_id; seconds become ms; follow-ups join their conversation', async () => {
    const t = await loadTrace(await written('qwen_traceA_blksz_16.jsonl', BAILIAN));
    expect(t.format).toBe('bailian');
    expect([...t.offsetMs]).toEqual([0, 750, 2500, 4000]);
    expect([...t.input]).toEqual([40, 20, 70, 90]);
    expect([...entryHashIds(t, 3)]).toEqual([1, 2, 3, 5, 6, 7]);
    // Chats 7 → 12 → 15 are one conversation, 9 another.
    expect(t.sessions).toBe(2);
    expect(t.blockSize).toBe(16);
  });

  it("each request of one conversation carries that conversation's session-affinity id; a trace without sessions none", async () => {
    const t = await loadTrace(await written('conv.jsonl', BAILIAN));
    expect([...t.conversation!]).toEqual([1, 2, 1, 1]);
    const tokenizer = createTokenizer();
    const spec = { kind: 'trace', api: 'chat', maxTokens: 8, tokenizer: 'o200k_base' } as const;
    const wl = createWorkload(spec, { seed: 3, warmup: 1, tokenizer, trace: { trace: t, timeScale: 1 } });
    // The warmup request is no conversation's; measured entries 0, 2 and 3 are chat 7's conversation.
    expect(wl.item(0).affinityId).toBeUndefined();
    const ids = [1, 2, 3, 4].map((i) => wl.item(i).affinityId);
    expect(ids).toEqual([
      conversationAffinityId(3, 't-1'),
      conversationAffinityId(3, 't-2'),
      conversationAffinityId(3, 't-1'),
      conversationAffinityId(3, 't-1'),
    ]);
    expect(ids[0]).not.toBe(ids[1]);
    const plain = await loadTrace(await written('BurstGPT_2.csv', BURSTGPT));
    expect(plain.conversation).toBeUndefined();
    const single = createWorkload(spec, {
      seed: 3,
      warmup: 0,
      tokenizer,
      trace: { trace: plain, timeScale: 1 },
    });
    expect(single.item(0).affinityId).toBeUndefined();
  });

  it('replays with 16-token blocks unless --trace-block-size says otherwise: shared blocks give shared text', async () => {
    const t = await loadTrace(await written('b.jsonl', BAILIAN));
    const tokenizer = createTokenizer();
    const replay = traceReplay({ trace: t, timeScale: 1 }, tokenizer, 1);
    expect(replay.spec).toMatchObject({ format: 'bailian', blockSize: 16, entries: 4 });
    const first = replay.request(0, 0).prompt;
    const third = replay.request(2, 0).prompt;
    expect(tokenizer.count(first)).toBe(40);
    expect(tokenizer.count(third)).toBe(70);
    // Hash ids 1, 2, 3: the first 48 tokens of the follow-up are the first request's.
    const words = (s: string) => s.split(' ');
    expect(words(third).slice(0, 40).join(' ')).toBe(words(first).slice(0, 40).join(' '));
    expect(traceReplay({ trace: t, timeScale: 1, blockSize: 8 }, tokenizer, 1).spec.blockSize).toBe(8);
  });

  it.each([
    [
      { parent_chat_id: -1, timestamp: 0, input_length: 4, output_length: 1 },
      'field "chat_id": expected a whole number, got missing',
    ],
    [
      { chat_id: 1, parent_chat_id: 'x', timestamp: 0, input_length: 4, output_length: 1 },
      'field "parent_chat_id": expected a whole number, got "x"',
    ],
    [
      { chat_id: 1, parent_chat_id: -1, timestamp: 0, input_length: 4, output_length: 1, hash_ids: [1, -2] },
      'field "hash_ids[1]": expected a whole number ≥ 0, got -2',
    ],
  ])('a malformed line is an error naming the file, line and field', async (line, message) => {
    const text = `${BAILIAN.split('\n')[0]}\n${JSON.stringify(line)}\n`;
    const e = await rejection(await written('bad.jsonl', text));
    expect(e.code).toBe('E_DATASET');
    expect(e.message).toContain('bad.jsonl:2:');
    expect(e.message).toContain(message);
    expect(e.hint).toContain('parent_chat_id');
  });
});

describe('Azure LLM inference traces (Azure/AzurePublicDataset)', () => {
  it('reads the 2023/2024 header TIMESTAMP,ContextTokens,GeneratedTokens with date-time stamps', async () => {
    const t = await loadTrace(
      await written(
        'AzureLLMInferenceTrace_conv.csv',
        'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n',
      ),
    );
    expect(t.format).toBe('azure');
    expect(t.offsetMs[1]).toBeCloseTo(4314.579, 3);
    const e = await rejection(
      await written('azure.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374,-1\n'),
    );
    expect(e.message).toContain('azure.csv:2: field "GeneratedTokens"');
  });
});
