/**
 * One model call of an agent run, as the synthetic loop (agents.ts) and the trace replay
 * (agent-replay.ts) send it: the work item, its record's tool calls and the reply's text.
 *
 * @module
 */

import type { ChatMessage, ToolCallMessage, ToolChoice, ToolDefinition, WorkItem } from '../../types.js';
import { type AgentSource, agentRunId } from '../../workload/index.js';
import type { LoadContext } from './types.js';

/** The tool call a reply made, as the agent sends it back. */
export function replyToolCall(
  reply: string,
  tools: readonly { name: string }[],
  id: string,
): ToolCallMessage {
  let best: { at: number; name: string } | undefined;
  for (const t of tools) {
    const at = reply.indexOf(`${t.name}{`);
    if (at >= 0 && (best === undefined || at < best.at)) best = { at, name: t.name };
  }
  if (best) return { id, name: best.name, arguments: reply.slice(best.at + best.name.length) };
  const open = reply.indexOf('{');
  return { id, name: tools[0]?.name ?? 'tool', arguments: open >= 0 ? reply.slice(open) : reply };
}

/** What the loop's agents share: the context, the workload's runs, the calls sent. */
export interface AgentLoopState {
  ctx: LoadContext;
  source: AgentSource;
  cap: number;
  sent: number;
  /** Aborted once `--requests` calls are sent (a replay stops waiting for later runs' start times). */
  exhausted?: AbortController;
}

/** Nothing more may be sent: the load stopped, `--duration` is over or `--requests` calls were sent. */
export const agentsStopped = (l: AgentLoopState) =>
  l.ctx.stopped.aborted || l.ctx.clock.now() >= l.ctx.deadline || l.sent >= l.ctx.limit - l.ctx.load.warmup;

/** One model call of an agent, as the synthetic loop and the trace replay send it. */
export interface AgentCall {
  /** "a-000003", a sub-agent's "a-000003.1". */
  agentId: string;
  run: number;
  step: number;
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
  toolChoice?: ToolChoice;
  maxTokens: number;
  /** Tool latency waited since the agent's previous call. */
  toolWaitMs: number;
}

/** Sends one model call; undefined when nothing more may be sent or the call failed. */
export async function sendAgentCall(
  l: AgentLoopState,
  call: AgentCall,
): Promise<{ toolCalls: number; reply: string } | undefined> {
  const { ctx, source } = l;
  while (ctx.inFlight() >= l.cap && !ctx.stopped.aborted) await ctx.slotFreedOr(ctx.stopped);
  if (agentsStopped(l)) return undefined;
  const index = ctx.claim();
  if (index === undefined) return undefined;
  l.sent++;
  if (l.sent >= ctx.limit - ctx.load.warmup) l.exhausted?.abort();
  const item: WorkItem = {
    index,
    id: `${call.agentId}-${call.step}`,
    warmup: false,
    messages: call.messages.slice(),
    promptTokens: source.promptTokens(call.messages),
    maxTokens: call.maxTokens,
    sessionId: call.agentId,
    turn: call.step,
    agentRun: agentRunId(call.run),
    affinityId: source.affinityId(call.run),
  };
  if (call.tools.length > 0) item.tools = call.tools;
  if (call.toolChoice !== undefined && call.tools.length > 0) item.toolChoice = call.toolChoice;
  if (call.toolWaitMs > 0) item.toolWaitMs = call.toolWaitMs;
  let reply = '';
  const record = await ctx.dispatch(item, ctx.clock.now(), (text) => {
    reply = text;
  });
  if (record.outcome !== 'success') return undefined;
  return { toolCalls: record.toolCalls ?? 0, reply };
}
