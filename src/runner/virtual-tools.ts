/**
 * Tool calls in virtual time: the same decision the live engine makes (sim/tools.ts: the
 * request's tools and tool_choice, the engine's `--tool-call-fraction`, the seed and the
 * prompt), the reply text the client would have received (reasoning, then the function's name
 * and its arguments, as events.ts collects them) and the record's tool-call fields.
 *
 * @module
 */

import {
  argumentFragment,
  DEFAULT_TOOL_CALL_FRACTION,
  decideToolCall,
  outputTokenText,
  type SimToolCall,
} from '../sim/index.js';
import type { RequestRecord, WorkItem } from '../types.js';
import type { BenchmarkConfig } from './config.js';

/** The call the engine makes for this item instead of text, if any (chat and Responses). */
export function virtualToolCall(
  config: BenchmarkConfig,
  item: WorkItem,
  key: string,
  textSeed: number,
): SimToolCall | undefined {
  if (config.api === 'completions' || !item.tools || item.tools.length === 0) return undefined;
  const offered = { names: item.tools.map((t) => t.name), choice: item.toolChoice ?? 'auto' };
  const fraction = config.sim?.toolCallFraction ?? DEFAULT_TOOL_CALL_FRACTION;
  return decideToolCall(offered, fraction, config.seed, key, textSeed);
}

/**
 * The text a client collects from a tool-call reply of `tokens` tokens, the first `reasoning`
 * of them reasoning: chat's deltas name the function before its arguments, the Responses API
 * names it in its output item, which carries no text.
 */
export function toolReplyText(
  api: BenchmarkConfig['api'],
  call: SimToolCall,
  textSeed: number,
  reasoning: number,
  tokens: number,
): string {
  let text = '';
  for (let i = 0; i < Math.min(reasoning, tokens); i++) text += outputTokenText(textSeed, i);
  if (tokens <= reasoning) return text;
  if (api === 'chat') text += call.name;
  for (let i = reasoning; i < tokens; i++) text += argumentFragment(textSeed, i, reasoning, tokens - 1);
  return text;
}

/**
 * A virtual record's tool-call and agent fields, as the client writes them: one call (chat's
 * finish reason `tool_calls`; Responses says `stop`), the agent run and its tool wait.
 */
export function withToolCall(
  record: RequestRecord,
  item: WorkItem,
  api: BenchmarkConfig['api'],
  answered: boolean,
): RequestRecord {
  if (item.agentRun !== undefined) record.agentRun = item.agentRun;
  if (item.toolWaitMs !== undefined) record.toolWaitMs = item.toolWaitMs;
  if (!answered) return record;
  record.toolCalls = 1;
  if (api === 'chat' && record.finishReason === 'stop') record.finishReason = 'tool_calls';
  return record;
}
