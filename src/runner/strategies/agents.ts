/**
 * The load of an agent run (`--agents N`): N agent runs at once (a closed loop over runs), each
 * a loop of model calls on the run's LoadClock (live or virtual time alike).
 *
 * - Each step sends the whole conversation with the run's tools; tool_choice is the workload's
 *   (required by default) on every step but the last, which says none so that the run ends
 *   with an answer.
 * - A reply that called a tool (its record's `toolCalls`) is answered: the assistant's call goes
 *   back in the conversation, then, after a tool latency, a tool message with the result. The
 *   tool-call ids are the agent's own (`call_<agent>_<step>`) and the function's name is read
 *   from the reply text (chat streams it; the Responses API names it in an item, which carries
 *   no text: the first offered tool is assumed). A reply without a call ends the run.
 * - At the fan-out step the call is answered by K sub-agents instead: each starts from the run's
 *   conversation (the prefix the engine's cache holds) plus a sub-task of its own, runs its own
 *   steps, and the run waits for all of them (the join) before it continues.
 * - Every model call is a record: `sessionId` names the agent (run "a-000003", sub-agent
 *   "a-000003.2"), `turn` its step, `agentRun` the run, `toolWaitMs` the tool latency before it.
 * - `--requests` counts model calls, `--duration` stops everything, `--max-concurrency` caps
 *   calls in flight; a failed call ends its agent (a sub-agent's failure ends only its branch).
 *
 * @module
 */

import type { ChatMessage, Ms, ToolCallMessage, WorkItem } from '../../types.js';
import { type AgentSource, agentRunId } from '../../workload/index.js';
import type { LoadContext, StrategyResult } from './types.js';

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

interface Agent {
  run: number;
  /** 0: the run itself; k ≥ 1: its k-th sub-agent. */
  agent: number;
  messages: ChatMessage[];
  steps: number;
}

/** What the loop's agents share: the context, the workload's runs, the calls sent. */
interface Loop {
  ctx: LoadContext;
  source: AgentSource;
  cap: number;
  sent: number;
}

const stopped = (l: Loop) => l.ctx.stopped.aborted || l.ctx.clock.now() >= l.ctx.deadline;
const agentIdOf = (a: Agent) => (a.agent === 0 ? agentRunId(a.run) : `${agentRunId(a.run)}.${a.agent}`);

/** One model call; undefined when nothing more may be sent or the call failed. */
async function callModel(
  l: Loop,
  a: Agent,
  step: number,
  toolWaitMs: number,
): Promise<{ toolCalls: number; reply: string } | undefined> {
  const { ctx, source } = l;
  while (ctx.inFlight() >= l.cap && !ctx.stopped.aborted) await ctx.slotFreedOr(ctx.stopped);
  if (stopped(l)) return undefined;
  const index = ctx.claim();
  if (index === undefined) return undefined;
  l.sent++;
  const item: WorkItem = {
    index,
    id: `${agentIdOf(a)}-${step}`,
    warmup: false,
    messages: a.messages.slice(),
    promptTokens: source.promptTokens(a.messages),
    maxTokens: source.maxTokens,
    tools: source.tools,
    toolChoice: step < a.steps ? source.spec.toolChoice : 'none',
    sessionId: agentIdOf(a),
    turn: step,
    agentRun: agentRunId(a.run),
    affinityId: source.affinityId(a.run),
  };
  if (toolWaitMs > 0) item.toolWaitMs = toolWaitMs;
  let reply = '';
  const record = await ctx.dispatch(item, ctx.clock.now(), (text) => {
    reply = text;
  });
  if (record.outcome !== 'success') return undefined;
  return { toolCalls: record.toolCalls ?? 0, reply };
}

/**
 * The wait for a tool call's result: the tool latency, or at the fan-out step the sub-agents,
 * joined. Resolves with the tool wait (0 for a join: its time is the sub-agents' model calls),
 * or undefined when the run stopped meanwhile.
 */
async function awaitTool(l: Loop, a: Agent, step: number): Promise<number | undefined> {
  const { ctx, source } = l;
  const { spec } = source;
  const waitStart: Ms = ctx.clock.now();
  if (a.agent === 0 && spec.fanOut > 0 && step === spec.fanOutStep) {
    const prefix = a.messages.slice();
    await Promise.all(
      Array.from({ length: spec.fanOut }, (_, k) =>
        runAgent(l, {
          run: a.run,
          agent: k + 1,
          messages: [...prefix, source.subTask(a.run, k + 1)],
          steps: spec.subSteps,
        }),
      ),
    );
    return stopped(l) ? undefined : 0;
  }
  const latency = source.toolLatencyMs(a.run, a.agent, step);
  if (!(await ctx.clock.sleepUntil(waitStart + latency, ctx.stopped))) return undefined;
  return stopped(l) ? undefined : latency;
}

/** One agent's loop; resolves with its last reply (its answer), or undefined when it was cut short. */
async function runAgent(l: Loop, a: Agent): Promise<string | undefined> {
  let toolWaitMs = 0;
  for (let step = 1; step <= a.steps; step++) {
    const r = await callModel(l, a, step, toolWaitMs);
    if (!r) return undefined;
    if (r.toolCalls === 0 || step === a.steps) {
      a.messages.push({ role: 'assistant', content: r.reply });
      return r.reply;
    }
    const toolCall = replyToolCall(r.reply, l.source.tools, `call_${agentIdOf(a).replace('.', '_')}_${step}`);
    a.messages.push({ role: 'assistant', content: '', toolCalls: [toolCall] });
    const waited = await awaitTool(l, a, step);
    if (waited === undefined) return undefined;
    toolWaitMs = waited;
    a.messages.push({
      role: 'tool',
      content: l.source.toolResult(a.run, a.agent, step),
      toolCallId: toolCall.id,
    });
  }
  return undefined;
}

/** Runs agent runs until the call limit, the deadline or the stop; see the module comment. */
export async function agentLoop(ctx: LoadContext): Promise<StrategyResult> {
  const source = ctx.agents!;
  const l: Loop = { ctx, source, cap: ctx.load.maxConcurrency ?? Number.POSITIVE_INFINITY, sent: 0 };
  let nextRun = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, source.spec.concurrency) }, async () => {
      while (!stopped(l)) {
        const run = nextRun++;
        const before = l.sent;
        await runAgent(l, { run, agent: 0, messages: source.start(run), steps: source.spec.steps });
        // A run that could send nothing (the call limit was reached): no more runs.
        if (l.sent === before) return;
      }
    }),
  );
  return { sent: l.sent, dropped: 0, lateSends: 0 };
}
