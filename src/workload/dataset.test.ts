import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { detectDatasetFormat, loadDataset, parseJsonlDataset, parseShareGptDataset } from './dataset.js';

function errorOf(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GoodputError) return e;
    throw e;
  }
  throw new Error('expected a GoodputError');
}

describe('parseJsonlDataset', () => {
  test('reads prompt and messages lines, output lengths, and skips blank lines', () => {
    const text = [
      '{"prompt": "Tell me a story", "max_tokens": 64}',
      '',
      '{"messages": [{"role": "system", "content": "Be brief"}, {"role": "user", "content": "Hi"}], "output_tokens": 5}',
      '  {"prompt": "No limit", "id": "extra fields are fine"}  ',
      '',
    ].join('\n');
    expect(parseJsonlDataset(text, 'd.jsonl')).toEqual([
      { prompt: 'Tell me a story', outputTokens: 64 },
      {
        messages: [
          { role: 'system', content: 'Be brief' },
          { role: 'user', content: 'Hi' },
        ],
        outputTokens: 5,
        conversation: { source: 'd.jsonl:3', system: 'Be brief', turns: [{ user: 'Hi' }] },
      },
      { prompt: 'No limit' },
    ]);
  });

  test.each([
    ['{"prompt": "ok"}\n{"prompt": 42}', 'd.jsonl:2', 'prompt', 'expected string, got number'],
    ['{"prompt": "ok"}\n\n{"text": "hi"}', 'd.jsonl:3', 'prompt', 'missing'],
    ['{"messages": "hi"}', 'd.jsonl:1', 'messages', 'expected array, got string'],
    ['{"messages": []}', 'd.jsonl:1', 'messages', 'is empty'],
    ['{"messages": [{"role": "bot", "content": "x"}]}', 'd.jsonl:1', 'messages[0].role', '"bot"'],
    [
      '{"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]}',
      'd.jsonl:1',
      'messages[0].content',
      'expected string, got array',
    ],
    ['{"prompt": "x", "max_tokens": 0}', 'd.jsonl:1', 'max_tokens', 'whole number'],
    ['{"prompt": "x", "output_tokens": "5"}', 'd.jsonl:1', 'output_tokens', 'got string'],
    ['{"prompt": "x"}\n{"prompt": "y",}', 'd.jsonl:2', undefined, 'not valid JSON'],
    ['["a list"]', 'd.jsonl:1', undefined, 'expected an object, got array'],
  ])('%j fails at %s, field %s', (text, where, field, problem) => {
    const err = errorOf(() => parseJsonlDataset(text, 'd.jsonl'));
    expect(err.code).toBe('E_DATASET');
    expect(err.message.startsWith(`${where}:`)).toBe(true);
    if (field) expect(err.message).toContain(`field "${field}"`);
    expect(err.message).toContain(problem);
    expect(err.hint.length).toBeGreaterThan(10);
  });
});

describe('parseShareGptDataset', () => {
  test('first human turn is the prompt, the reply after it the reference output', () => {
    const data = [
      {
        id: 'a',
        conversations: [
          { from: 'human', value: 'What is KV cache?' },
          { from: 'gpt', value: 'A cache of keys and values.' },
          { from: 'human', value: 'More?' },
        ],
      },
      { id: 'b', conversations: [{ from: 'human', value: 'Only a question' }] },
      { id: 'c', conversations: [] },
      {
        id: 'd',
        conversations: [
          { from: 'system', value: 'sys' },
          { from: 'human', value: 'Second' },
          { from: 'gpt', value: 'Reply' },
        ],
      },
    ];
    expect(parseShareGptDataset(JSON.stringify(data), 's.json')).toEqual({
      entries: [
        {
          prompt: 'What is KV cache?',
          reply: 'A cache of keys and values.',
          conversation: {
            source: 's.json: entry [0]',
            turns: [{ user: 'What is KV cache?', reply: 'A cache of keys and values.' }, { user: 'More?' }],
          },
        },
        {
          prompt: 'Second',
          reply: 'Reply',
          conversation: {
            source: 's.json: entry [3]',
            system: 'sys',
            turns: [{ user: 'Second', reply: 'Reply' }],
          },
        },
      ],
      skipped: 2,
    });
  });

  test.each([
    ['{"conversations": []}', 'expected a JSON array'],
    [
      '[{"conversations": []}, {"conversation": []}]',
      'entry [1]: field "conversations": expected array, got missing',
    ],
    [
      '[{"conversations": [{"from": "human", "value": 3}]}]',
      'entry [0]: field "conversations[0].value": expected string',
    ],
    ['[{"conversations": [{"value": "x"}]}]', 'field "conversations[0].from"'],
    ['[1]', 'entry [0]: expected an object, got number'],
    ['[{"conversations": [', 'not valid JSON'],
  ])('%j fails naming %s', (text, expected) => {
    const err = errorOf(() => parseShareGptDataset(text, 's.json'));
    expect(err.code).toBe('E_DATASET');
    expect(err.message).toContain('s.json');
    expect(err.message).toContain(expected);
  });
});

describe('detectDatasetFormat', () => {
  test.each([
    ['  [ {"conversations": []} ]', 'sharegpt'],
    ['{"prompt": "x"}\n', 'jsonl'],
    ['', 'jsonl'],
  ])('%j is %s', (text, format) => expect(detectDatasetFormat(text)).toBe(format));
});

describe('loadDataset', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'goodput-dataset-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('JSONL: entries, format and the sha256 of the bytes', async () => {
    const path = join(dir, 'p.jsonl');
    const text = '{"prompt": "a"}\n{"prompt": "b", "max_tokens": 3}\n';
    await writeFile(path, text);
    const ds = await loadDataset(path);
    expect(ds.format).toBe('jsonl');
    expect(ds.path).toBe(path);
    expect(ds.entries).toHaveLength(2);
    expect(ds.count).toBe(2);
    expect(ds.sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });

  test('ShareGPT is detected from the content', async () => {
    const path = join(dir, 'share.json');
    await writeFile(
      path,
      JSON.stringify([
        {
          conversations: [
            { from: 'human', value: 'q' },
            { from: 'gpt', value: 'r' },
          ],
        },
      ]),
    );
    const ds = await loadDataset(path);
    expect(ds.format).toBe('sharegpt');
    expect(ds.entries).toEqual([
      {
        prompt: 'q',
        reply: 'r',
        conversation: { source: `${path}: entry [0]`, turns: [{ user: 'q', reply: 'r' }] },
      },
    ]);
  });

  test('a malformed ShareGPT file is an E_DATASET error naming the file, the entry and the field', async () => {
    const path = join(dir, 'bad-share.json');
    const good = { conversations: [{ from: 'human', value: 'q' }] };
    await writeFile(
      path,
      JSON.stringify([good, good, { conversations: [{ from: 'human', value: 7 }] }], null, 2),
    );
    await expect(loadDataset(path)).rejects.toMatchObject({
      code: 'E_DATASET',
      message: expect.stringMatching(
        /bad-share\.json.*entry \[2\].*field "conversations\[0\]\.value": expected string/,
      ),
    });
    const cut = join(dir, 'cut-share.json');
    await writeFile(cut, JSON.stringify([good, good]).slice(0, -3));
    await expect(loadDataset(cut)).rejects.toMatchObject({
      code: 'E_DATASET',
      message: expect.stringMatching(/cut-share\.json.*not valid JSON/),
    });
  });

  test('a missing file, an empty file and a bad line are E_DATASET errors naming the file', async () => {
    const missing = join(dir, 'nope.jsonl');
    await expect(loadDataset(missing)).rejects.toMatchObject({
      code: 'E_DATASET',
      message: expect.stringContaining(missing),
    });
    const empty = join(dir, 'empty.jsonl');
    await writeFile(empty, '\n\n');
    await expect(loadDataset(empty)).rejects.toMatchObject({
      code: 'E_DATASET',
      message: expect.stringContaining('no usable'),
    });
    const bad = join(dir, 'bad.jsonl');
    await writeFile(bad, '{"prompt": "ok"}\n{"prompt": null}\n');
    await expect(loadDataset(bad)).rejects.toMatchObject({
      code: 'E_DATASET',
      message: `${bad}:2: field "prompt": expected string, got null`,
    });
  });
});
