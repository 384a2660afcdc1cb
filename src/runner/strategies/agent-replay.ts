/**
 * The replay of an agent trace (`--agent-trace`): each recorded run's steps, in order, on the
 * run's LoadClock (live or virtual time alike), through the same calls as synthetic agent runs
 * (agent-call.ts), so the same records, per-step and per-run figures follow.
 *
 * - Arrivals: runs with start times start at them (× `--time-scale`) from the measured start,
 *   however many are in flight; runs without go back to back, `--agents N` at once.
 * - A model step adds its input (a tool message when the last reply's tool call is still
 *   unanswered, else a user message), waits its delay, then calls with its output limit and
 *   tools; tool_choice is required when the trace followed the call with a tool or a fan-out
 *   (`--tool-choice auto` lets the model decide), none otherwise, so replies call tools where the
 *   recording did. The reply goes back in the conversation (its tool call, or its text).
 * - A tool step waits its latency (the next call's `toolWaitMs`) and answers the tool call with
 *   its result.
 * - A fan-out starts its sub-agents from the agent's conversation (`share: conversation`, the
 *   prefix a server's cache holds) or from the run's system prompt (`share: system`); a join waits
 *   for every one started and not joined; an agent ends once its sub-agents have.
 * - Ids as synthetic runs: "a-000003", its sub-agents "a-000003.1", theirs "a-000003.1.1"; every
 *   call of a run carries the run's session-affinity id. A failed call ends its agent.
 *
 * @module
 */

import type { ChatMessage, Ms, ToolCallMessage } from '../../types.js';
import { type AgentReplaySource, type AgentTraceStep, agentRunId } from '../../workload/index.js';
import { type AgentLoopState, agentsStopped, replyToolCall, sendAgentCall } from './agent-call.js';
import type { StrategyResult } from './types.js';

interface ReplayAgent {
  run: number;
  id: string;
  messages: ChatMessage[];
  steps: readonly AgentTraceStep[];
}

/** One agent's conversation state while its steps replay. */
class Conversation {
  /** The last reply's tool call, not yet answered. */
  private open: ToolCallMessage | undefined;
  constructor(readonly messages: ChatMessage[]) {}

  /** What a step adds: the answer to an open tool call, else a user message. */
  add(text: string): void {
    if (this.open) {
      this.messages.push({ role: 'tool', content: text === '' ? 'ok' : text, toolCallId: this.open.id });
      this.open = undefined;
    } else if (text !== '' || this.messages.length === 0) {
      this.messages.push({ role: 'user', content: text === '' ? 'Go on.' : text });
    }
  }

  reply(text: string, toolCall: ToolCallMessage | undefined): void {
    if (toolCall) this.messages.push({ role: 'assistant', content: '', toolCalls: [toolCall] });
    else this.messages.push({ role: 'assistant', content: text });
    this.open = toolCall;
  }
}

/** The kind of the step after i that is not a join (undefined at the end). */
function nextKind(steps: readonly AgentTraceStep[], i: number): AgentTraceStep['kind'] | undefined {
  for (let j = i + 1; j < steps.length; j++) if (steps[j]!.kind !== 'join') return steps[j]!.kind;
  return undefined;
}

/** Waits ms on the load's clock; false when the load stopped meanwhile. */
async function wait(l: AgentLoopState, ms: number): Promise<boolean> {
  if (ms > 0 && !(await l.ctx.clock.sleepUntil(l.ctx.clock.now() + ms, l.ctx.stopped))) return false;
  return !agentsStopped(l);
}

/** One model step; false when the agent cannot go on (stopped, or the call failed). */
async function modelStep(
  l: AgentLoopState,
  rp: AgentReplaySource,
  a: ReplayAgent,
  c: Conversation,
  i: number,
  state: { calls: number; toolWaitMs: number },
): Promise<boolean> {
  const step = a.steps[i]! as Extract<AgentTraceStep, { kind: 'model' }>;
  if (step.delayMs !== undefined && !(await wait(l, step.delayMs))) return false;
  c.add(rp.text(step.input, a.run, `${a.id}/${i}`));
  const tools = rp.tools(step.tools, a.run);
  const next = nextKind(a.steps, i);
  const callsTool = next === 'tool' || next === 'fan_out';
  const r = await sendAgentCall(l, {
    agentId: a.id,
    run: a.run,
    step: ++state.calls,
    messages: a.messages,
    tools,
    toolChoice: callsTool ? rp.toolChoice : 'none',
    maxTokens: step.outputTokens,
    toolWaitMs: state.toolWaitMs,
  });
  state.toolWaitMs = 0;
  if (!r) return false;
  const id = `call_${a.id.replaceAll('.', '_')}_${state.calls}`;
  c.reply(r.reply, r.toolCalls > 0 ? replyToolCall(r.reply, tools, id) : undefined);
  return true;
}

/** Replays one agent's steps (see the module comment); resolves once its sub-agents have ended. */
async function replayAgent(l: AgentLoopState, rp: AgentReplaySource, a: ReplayAgent): Promise<void> {
  const c = new Conversation(a.messages);
  const pending: Promise<void>[] = [];
  const state = { calls: 0, toolWaitMs: 0 };
  let subAgents = 0;
  for (let i = 0; i < a.steps.length && !agentsStopped(l); i++) {
    const step = a.steps[i]!;
    if (step.kind === 'model') {
      if (!(await modelStep(l, rp, a, c, i, state))) break;
    } else if (step.kind === 'tool') {
      if (!(await wait(l, step.latencyMs))) break;
      state.toolWaitMs += step.latencyMs;
      c.add(rp.text(step.result, a.run, `${a.id}/${i}`));
    } else if (step.kind === 'fan_out') {
      const prefix = a.messages.slice();
      for (const sub of step.agents) {
        const messages = sub.share === 'conversation' ? prefix.slice() : rp.start(a.run);
        const id = `${a.id}.${++subAgents}`;
        pending.push(replayAgent(l, rp, { run: a.run, id, messages, steps: sub.steps }));
      }
    } else {
      await Promise.all(pending.splice(0));
    }
  }
  await Promise.all(pending);
}

const replayRun = (l: AgentLoopState, rp: AgentReplaySource, r: number) =>
  replayAgent(l, rp, { run: r, id: agentRunId(r), messages: rp.start(r), steps: rp.run(r).steps });

/** Replays the trace's runs (see the module comment) until they end, the call limit, the deadline or the stop. */
export async function agentReplayLoop(l: AgentLoopState, rp: AgentReplaySource): Promise<StrategyResult> {
  const { ctx } = l;
  const runs = rp.trace.runs;
  if (runs[0]?.startMs !== undefined) {
    const started: Promise<void>[] = [];
    // The wait for a later run's start ends too once --requests calls are sent.
    l.exhausted = new AbortController();
    const until = AbortSignal.any([ctx.stopped, l.exhausted.signal]);
    for (let r = 0; r < runs.length && !agentsStopped(l); r++) {
      const at: Ms = ctx.measuredStartMs + runs[r]!.startMs! * rp.timeScale;
      if (!(await ctx.clock.sleepUntil(at, until)) || agentsStopped(l)) break;
      started.push(replayRun(l, rp, r));
    }
    await Promise.all(started);
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(rp.concurrency, runs.length)) }, async () => {
        while (!agentsStopped(l) && next < runs.length) {
          const before = l.sent;
          await replayRun(l, rp, next++);
          // A run that could send nothing (the call limit was reached): no more runs.
          if (l.sent === before) return;
        }
      }),
    );
  }
  return { sent: l.sent, dropped: 0, lateSends: 0 };
}
