/**
 * Session turns counted by their new text only (turn-count.ts): every turn's count is the
 * whole conversation's through the template, as the tokenizer library counts it, over many
 * turns with replies a server might send, while each turn encodes only its new text; a
 * template whose turns are not cut by special tokens, or texts that do not add up, are counted
 * whole after a note. The cut itself is checked against the library on hand-made tokenizers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { writeTokenizerFolder } from '../../test/helpers/tokenizer-fixture.js';
import type { ChatMessage, WorkloadSpec } from '../types.js';
import { parseJsonlDataset } from './dataset.js';
import { createHfTokenizer } from './hf-tokenizer.js';
import type { Tokenizer } from './tokenizer.js';
import { resolveTokenizer } from './tokenizer-file.js';
import { CHECKED_TURNS, createTurnCounting } from './turn-count.js';
import { createWorkload } from './workload.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-turn-count-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const wordsPath = writeTokenizerFolder(dir, 'words-chatml', 'wordlevel-chatml');
const bpePath = writeTokenizerFolder(dir, 'bpe-chatml');
const PLAIN_TEMPLATE = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}assistant:";
const plainPath = writeTokenizerFolder(dir, 'words-plain', 'wordlevel-chatml', {
  chatTemplate: PLAIN_TEMPLATE,
});

/** Replies as a server might send them: punctuation, special tokens' text, unicode, blanks. */
const REPLIES = [
  ' Sure, here it is: bab dab!',
  'Hello.',
  '',
  ' <|im_end|> is text here',
  '<|im_start|>user\nfake turn<|im_end|>\n',
  ' naïve — 日本語 🎉 ok?!',
  '\n\n  spaced   out \n',
  '<s><s> the of',
  ' <|im_start|',
  '\u00a0x\u200b\t"quoted" (paren) [br] {c}',
];

const sessionSpec = (turns: number, over: Partial<WorkloadSpec> = {}): WorkloadSpec => ({
  kind: 'synthetic',
  api: 'chat',
  promptTokens: 60,
  maxTokens: 8,
  tokenizer: 'x',
  sessions: { turns: { min: turns, max: turns }, turnTokens: 12 },
  ...over,
});

/** The tokenizer, with the characters it encodes text by text added up. */
function watched(tok: Tokenizer): { tok: Tokenizer; encoded: () => number } {
  let chars = 0;
  return {
    tok: {
      ...tok,
      countPiece: (text, opening) => {
        chars += text.length;
        return tok.countPiece!(text, opening);
      },
    },
    encoded: () => chars,
  };
}

describe('session turns counted by their new text', () => {
  const cases: Array<[string, string, Partial<WorkloadSpec>]> = [
    ['words', wordsPath, {}],
    ['words + system prompt', wordsPath, { systemPromptTokens: 10 }],
    ['bpe + system prompt', bpePath, { systemPromptTokens: 40 }],
    ['bpe, length range', bpePath, { promptTokensRange: 0.3 }],
  ];
  test.each(cases)(
    '%s: each turn equals the whole count and encodes only its new text',
    async (_n, path, over) => {
      const full = await resolveTokenizer({ tokenizer: path });
      const { tok, encoded } = watched(full);
      const notes: string[] = [];
      const wl = createWorkload(sessionSpec(12, over), {
        seed: 3,
        warmup: 0,
        tokenizer: tok,
        note: (t) => notes.push(t),
      });
      for (let s = 0; s < 4; s++) {
        const script = wl.sessions!.session(s);
        const replies: string[] = [];
        for (let t = 0; t < 12; t++) {
          const before = encoded();
          const item = script.request(t, replies, t, false);
          expect(item.promptTokens, `session ${s} turn ${t + 1}`).toBe(full.countPrompt!(item));
          if (t >= 2 || s > 0) {
            // Only the last reply, the new user message and the template's glue are encoded.
            const fresh = (replies.at(-1)?.length ?? 0) + item.messages!.at(-1)!.content.length;
            expect(encoded() - before, `session ${s} turn ${t + 1}`).toBeLessThanOrEqual(fresh + 40);
          }
          replies.push(REPLIES[(s * 3 + t) % REPLIES.length]!);
        }
      }
      expect(notes).toEqual([]);
    },
  );

  test('dataset conversations: every turn exact, the first counted by its texts too', async () => {
    const tok = await resolveTokenizer({ tokenizer: bpePath });
    const messages: ChatMessage[] = [{ role: 'system', content: 'Be brief, ok?' }];
    for (let k = 0; k < 10; k++) {
      messages.push({ role: 'user', content: `Question ${k}: why ${'bab '.repeat(k)}é?` });
      messages.push({ role: 'assistant', content: REPLIES[k]! });
    }
    messages.pop();
    const notes: string[] = [];
    const wl = createWorkload(sessionSpec(1, { kind: 'dataset', promptTokens: undefined }), {
      seed: 1,
      warmup: 0,
      tokenizer: tok,
      note: (t) => notes.push(t),
      dataset: parseJsonlDataset(
        [JSON.stringify({ messages }), JSON.stringify({ messages: messages.slice(0, 6) })].join('\n'),
        'chat.jsonl',
      ),
    });
    for (let s = 0; s < 4; s++) {
      const script = wl.sessions!.session(s);
      const replies: string[] = [];
      for (let t = 0; t < script.turns; t++) {
        const item = script.request(t, replies, t, false);
        expect(item.promptTokens, `session ${s} turn ${t + 1}`).toBe(tok.countPrompt!(item));
        replies.push(REPLIES[(t * 7 + s) % REPLIES.length]!);
      }
    }
    expect(notes).toEqual([]);
  });

  test('a template without special tokens between turns: exact, counted whole after a note', async () => {
    const tok = await resolveTokenizer({ tokenizer: plainPath });
    const notes: string[] = [];
    const wl = createWorkload(sessionSpec(6, { systemPromptTokens: 5 }), {
      seed: 5,
      warmup: 0,
      tokenizer: tok,
      note: (t) => notes.push(t),
    });
    const PLAIN_REPLIES = REPLIES.filter((r) => !r.includes('<'));
    let withHistory = 0;
    for (let s = 0; s < 4; s++) {
      const script = wl.sessions!.session(s);
      const replies: string[] = [];
      for (let t = 0; t < 6; t++) {
        const item = script.request(t, replies, t, false);
        expect(item.promptTokens).toBe(tok.countPrompt!(item));
        // Nothing in the conversation is cut by an added token.
        expect(tok.promptPieces!(item.messages!).specials).toBe(0);
        if (t > 0 && ++withHistory === CHECKED_TURNS - 1) expect(notes).toEqual([]);
        replies.push(PLAIN_REPLIES[(s + t) % PLAIN_REPLIES.length]!);
      }
    }
    expect(notes).toEqual([
      "--tokenizer: the template's turns are not separated by special tokens; counting each session turn whole",
    ]);
  });

  test('texts that do not add up to the whole count: the whole count is kept, noted once', () => {
    // A tokenizer whose texts between markers merge with each other: words of the joined contents.
    const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
    const joined = (m: readonly ChatMessage[]) => m.map((x) => x.content).join('');
    const tok: Tokenizer = {
      name: 'joined-words',
      count: words,
      encode: () => [],
      decode: () => '',
      countPrompt: (item) => words(joined(item.messages!)) + item.messages!.length,
      promptPieces: (m) => ({
        specials: m.length,
        opening: '',
        texts: m.map((x) => x.content).filter(Boolean),
      }),
      countPiece: (text) => words(text),
    };
    const notes: string[] = [];
    const counter = createTurnCounting(tok, (t) => notes.push(t))!.session();
    const history: ChatMessage[] = [{ role: 'user', content: 'one two ' }];
    expect(counter.count({ messages: history }, false)).toBe(3);
    history.push({ role: 'assistant', content: 'three four' }, { role: 'user', content: 'five' });
    expect(counter.count({ messages: history }, true)).toBe(tok.countPrompt!({ messages: history }));
    expect(notes).toEqual([
      "--tokenizer: counting a session turn between the template's special tokens gave 8 tokens, the whole conversation 7; counting each session turn whole",
    ]);
    history.push({ role: 'assistant', content: 'six' }, { role: 'user', content: 'seven' });
    expect(counter.count({ messages: history }, true)).toBe(tok.countPrompt!({ messages: history }));
    expect(notes).toHaveLength(1);
  });
});

/** A tokenizer.json of single characters (BPE), its added tokens and pre-tokenizer given. */
function charTokenizer(added: Array<Record<string, unknown>>, extra: Record<string, unknown>) {
  const vocab: Record<string, number> = {};
  for (const c of ' ▁abcdefghijklmnopqrstuvwxyz.\n') vocab[c] = Object.keys(vocab).length;
  vocab['▁a'] = Object.keys(vocab).length;
  const added_tokens = added.map((t, i) => ({
    id: 100 + i,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
    ...t,
  }));
  return {
    version: '1.0',
    added_tokens,
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: null,
    model: { type: 'BPE', vocab, merges: ['▁ a'], unk_token: null, byte_fallback: false, fuse_unk: false },
    ...extra,
  };
}

describe('the cut at added tokens agrees with the library', () => {
  const cases: Array<[string, ReturnType<typeof charTokenizer>, string[]]> = [
    [
      'lstrip / rstrip tokens take the spaces beside them',
      charTokenizer(
        [{ content: '<l>', lstrip: true }, { content: '<r>', rstrip: true }, { content: '<x>' }],
        {},
      ),
      ['ab  <l>  cd <r>  ef<x> g', '  <r>  <l>  ', 'a<l><r>b', ' <x> '],
    ],
    [
      'the longest of overlapping tokens wins, leftmost first',
      charTokenizer([{ content: '<a>' }, { content: '<a>b' }, { content: 'b<a>' }], {}),
      ['x<a>bcd', 'xb<a>b<a>', '<a><a>b<a>'],
    ],
    [
      'normalized added tokens are matched inside the texts, after the normalizer',
      charTokenizer([{ content: 'ab', normalized: true, special: false }, { content: '<s>' }], {
        normalizer: { type: 'Lowercase' },
      }),
      ['xABy<s>AB cd', '<s>ab<s>'],
    ],
    [
      'Metaspace "first": a text behind an added token gets no leading ▁',
      charTokenizer([{ content: '<s>' }, { content: '<t>' }], {
        pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
      }),
      ['a<s>a b<t>a', '<s>b a<t>b', 'b a<s>b'],
    ],
  ];
  test.each(cases)('%s', (_n, json, texts) => {
    const tok = createHfTokenizer({
      tokenizerJson: json,
      config: {},
      chatTemplate: "{{ messages[0]['content'] }}",
      name: 'hf:chars',
      file: { path: 'chars/tokenizer.json', sha256: '0' },
    });
    for (const text of texts) {
      const messages = [{ role: 'user' as const, content: text }];
      const p = tok.promptPieces!(messages);
      let n = p.specials + (p.opening === '' ? 0 : tok.countPiece!(p.opening, true));
      for (const t of p.texts) n += tok.countPiece!(t, false);
      expect(n, JSON.stringify(text)).toBe(tok.countPrompt!({ messages }));
    }
  });

  test('a tokenizer without added tokens offers no cut (its turns are counted whole)', () => {
    const tok = createHfTokenizer({
      tokenizerJson: charTokenizer([], {}),
      config: {},
      chatTemplate: "{{ messages[0]['content'] }}",
      name: 'hf:chars',
      file: { path: 'chars/tokenizer.json', sha256: '0' },
    });
    expect(tok.promptPieces).toBeUndefined();
  });
});
