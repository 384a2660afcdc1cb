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

import type { ChatMessage, Ms } from '../../types.js';
import { agentRunId } from '../../workload/index.js';
import { type AgentLoopState, agentsStopped, replyToolCall, sendAgentCall } from './agent-call.js';
import { agentReplayLoop } from './agent-replay.js';
import type { LoadContext, StrategyResult } from './types.js';

interface Agent {
  run: number;
  /** 0: the run itself; k ≥ 1: its k-th sub-agent. */
  agent: number;
  messages: ChatMessage[];
  steps: number;
}

type Loop = AgentLoopState;
const stopped = agentsStopped;
const agentIdOf = (a: Agent) => (a.agent === 0 ? agentRunId(a.run) : `${agentRunId(a.run)}.${a.agent}`);

/** One model call of the synthetic loop. */
function callModel(l: Loop, a: Agent, step: number, toolWaitMs: number) {
  return sendAgentCall(l, {
    agentId: agentIdOf(a),
    run: a.run,
    step,
    messages: a.messages,
    tools: l.source.tools,
    toolChoice: step < a.steps ? l.source.spec.toolChoice : 'none',
    maxTokens: l.source.maxTokens,
    toolWaitMs,
  });
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
  if (source.replay) return agentReplayLoop(l, source.replay);
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
