/**
 * Token counting and output text.
 *
 * Prompt tokens are counted with o200k_base (gpt-tokenizer), the encoding the client uses:
 * - completions: the tokens of `prompt` (a string, or the strings of an array joined with '');
 * - chat: the tokens of every message's content concatenated with nothing between them
 *   (no role markers, no chat template), exactly as the workload's `countPromptTokens` counts;
 *   content given as parts counts the `text` of its text parts joined with ''.
 * Special-token text such as `<|endoftext|>` counts as plain text (no throw), as for the client.
 * Output text: every streamed chunk is exactly one o200k token, a word with a leading space
 * from a fixed pool (each verified to be one token), so counting the streamed text gives
 * `usage.completion_tokens`.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { blockHashes, createSimRng, hashString } from './rng.js';

type Encode = (text: string, options?: object) => number[];
let encodeO200k: Encode | undefined;

/**
 * Loads o200k_base's tables (several megabytes) unless loaded: a live server calls it at start,
 * so that no request's latency includes the load; importing the module does not.
 */
export function loadTokenizer(): Encode {
  if (encodeO200k === undefined) {
    const loaded = (
      createRequire(import.meta.url)('gpt-tokenizer/cjs/encoding/o200k_base') as { encode: Encode }
    ).encode;
    loaded('warm up the encoder'); // its first call builds lookup tables
    encodeO200k = loaded;
  }
  return encodeO200k;
}

function encode(text: string, options?: object): number[] {
  return (encodeO200k ?? loadTokenizer())(text, options);
}

const CACHE_LIMIT = 512;
/** Treat special-token text as ordinary text, as the workload's tokenizer does. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const cache = new Map<string, number[]>();

/** o200k_base token ids of a text, with a small LRU cache (shared system prompts repeat). */
export function tokenIds(text: string): number[] {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const ids = encode(text, PLAIN_TEXT);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(text, ids);
  return ids;
}

/** A chat message's content: a string, or OpenAI content parts. */
export type MessageContent = string | { type?: string; text?: string }[] | null | undefined;

/** The text of a message content (text parts joined with ''). */
export function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** A prompt message: chat's (content, an assistant's tool_calls) or a Responses input item (function_call, function_call_output). */
export interface PromptMessage {
  content?: MessageContent;
  tool_calls?: unknown;
  toolCalls?: readonly { arguments: string }[];
  arguments?: unknown;
  output?: unknown;
}

/** The arguments of an assistant message's tool calls, joined with ''. */
function toolCallsText(calls: unknown): string {
  if (!Array.isArray(calls)) return '';
  let text = '';
  for (const c of calls) {
    const args = (c as { function?: { arguments?: unknown } } | null)?.function?.arguments;
    if (typeof args === 'string') text += args;
  }
  return text;
}

/**
 * The text whose tokens make a chat prompt: message contents concatenated with nothing between
 * them; an assistant's tool calls count their arguments, a Responses `function_call` item its
 * arguments and a `function_call_output` its output.
 */
export function chatPromptText(messages: readonly PromptMessage[]): string {
  let text = '';
  for (const m of messages) {
    text += contentText(m.content);
    if (m.tool_calls !== undefined) text += toolCallsText(m.tool_calls);
    // The client's own messages (runner/virtual.ts reads WorkItem messages as the live engine reads bodies).
    if (m.toolCalls !== undefined) for (const c of m.toolCalls) text += c.arguments;
    if (typeof m.arguments === 'string') text += m.arguments;
    if (typeof m.output === 'string') text += m.output;
  }
  return text;
}

/** Common English words, each a single o200k_base token when preceded by a space. */
export const OUTPUT_WORDS: readonly string[] = (
  'the of and to in is that for it as with was on be at by this had not are but from or have an they ' +
  'which one you were her all she there would their we him been has when who will more no if out so ' +
  'said what up its about into than them can only other new some could time these two may then do ' +
  'first any my now such like our over man me even most made after also did many before must through ' +
  'back years where much your way well down should because each just those people how too little ' +
  'state good very make world still own see men work long get here between both life being under ' +
  'never day same another know while last might us great old year off come since against go came ' +
  'right used take three'
)
  .split(' ')
  .map((w) => ` ${w}`);

/** The text of output token `index` (0-based) of a request whose text seed is `textSeed`. */
export function outputToken(textSeed: number, index: number): string {
  const h = Math.imul(textSeed ^ Math.imul(index + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;
  return OUTPUT_WORDS[((h ^ (h >>> 15)) >>> 0) % OUTPUT_WORDS.length]!;
}

let outputWordIds: number[] | undefined;

/** The o200k id of output token `index` of a request whose text seed is `textSeed`. */
export function outputTokenId(textSeed: number, index: number): number {
  outputWordIds ??= OUTPUT_WORDS.map((w) => tokenIds(w)[0]!);
  const h = Math.imul(textSeed ^ Math.imul(index + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;
  return outputWordIds[((h ^ (h >>> 15)) >>> 0) % OUTPUT_WORDS.length]!;
}

/** The whole text of a reply of `tokens` output tokens (what the client receives, streamed). */
export function replyText(textSeed: number, tokens: number): string {
  let text = '';
  for (let i = 0; i < tokens; i++) text += outputToken(textSeed, i);
  return text;
}

/**
 * Prefix-cache hashes of a whole sequence: the prompt's tokens, then the reply's. The engine
 * registers a block once its tokens are computed, generated ones included, so the next turn
 * of a conversation, whose prompt is this prompt + this reply + a new message, finds the
 * blocks of both (as vLLM's prefix caching does). The output text is a function of the text
 * seed, so its ids are known before it is generated.
 */
export function sequenceBlockHashes(
  promptIds: readonly number[],
  textSeed: number,
  outputTokens: number,
  blockSize: number,
): number[] {
  const ids = new Array<number>(promptIds.length + outputTokens);
  for (let i = 0; i < promptIds.length; i++) ids[i] = promptIds[i]!;
  for (let i = 0; i < outputTokens; i++) ids[promptIds.length + i] = outputTokenId(textSeed, i);
  return blockHashes(ids, blockSize);
}

export interface OutputLengthInput {
  /** The server's seed. */
  seed: number;
  /** What identifies the request's content (e.g. its prompt text) and the request's own `seed`. */
  key: string;
  maxTokens: number;
  ignoreEos: boolean;
  /** Mean of the EOS position's exponential distribution. */
  meanOutputTokens: number;
}

/**
 * Output length: with ignore_eos, exactly maxTokens ('length'); otherwise an EOS position drawn
 * from an exponential distribution (mean meanOutputTokens, at least 1) seeded by the server seed
 * and the request, capped at maxTokens ('length' when capped, else 'stop').
 */
export function pickOutputLength(i: OutputLengthInput): { tokens: number; finishReason: 'stop' | 'length' } {
  if (i.ignoreEos) return { tokens: i.maxTokens, finishReason: 'length' };
  const u = createSimRng(hashString(i.key, i.seed)).next();
  const eos = 1 + Math.floor(-i.meanOutputTokens * Math.log(1 - u));
  return eos >= i.maxTokens
    ? { tokens: i.maxTokens, finishReason: 'length' }
    : { tokens: eos, finishReason: 'stop' };
}
