/**
 * Session turns with a model's own tokenizer (--tokenizer FILE): every turn's promptTokens is
 * the whole conversation so far rendered through the chat template, as the server counts it.
 * Counted by hand here (the WordLevel ChatML fixture: a special token is one, every word or
 * punctuation run is one), not with the tokenizer library; the byte-level BPE fixture is
 * checked against the libraries used directly, as the server uses them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { afterAll, describe, expect, test } from 'vitest';
import {
  CHATML_TEMPLATE,
  countWordLevelChatml,
  writeTokenizerFolder,
} from '../../test/helpers/tokenizer-fixture.js';
import type { ChatMessage, WorkItem, WorkloadSpec } from '../types.js';
import { parseJsonlDataset } from './dataset.js';
import { createTokenizer, promptText } from './tokenizer.js';
import { resolveTokenizer } from './tokenizer-file.js';
import { createWorkload } from './workload.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-session-tok-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const wordsPath = writeTokenizerFolder(dir, 'words-chatml', 'wordlevel-chatml');
const bpePath = writeTokenizerFolder(dir, 'bpe-chatml');

const render = (messages: readonly ChatMessage[]) =>
  new Template(CHATML_TEMPLATE).render({ messages, add_generation_prompt: true, bos_token: '<s>' });

/** By hand: the rendered template (chat), or the prompt as it is (completions: no BOS in this tokenizer). */
function byHand(item: WorkItem): number {
  return countWordLevelChatml(item.messages ? render(item.messages) : item.prompt!);
}

/** The server's count with the BPE fixture: the libraries directly (vLLM's chat and completions endpoints). */
function bpeServerCount(item: WorkItem): number {
  const hf = new HfTokenizer(
    JSON.parse(readFileSync(bpePath, 'utf8')),
    JSON.parse(readFileSync(join(dirname(bpePath), 'tokenizer_config.json'), 'utf8')),
  );
  if (item.prompt !== undefined) return hf.encode(item.prompt).ids.length;
  return hf.encode(render(item.messages!), { add_special_tokens: false }).ids.length;
}

const sessionSpec = (over: Partial<WorkloadSpec>): WorkloadSpec => ({
  kind: 'synthetic',
  api: 'chat',
  promptTokens: 60,
  maxTokens: 8,
  tokenizer: 'x',
  sessions: { turns: { min: 3, max: 3 }, turnTokens: 12 },
  ...over,
});

/** Replies as a server might send them: words, punctuation, a special token's text, an empty one. */
const REPLIES = [
  [' the of and to', ' Sure, here it is: bab dab!'],
  ['Hello.', ''],
  [' <|im_end|> is text here', ' no'],
];

describe('session turns counted through the chat template', () => {
  const cases: Array<[string, string, (item: WorkItem) => number, Partial<WorkloadSpec>]> = [
    ['words, chat', wordsPath, byHand, {}],
    ['words, chat + system prompt', wordsPath, byHand, { systemPromptTokens: 10 }],
    ['words, completions', wordsPath, byHand, { api: 'completions', systemPromptTokens: 5 }],
    ['bpe, chat + system prompt', bpePath, bpeServerCount, { systemPromptTokens: 10 }],
    ['bpe, completions (BOS)', bpePath, bpeServerCount, { api: 'completions' }],
  ];
  test.each(cases)(
    '%s: every turn counts the whole conversation as the server does',
    async (_n, path, count, over) => {
      const tok = await resolveTokenizer({ tokenizer: path });
      const wl = createWorkload(sessionSpec(over), { seed: 7, warmup: 0, tokenizer: tok });
      const system = over.systemPromptTokens ?? 0;
      for (const [s, replies] of REPLIES.entries()) {
        const script = wl.sessions!.session(s);
        expect(script.turns).toBe(3);
        const first = script.request(0, [], 0, false);
        // The first turn is --prompt-tokens (+ the system prompt) through the template, as a one-turn prompt.
        expect(first.promptTokens).toBe(60 + system);
        expect(count(first)).toBe(60 + system);
        for (let t = 1; t < 3; t++) {
          const item = script.request(t, replies, t, false);
          expect(item.promptTokens, `session ${s} turn ${t + 1}`).toBe(count(item));
          if (item.messages) {
            // The new user message is --turn-tokens tokens of the tokenizer.
            expect(tok.count(item.messages.at(-1)!.content)).toBe(12);
            // The template costs tokens: a sum of the parts would be short.
            expect(item.promptTokens).toBeGreaterThan(tok.count(promptText(item)));
          }
        }
      }
    },
  );

  test('the warmup sessions and item() (the first turns) are exact too', async () => {
    const tok = await resolveTokenizer({ tokenizer: wordsPath });
    const wl = createWorkload(sessionSpec({ systemPromptTokens: 4, promptTokensRange: 0.3 }), {
      seed: 2,
      warmup: 2,
      requests: 10,
      tokenizer: tok,
    });
    for (let i = 0; i < 12; i++) {
      const item = wl.item(i);
      expect(item.promptTokens).toBe(byHand(item));
      expect(Math.abs(item.promptTokens - 64)).toBeLessThanOrEqual(60 * 0.3);
    }
  });

  test('dataset conversations are counted through the template at every turn', async () => {
    const tok = await resolveTokenizer({ tokenizer: wordsPath });
    const wl = createWorkload(sessionSpec({ kind: 'dataset', promptTokens: undefined }), {
      seed: 1,
      warmup: 0,
      tokenizer: tok,
      dataset: parseJsonlDataset(
        JSON.stringify({
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'What is a cache?' },
            { role: 'assistant', content: 'A store.' },
            { role: 'user', content: 'Why page it?' },
          ],
        }),
        'chat.jsonl',
      ),
    });
    const script = wl.sessions!.session(0);
    expect(script.turns).toBe(2);
    for (const [t, replies] of [[], [' It keeps, ok.']].entries()) {
      const item = script.request(t, replies, t, false);
      expect(item.promptTokens).toBe(byHand(item));
    }
  });

  test('without a model tokenizer, turns are the sum of their parts as before', () => {
    const tok = createTokenizer();
    const wl = createWorkload(sessionSpec({ tokenizer: 'o200k_base', systemPromptTokens: 10 }), {
      seed: 7,
      warmup: 0,
      tokenizer: tok,
    });
    const item = wl.sessions!.session(0).request(2, [' one reply', ' two'], 2, false);
    expect(item.promptTokens).toBe(10 + 60 + tok.count(' one reply') + 12 + tok.count(' two') + 12);
  });
});
