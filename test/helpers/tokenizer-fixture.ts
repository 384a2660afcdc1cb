/**
 * Small Hugging Face tokenizer folders for tests, written from the documented tokenizer.json
 * format: a byte-level BPE (GPT-2 style pre-tokenizer and decoder, as Llama 3 and Qwen use)
 * whose vocabulary holds a few hundred made-up words as single tokens, special tokens for a
 * ChatML-style chat template, and a BOS token that the post-processor adds to plain prompts
 * (as Llama's does); and a WordLevel tokenizer that splits on whitespace, whose vocabulary
 * has no space marker at all, optionally with the ChatML special tokens and template
 * ('wordlevel-chatml'): its counts can be checked by hand (`countWordLevelChatml`), without
 * the tokenizer library.
 *
 * @module
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** GPT-2's byte → printable character table (bytes_to_unicode). */
function byteChars(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const chars = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    chars[b] = keep.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return chars;
}

/** Made-up lowercase words of 3 to 6 letters, distinct, in a fixed order. */
export function fixtureWords(n: number): string[] {
  const cons = 'bdfgklmnprstvz';
  const vows = 'aeiou';
  const out: string[] = [];
  for (const a of cons)
    for (const v of vows)
      for (const b of cons) {
        if (out.length >= n) return out;
        const w = `${a}${v}${b}`;
        out.push(out.length % 3 === 0 ? `${w}${vows[out.length % 5]}n` : w);
      }
  return out;
}

export const CHATML_TEMPLATE =
  "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}" +
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n{% endif %}{% endif %}';

export interface FixtureOptions {
  /** Written into tokenizer_config.json as chat_template (default CHATML_TEMPLATE; null: none). */
  chatTemplate?: string | null;
  /** Lowercase single-token words (default 400). */
  words?: number;
}

/** An added token of tokenizer.json, special and matched as written. */
function specialToken(id: number, content: string): Record<string, unknown> {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/** The tokenizer.json object of the byte-level BPE fixture. */
export function bpeTokenizerJson(words = 400): Record<string, unknown> {
  const chars = byteChars();
  const vocab: Record<string, number> = {};
  const merges: string[] = [];
  const add = (tok: string) => {
    if (!(tok in vocab)) vocab[tok] = Object.keys(vocab).length;
  };
  for (const c of chars) add(c);
  // Each word is one token, reached by merging its prefix with the next character.
  const chain = (token: string) => {
    const letters = [...token];
    let prefix = letters[0]!;
    for (const ch of letters.slice(1)) {
      const next = prefix + ch;
      if (!(next in vocab)) {
        merges.push(`${prefix} ${ch}`);
        add(next);
      }
      prefix = next;
    }
  };
  const space = chars[32]!; // 'Ġ'
  const list = fixtureWords(words);
  for (const w of list) chain(`${space}${w}`);
  for (const w of list.slice(0, 60)) chain(w[0]!.toUpperCase() + w.slice(1));
  const specials = ['<s>', '</s>', '<|im_start|>', '<|im_end|>'];
  const base = Object.keys(vocab).length;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content, i) => specialToken(base + i, content)),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '<s>', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
      ],
      special_tokens: { '<s>': { id: '<s>', ids: [base], tokens: ['<s>'] } },
    },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges,
    },
  };
}

const CHATML_SPECIALS = ['<s>', '<|im_start|>', '<|im_end|>'];

/**
 * A WordLevel tokenizer.json: whitespace-split words, no space marker in the vocabulary; with
 * `specials`, the ChatML special tokens too.
 */
export function wordLevelTokenizerJson(
  words = 400,
  specials: readonly string[] = [],
): Record<string, unknown> {
  const vocab: Record<string, number> = { '[UNK]': 0 };
  const list = fixtureWords(words);
  for (const w of list) vocab[w] = Object.keys(vocab).length;
  for (const w of list.slice(0, 60)) vocab[w[0]!.toUpperCase() + w.slice(1)] = Object.keys(vocab).length;
  for (const p of ['.', ',', '!', '?']) vocab[p] = Object.keys(vocab).length;
  const added = ['[UNK]', ...specials].map((content) => {
    vocab[content] ??= Object.keys(vocab).length;
    return specialToken(vocab[content]!, content);
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
  };
}

/**
 * Writes a tokenizer folder (tokenizer.json + tokenizer_config.json) under `dir/name` and
 * returns the tokenizer.json path.
 */
export function writeTokenizerFolder(
  dir: string,
  name: string,
  kind: 'bpe' | 'wordlevel' | 'wordlevel-chatml' = 'bpe',
  opts: FixtureOptions = {},
): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const json =
    kind === 'bpe'
      ? bpeTokenizerJson(opts.words)
      : wordLevelTokenizerJson(opts.words, kind === 'wordlevel-chatml' ? CHATML_SPECIALS : []);
  writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify(json));
  const config: Record<string, unknown> =
    kind !== 'wordlevel'
      ? {
          bos_token: '<s>',
          eos_token: '<|im_end|>',
          clean_up_tokenization_spaces: false,
          tokenizer_class: 'PreTrainedTokenizerFast',
        }
      : { unk_token: '[UNK]', tokenizer_class: 'PreTrainedTokenizerFast' };
  const template =
    opts.chatTemplate === undefined ? (kind !== 'wordlevel' ? CHATML_TEMPLATE : null) : opts.chatTemplate;
  if (template !== null) config.chat_template = template;
  writeFileSync(join(folder, 'tokenizer_config.json'), JSON.stringify(config));
  return join(folder, 'tokenizer.json');
}

/**
 * Tokens of a text in the 'wordlevel-chatml' fixture, counted by hand as its tokenizer.json
 * says: each special token is one, and the text between them is split as the Whitespace
 * pre-tokenizer splits (`\w+|[^\w\s]+`), one token a piece (a word of the vocabulary or [UNK]).
 */
export function countWordLevelChatml(text: string): number {
  let n = 0;
  for (const part of text.split(/(<s>|<\|im_start\|>|<\|im_end\|>)/)) {
    if (CHATML_SPECIALS.includes(part)) n++;
    else n += part.match(/[\p{L}\p{N}_]+|[^\p{L}\p{N}_\s]+/gu)?.length ?? 0;
  }
  return n;
}
