/**
 * A model's own tokenizer, from its Hugging Face `tokenizer.json` (pure JS,
 * @huggingface/tokenizers) and chat template (@huggingface/jinja), behind the Tokenizer
 * interface: prompts are counted as an OpenAI-compatible server such as vLLM counts them.
 *
 * - Chat: the template is rendered with the messages and `add_generation_prompt: true` (plus
 *   the special tokens of tokenizer_config.json and the request's `chat_template_kwargs`), and
 *   the text is encoded without adding special tokens (the template writes them), as vLLM's
 *   chat endpoint does.
 * - Completions: the prompt is encoded with the special tokens the tokenizer adds (a BOS),
 *   as vLLM's completions endpoint does.
 * - Chat without a template: the concatenated message contents, as with the default tokenizer.
 *
 * Pure: the parsed files are passed in (tokenizer-file.ts reads them).
 *
 * @module
 */

import { Template } from '@huggingface/jinja';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { GoodputError } from '../errors.js';
import type { ChatMessage } from '../types.js';
import {
  countInPieces,
  encodeInPieces,
  type PromptParts,
  type PromptPieces,
  promptText,
  type Tokenizer,
  type TokenizerFile,
} from './tokenizer.js';

export interface HfTokenizerInput {
  /** tokenizer.json, parsed. */
  tokenizerJson: Record<string, unknown>;
  /** tokenizer_config.json, parsed (special tokens, clean-up settings); {} when absent. */
  config: Record<string, unknown>;
  /** The chat template's text; undefined: none. */
  chatTemplate?: string;
  /** Extra variables of the template (the requests' `chat_template_kwargs`). */
  templateKwargs?: Record<string, unknown>;
  /** Recorded as WorkloadSpec.tokenizer; unique per file (caches key on it). */
  name: string;
  file: TokenizerFile;
}

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** A special token of tokenizer_config.json: a string, or an AddedToken object with `content`. */
function tokenText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string')
    return (v as { content: string }).content;
  return undefined;
}

interface AddedTokenJson {
  content: string;
  special?: boolean;
  normalized?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
}

/**
 * Cuts text where @huggingface/tokenizers cuts it before anything else: at the added tokens
 * matched on the raw text (those not normalized, or all when there is no normalizer), the
 * leftmost and then longest match, the whitespace an `lstrip`/`rstrip` token takes removed from
 * its neighbour. What lies between is normalized, pre-tokenized and encoded on its own.
 * Undefined when the tokenizer has no such token.
 */
export function addedTokenCutter(
  tokenizerJson: Record<string, unknown>,
): ((text: string) => PromptPieces) | undefined {
  const list = Array.isArray(tokenizerJson.added_tokens)
    ? (tokenizerJson.added_tokens as AddedTokenJson[])
    : [];
  const normalizer = tokenizerJson.normalizer != null;
  const raw = list.filter(
    (t) => typeof t.content === 'string' && t.content !== '' && !(normalizer && (t.normalized ?? !t.special)),
  );
  if (raw.length === 0) return undefined;
  const byContent = new Map(raw.map((t) => [t.content, t]));
  const alternatives = [...byContent.keys()]
    .sort((a, b) => b.length - a.length)
    .map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(`(${alternatives.join('|')})`);
  return (text) => {
    // [text, token, text, token, …, text]: odd indices are tokens.
    const parts = text.split(re);
    for (let i = 1; i < parts.length; i += 2) {
      const t = byContent.get(parts[i]!)!;
      if (t.lstrip) parts[i - 1] = parts[i - 1]!.trimEnd();
      if (t.rstrip) parts[i + 1] = parts[i + 1]!.trimStart();
    }
    const texts: string[] = [];
    for (let i = 2; i < parts.length; i += 2) if (parts[i] !== '') texts.push(parts[i]!);
    return { specials: (parts.length - 1) / 2, opening: parts[0]!, texts };
  };
}

/**
 * The chat template of a tokenizer_config.json: its `chat_template` string, or of a list of
 * named templates the one named "default" (else the first), as transformers picks it.
 */
export function chatTemplateOf(config: Record<string, unknown>): string | undefined {
  const t = config.chat_template;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const named = t.filter(
      (x): x is { name?: unknown; template: string } =>
        !!x && typeof x === 'object' && typeof (x as { template?: unknown }).template === 'string',
    );
    return (named.find((x) => x.name === 'default') ?? named[0])?.template;
  }
  return undefined;
}

/** A parsed chat template (our own type: @huggingface/jinja's declarations do not type-check for consumers). */
export interface ChatTemplate {
  render(items: Record<string, unknown>): string;
}

/** Parses a chat template once; a syntax error is a usage error naming where it came from. */
export function compileChatTemplate(text: string, origin: string): ChatTemplate {
  try {
    return new Template(text);
  } catch (e) {
    throw usage(
      `the chat template from ${origin} does not parse (${(e as Error).message})`,
      'give a valid Jinja chat template with --chat-template FILE',
    );
  }
}

/**
 * Builds the tokenizer; a tokenizer.json the library cannot read is a usage error.
 *
 * @example
 * const tok = createHfTokenizer({ tokenizerJson, config, chatTemplate, name: 'hf:m@1a2b', file });
 * tok.countPrompt!({ messages: [{ role: 'user', content: 'Hi' }] }); // template and special tokens included
 */
export function createHfTokenizer(input: HfTokenizerInput): Tokenizer {
  let hf: HfTokenizer;
  try {
    hf = new HfTokenizer(input.tokenizerJson, input.config);
  } catch (e) {
    throw usage(
      `${input.file.path} cannot be used as a tokenizer (${(e as Error).message})`,
      "give the model's Hugging Face tokenizer.json (BPE, WordPiece, Unigram or WordLevel)",
    );
  }
  const plain = { add_special_tokens: false };
  const count = (text: string) =>
    text === '' ? 0 : countInPieces(text, (t) => hf.encode(t, plain).ids.length);
  const template =
    input.chatTemplate === undefined ? undefined : compileChatTemplate(input.chatTemplate, input.file.path);
  const specials: Record<string, string> = {};
  for (const key of ['bos_token', 'eos_token', 'unk_token', 'pad_token', 'sep_token', 'cls_token']) {
    const v = tokenText(input.config[key]);
    if (v !== undefined) specials[key] = v;
  }
  const render = (messages: readonly ChatMessage[]): string => {
    try {
      return template!.render({
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        add_generation_prompt: true,
        ...specials,
        ...input.templateKwargs,
      });
    } catch (e) {
      throw usage(
        `the chat template of ${input.name} failed on a prompt (${(e as Error).message})`,
        'check the template (--chat-template FILE) and the messages of the dataset',
      );
    }
  };
  // A text after an added token is encoded behind one (a pre-tokenizer may treat the first
  // text of a prompt apart, as Metaspace's prepend_scheme "first" does); one that strips no space.
  const cut = template ? addedTokenCutter(input.tokenizerJson) : undefined;
  const behind = ((input.tokenizerJson.added_tokens as AddedTokenJson[] | undefined) ?? []).find(
    (t) => cut?.(t.content).specials === 1 && !t.rstrip,
  )?.content;
  let vocabSize = 0;
  for (const id of hf.get_vocab(true).values()) vocabSize = Math.max(vocabSize, id + 1);
  return {
    name: input.name,
    file: input.file,
    vocabSize,
    count,
    encode: (text) => encodeInPieces(text, (t) => hf.encode(t, plain).ids),
    decode: (ids) => (ids.length === 0 ? '' : hf.decode([...ids])),
    countPrompt(item: PromptParts): number {
      if (item.messages) {
        return template ? count(render(item.messages)) : count(promptText(item));
      }
      const prompt = item.prompt ?? '';
      return hf.encode(prompt).ids.length;
    },
    ...(cut
      ? {
          promptPieces: (messages: readonly ChatMessage[]) => cut(render(messages)),
          countPiece: (text: string, opening: boolean) =>
            opening || behind === undefined ? count(text) : count(behind + text) - 1,
        }
      : {}),
  };
}
