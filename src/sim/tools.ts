/**
 * Tool calling in the simulated engine: when a chat or Responses request offers `tools`, the
 * engine answers a seeded fraction of them (`--tool-call-fraction`, default 0.5) with one call
 * of one of the offered functions instead of text, as vLLM does with
 * `--enable-auto-tool-choice`:
 *
 * - `tool_choice` `"none"`: never a call; `"required"` or a named function: always one (the
 *   named one); `"auto"` or absent: a call with probability `fraction`, drawn from the server
 *   seed and the prompt (so a run is repeatable and the virtual engine draws the same).
 * - The call's arguments are the reply's tokens as a JSON object: `{"query": "` before the
 *   first answer token's word, `"}` after the last one, so one token is one argument fragment
 *   and `usage.completion_tokens` counts them (a reply cut at max_tokens still closes it).
 * - Chat streams it as vLLM's serving_chat does: the first delta carries `tool_calls[0]` with
 *   `index`, `id` (`chatcmpl-tool-…`), `type: "function"` and `function.name` plus the first
 *   argument fragment, later deltas only `index` and `function.arguments`, and the last chunk's
 *   `finish_reason` is `"tool_calls"` (`"length"` when cut). The Responses API streams a
 *   `function_call` output item (`response.output_item.added`, then
 *   `response.function_call_arguments.delta` events, `…arguments.done` and
 *   `response.output_item.done`).
 *
 * @module
 */

import { createSimRng, hashString } from './rng.js';
import { outputToken } from './text.js';

/** Share of requests offering tools with `tool_choice: "auto"` answered with a tool call, by default. */
export const DEFAULT_TOOL_CALL_FRACTION = 0.5;

/** What a request offers: the function names, and its tool_choice. */
export interface OfferedTools {
  names: string[];
  /** 'auto' | 'required' | 'none', or the one function it names. */
  choice: 'auto' | 'required' | 'none' | { name: string };
}

/** The call the engine makes instead of text. */
export interface SimToolCall {
  /** `chatcmpl-tool-<hex>`, as vLLM names calls. */
  id: string;
  name: string;
}

function toolName(tool: unknown): string | undefined {
  if (tool === null || typeof tool !== 'object') return undefined;
  const t = tool as Record<string, unknown>;
  // Chat nests the function ({type, function: {name}}); the Responses API does not ({type, name}).
  const fn =
    t.function !== null && typeof t.function === 'object' ? (t.function as Record<string, unknown>) : t;
  return typeof fn.name === 'string' && fn.name !== '' ? fn.name : undefined;
}

/** The tools a request body offers, or undefined when it offers none. */
export function offeredTools(body: Record<string, unknown>): OfferedTools | undefined {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return undefined;
  const names = body.tools.map(toolName).filter((n): n is string => n !== undefined);
  if (names.length === 0) return undefined;
  const c = body.tool_choice;
  if (c === 'none' || c === 'required') return { names, choice: c };
  const named = toolName(c);
  return { names, choice: named !== undefined ? { name: named } : 'auto' };
}

/**
 * Whether the engine calls a tool for this request, and which: seeded by the server seed and
 * the request's key (its prompt), the text seed naming the call.
 */
export function decideToolCall(
  offered: OfferedTools | undefined,
  fraction: number,
  seed: number,
  key: string,
  textSeed: number,
): SimToolCall | undefined {
  if (!offered || offered.choice === 'none') return undefined;
  const rng = createSimRng(hashString(key, seed ^ 0x27d4eb2f));
  const u = rng.next();
  if (offered.choice === 'auto' && !(u < fraction)) return undefined;
  const name =
    typeof offered.choice === 'object' ? offered.choice.name : offered.names[rng.int(offered.names.length)]!;
  return { id: `chatcmpl-tool-${textSeed.toString(16).padStart(8, '0')}`, name };
}

const ARGS_OPEN = '{"query": "';
const ARGS_CLOSE = '"}';

/**
 * The argument fragment of output token `index` (0-based, over the whole output) when the
 * answer is tokens `first`..`last` (0-based, inclusive): the token's word, the JSON opened
 * before the first and closed after the last.
 */
export function argumentFragment(textSeed: number, index: number, first: number, last: number): string {
  let s = outputToken(textSeed, index);
  if (index === first) s = ARGS_OPEN + s;
  if (index === last) s += ARGS_CLOSE;
  return s;
}
