import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { loadDataset } from './dataset.js';

const tmp = () => mkdtemp(join(tmpdir(), 'goodput-dataset-formats-'));
const jsonl = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

async function written(name: string, data: string | Uint8Array): Promise<string> {
  const path = join(await tmp(), name);
  await writeFile(path, data);
  return path;
}

async function rejection(path: string): Promise<GoodputError> {
  const e = await loadDataset(path).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(GoodputError);
  return e as GoodputError;
}

// The OpenAI Batch API's input file: one request per line.
const batch = (body: object, url = '/v1/chat/completions', id = 'request-1') => ({
  custom_id: id,
  method: 'POST',
  url,
  body,
});

describe('OpenAI batch input JSONL', () => {
  it('reads chat, completions and Responses requests with their output limits', async () => {
    const path = await written(
      'batchinput.jsonl',
      jsonl([
        batch({
          model: 'gpt-4o-mini',
          messages: [
            { role: 'developer', content: 'Be brief.' },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Hello' },
                { type: 'text', text: 'world' },
              ],
            },
          ],
          max_tokens: 40,
        }),
        batch({ model: 'm', prompt: 'Once upon a time', max_completion_tokens: 12 }, '/v1/completions', 'r2'),
        batch({ model: 'm', input: 'Summarise this.', max_output_tokens: 7 }, '/v1/responses', 'r3'),
      ]),
    );
    const ds = await loadDataset(path);
    expect(ds.format).toBe('openai-batch');
    expect(ds.entries).toHaveLength(3);
    expect(ds.entries[0]).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello\nworld' },
      ],
      outputTokens: 40,
    });
    expect(ds.entries[1]).toMatchObject({ prompt: 'Once upon a time', outputTokens: 12 });
    expect(ds.entries[2]).toMatchObject({ prompt: 'Summarise this.', outputTokens: 7 });
  });

  it.each([
    [batch({ model: 'm' }), 'field "body.messages": missing'],
    [
      batch({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }),
      'field "body.messages[0].content[0].type": only text parts are read, got "image_url"',
    ],
    [
      batch({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 0 }),
      'field "body.max_tokens": expected a whole number ≥ 1, got 0',
    ],
    [{ custom_id: 'x', body: 'nope' }, 'field "body": expected an object, got string'],
  ])('a malformed line is an error naming the file, line and field (%#)', async (bad, message) => {
    const good = batch({ messages: [{ role: 'user', content: 'hi' }] });
    const e = await rejection(await written('batch.jsonl', jsonl([good, bad])));
    expect(e.code).toBe('E_DATASET');
    expect(e.message).toContain('batch.jsonl:2: ');
    expect(e.message).toContain(message);
    expect(e.hint).toContain('custom_id');
  });
});

describe('Hugging Face datasets export (JSONL)', () => {
  it('takes the first prompt column there is, and a reply column as the output length', async () => {
    const path = await written(
      'train.jsonl',
      jsonl([
        { instruction: 'Translate to French', input: 'good morning', output: 'bonjour' },
        { question: 'What is 2+2?', answer: 'four' },
        {
          conversations: [
            { from: 'system', value: 'You help.' },
            { from: 'human', value: 'Hi there' },
            { from: 'gpt', value: 'Hello!' },
            { from: 'human', value: 'Bye' },
          ],
        },
        {
          messages: [
            { role: 'user', content: 'Tell me a joke' },
            { role: 'assistant', content: 'No.' },
          ],
        },
        { text: 'Plain text row', max_tokens: 9 },
        { conversations: [{ from: 'gpt', value: 'no user turn' }] },
      ]),
    );
    const ds = await loadDataset(path);
    expect(ds.format).toBe('hf-jsonl');
    expect(ds.entries.map((e) => e.prompt)).toEqual([
      'Translate to French\n\ngood morning',
      'What is 2+2?',
      'Hi there',
      'Tell me a joke',
      'Plain text row',
    ]);
    expect(ds.entries.map((e) => e.reply)).toEqual(['bonjour', 'four', 'Hello!', 'No.', undefined]);
    expect(ds.entries[2]!.conversation).toMatchObject({
      system: 'You help.',
      turns: [{ user: 'Hi there' }, { user: 'Bye' }],
    });
    expect(ds.entries[4]!.outputTokens).toBe(9);
    expect(ds.skipped).toBe(1);
  });

  it.each([
    [{ title: 'no prompt column' }, 'none of the prompt columns'],
    [{ question: 42 }, 'field "question": expected a string, got number'],
    [
      { messages: [{ role: 'robot', content: 'x' }] },
      'field "messages[0].role": expected "system", "user" or "assistant", got "robot"',
    ],
  ])('a malformed row is an error naming the file, line and field (%#)', async (bad, message) => {
    const e = await rejection(await written('hf.jsonl', jsonl([{ question: 'ok?' }, bad])));
    expect(e.code).toBe('E_DATASET');
    expect(e.message).toContain('hf.jsonl:2: ');
    expect(e.message).toContain(message);
  });
});

describe('Hugging Face datasets export (Parquet, read with hyparquet)', () => {
  it('reads the prompt, reply and length columns, recognised by its magic bytes', async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: [1, 2, 3], type: 'INT32' },
        {
          name: 'question',
          data: ['Why is the sky blue?', 'Name a prime.', 'Define entropy.'],
          type: 'STRING',
        },
        { name: 'answer', data: ['Rayleigh scattering.', '7', 'Disorder.'], type: 'STRING' },
        { name: 'max_tokens', data: [BigInt(30), BigInt(4), BigInt(16)], type: 'INT64' },
      ],
    });
    const path = await written('train-00000-of-00001.parquet', new Uint8Array(buffer));
    const ds = await loadDataset(path);
    expect(ds.format).toBe('hf-parquet');
    expect(ds.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(ds.entries).toEqual([
      { prompt: 'Why is the sky blue?', reply: 'Rayleigh scattering.', outputTokens: 30 },
      { prompt: 'Name a prime.', reply: '7', outputTokens: 4 },
      { prompt: 'Define entropy.', reply: 'Disorder.', outputTokens: 16 },
    ]);
  });

  it('a bad row names the file, the row and the field; a file without a prompt column or not Parquet is refused', async () => {
    const bad = parquetWriteBuffer({
      columnData: [
        { name: 'prompt', data: ['fine', 'also fine'], type: 'STRING' },
        { name: 'max_tokens', data: [5, -1], type: 'INT32' },
      ],
    });
    const e = await rejection(await written('bad.parquet', new Uint8Array(bad)));
    expect(e.message).toContain(
      'bad.parquet: row 2: field "max_tokens": expected a whole number ≥ 1, got -1',
    );
    const none = parquetWriteBuffer({ columnData: [{ name: 'label', data: [1], type: 'INT32' }] });
    expect((await rejection(await written('none.parquet', new Uint8Array(none)))).message).toContain(
      'none of the prompt columns',
    );
    const broken = await rejection(await written('broken.parquet', 'PAR1 this is not parquet PAR1'));
    expect(broken.code).toBe('E_DATASET');
    expect(broken.message).toContain('not a Parquet file goodput can read');
  });
});
