/**
 * `--tokenizer FILE` end to end: a run against a loopback server that counts prompts the way
 * vLLM does (the model's chat template rendered with the generation prompt, then encoded
 * with the model's tokenizer, by the libraries directly) receives prompts of exactly
 * --prompt-tokens, so the server's prompt_tokens and the client's agree on every request,
 * and the summary names the tokenizer that counted. A bad tokenizer file is a usage error
 * before any request.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, RequestRecord, RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';
import { chatChunk, json, loopbacksClosedAfterEach, writeEvents } from './helpers/loopback.js';
import { CHATML_TEMPLATE, writeTokenizerFolder } from './helpers/tokenizer-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-tokenizer-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const startServer = loopbacksClosedAfterEach();
const tokenizerJson = writeTokenizerFolder(dir, 'tiny-model');

/** vLLM's count of a chat request: template with the generation prompt, no special tokens added on top. */
function serverCount(messages: ChatMessage[], kwargs: Record<string, unknown>): number {
  const config = JSON.parse(readFileSync(join(dirname(tokenizerJson), 'tokenizer_config.json'), 'utf8'));
  const hf = new HfTokenizer(JSON.parse(readFileSync(tokenizerJson, 'utf8')), config);
  const text = new Template(CHATML_TEMPLATE).render({
    messages,
    add_generation_prompt: true,
    bos_token: config.bos_token,
    eos_token: config.eos_token,
    ...kwargs,
  });
  return hf.encode(text, { add_special_tokens: false }).ids.length;
}

function readRecords(out: string): RequestRecord[] {
  return readFileSync(join(out, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as RequestRecord);
}

describe('--tokenizer FILE', () => {
  it('the server receives prompts of exactly --prompt-tokens in its own count; the summary names the tokenizer', async () => {
    const counts: number[] = [];
    const server = await startServer(async (req, res, body) => {
      if (req.url?.endsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'tiny' }] });
      const b = body as { messages: ChatMessage[]; chat_template_kwargs?: Record<string, unknown> };
      const prompt = serverCount(b.messages, b.chat_template_kwargs ?? {});
      counts.push(prompt);
      await writeEvents(res, [
        chatChunk({ content: ' a' }),
        chatChunk({ content: ' b' }),
        chatChunk({}, 'length', { prompt_tokens: prompt, completion_tokens: 2 }),
        '[DONE]',
      ]);
    });
    const out = join(dir, 'run');
    const r = await runCliInProcess(
      [
        'run',
        ...['--url', server.url, '--requests', '12', '-c', '3', '--max-tokens', '2', '--out', out, '--quiet'],
        ...['--tokenizer', 'tiny-model', '--prompt-tokens', '200', '--system-prompt-tokens', '50'],
        // The server renders its template with these: the count does too.
        ...['--extra-body', '{"chat_template_kwargs": {"enable_thinking": false}}'],
      ],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(counts).toHaveLength(12);
    expect(new Set(counts)).toEqual(new Set([250]));
    const records = readRecords(out);
    expect(records).toHaveLength(12);
    for (const rec of records) {
      expect(rec.promptTokens).toBe(250);
      expect(rec.serverPromptTokens).toBe(250);
    }
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
    const sha = createHash('sha256').update(readFileSync(tokenizerJson)).digest('hex');
    expect(summary.meta.workload.tokenizer).toBe(`hf:tiny-model@${sha.slice(0, 12)}`);
    expect(summary.meta.workload.tokenizerFile).toMatchObject({
      path: tokenizerJson,
      sha256: sha,
      chatTemplate: { source: join(dirname(tokenizerJson), 'tokenizer_config.json') },
    });
    expect(summary.counts.promptTokenMismatch).toBe(0);
  }, 60_000);

  it('the default o200k count would disagree with the same server (the check can fail)', async () => {
    const server = await startServer(async (req, res, body) => {
      if (req.url?.endsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'tiny' }] });
      const prompt = serverCount((body as { messages: ChatMessage[] }).messages, {});
      await writeEvents(res, [
        chatChunk({ content: ' a' }),
        chatChunk({}, 'length', { prompt_tokens: prompt, completion_tokens: 1 }),
        '[DONE]',
      ]);
    });
    const out = join(dir, 'o200k');
    const r = await runCliInProcess(
      [
        'run',
        '--url',
        server.url,
        '--requests',
        '3',
        '--max-tokens',
        '1',
        '--prompt-tokens',
        '64',
        '--out',
        out,
        '--quiet',
      ],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readRecords(out).every((rec) => rec.serverPromptTokens !== rec.promptTokens)).toBe(true);
  }, 60_000);

  it.each([
    [['--tokenizer', 'missing/tokenizer.json'], 'cannot read --tokenizer'],
    [['--tokenizer', '/dev/zero'], 'is not a regular file'],
    [['--chat-template', 'x.jinja'], '--chat-template needs --tokenizer FILE'],
    [['--tokenizer', 'tiny-model', '--prompt-tokens', '5'], 'leave no room'],
  ])(
    '%j: exit 2 with a hint, no request sent',
    async (flags, message) => {
      const server = await startServer((_q, res) => json(res, 500, {}));
      const r = await runCliInProcess(
        ['run', '--url', server.url, '--model', 'm', '--requests', '2', ...flags],
        {
          cwd: dir,
        },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toMatch(/hint: /);
      expect(server.requests.filter((q) => q.method === 'POST')).toHaveLength(0);
    },
    30_000,
  );
});
