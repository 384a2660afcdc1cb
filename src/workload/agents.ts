/**
 * Synthetic agent runs (`--agents N`): what each run of an agent loop sends, seeded. A run
 * starts with the shared system prompt and a task of `--prompt-tokens`; it offers `--tools`
 * synthetic functions; after each tool call it waits a tool latency (`--tool-latency`, ms,
 * a length distribution's grammar) and sends a tool result of `--tool-result-tokens`. At
 * `--agent-fan-out-step` its call fans out to `--agent-fan-out` sub-agents, each starting from
 * the run's conversation plus a sub-task of its own (so they share the run's prefix), run
 * `--agent-sub-steps` steps and are joined. The loop itself is runner/strategies/agents.ts.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { AgentWorkloadSpec, ChatMessage, LengthDistSpec, ToolDefinition } from '../types.js';
import { conversationAffinityId } from './affinity.js';
import type { AgentTrace } from './agent-trace.js';
import { type AgentReplaySource, createAgentReplaySource } from './agent-trace-source.js';
import { drawLength, type LengthDist, lengthDistSpec, parseLengthDist } from './length-dist.js';
import type { Rng } from './rng.js';
import { syntheticPrompt } from './synthetic.js';
import type { Tokenizer } from './tokenizer.js';

/** What the agent strategy asks of the workload. */
export interface AgentSource {
  readonly spec: AgentWorkloadSpec;
  /** The functions every step offers (one array for the run). */
  readonly tools: readonly ToolDefinition[];
  /** Output limit of each model call. */
  readonly maxTokens: number;
  /** The opening messages of run r: the shared system prompt (if any) and its task. */
  start(run: number): ChatMessage[];
  /** Sub-agent k's own first message of run r (after the run's conversation). */
  subTask(run: number, agent: number): ChatMessage;
  /** The tool latency (ms) after step `step` of agent `agent` (0 the run itself, k a sub-agent) of run r. */
  toolLatencyMs(run: number, agent: number, step: number): number;
  /** The text of the tool result after that step. */
  toolResult(run: number, agent: number, step: number): string;
  /** Prompt tokens of a conversation, as the client counts them. */
  promptTokens(messages: readonly ChatMessage[]): number;
  /** Run r's session-affinity id (its sub-agents share it, so a router keeps them with its prefix). */
  affinityId(run: number): string;
  /** `--agent-trace`: the recorded runs to replay instead (agent-trace-source.ts). */
  readonly replay?: AgentReplaySource;
}

export interface AgentSourceInput {
  spec: AgentWorkloadSpec;
  toolLatency: LengthDist;
  toolResultTokens: LengthDist;
  taskTokens: number;
  maxTokens: number;
  tokenizer: Tokenizer;
  root: Rng;
  systemText: string;
  /** `--tools FILE`: these functions instead of `spec.tools` synthetic ones. */
  tools?: ToolDefinition[];
  /** `--agent-trace`: the recorded runs to replay (spec.trace names the file). */
  trace?: AgentTrace;
}

/** The agent flags as given (`--agents` and the `--agent-*`, `--tool-*` flags), defaults filled in by `agentWorkload`. */
export interface AgentFlags {
  concurrency: number;
  steps?: number;
  tools?: number;
  toolChoice?: string;
  /** Milliseconds, in the grammar of --prompt-tokens-dist (`200`, `uniform:50-400`, `lognormal:mean=300,sigma=0.5`). */
  toolLatency?: string;
  toolResultTokens?: string;
  fanOut?: number;
  fanOutStep?: number;
  subSteps?: number;
}

/** Defaults: 4 steps, 4 tools, required, 100 ms tool latency, 64-token results, no fan-out (at step 2, 2 sub-steps). */
export const AGENT_DEFAULTS = {
  steps: 4,
  tools: 4,
  toolLatency: '100',
  toolResultTokens: '64',
  fanOutStep: 2,
  subSteps: 2,
} as const;

function agentUsage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** The agent workload of the flags: the spec recorded in the summary and its two distributions. */
export function agentWorkload(f: AgentFlags): {
  spec: AgentWorkloadSpec;
  toolLatency: LengthDist;
  toolResultTokens: LengthDist;
} {
  const steps = f.steps ?? AGENT_DEFAULTS.steps;
  const fanOut = f.fanOut ?? 0;
  const fanOutStep = f.fanOutStep ?? AGENT_DEFAULTS.fanOutStep;
  const choice = f.toolChoice ?? 'required';
  if (choice !== 'auto' && choice !== 'required')
    throw agentUsage(
      `--tool-choice '${choice}' cannot drive an agent`,
      'agents use --tool-choice required (a call each step) or auto (the model decides)',
    );
  if (fanOut > 0 && fanOutStep >= steps)
    throw agentUsage(
      `--agent-fan-out-step ${fanOutStep} is not before the last of --agent-steps ${steps}`,
      'fan out at a step before the last, e.g. --agent-steps 4 --agent-fan-out-step 2',
    );
  const toolLatency = parseLengthDist(f.toolLatency ?? AGENT_DEFAULTS.toolLatency, '--tool-latency');
  const toolResultTokens = parseLengthDist(
    f.toolResultTokens ?? AGENT_DEFAULTS.toolResultTokens,
    '--tool-result-tokens',
  );
  if (toolLatency.kind === 'empirical' || toolResultTokens.kind === 'empirical')
    throw agentUsage(
      'agent distributions cannot be empirical:FILE',
      'use fixed, uniform, normal or lognormal',
    );
  return {
    spec: {
      concurrency: f.concurrency,
      steps,
      tools: f.tools ?? AGENT_DEFAULTS.tools,
      toolChoice: choice,
      toolLatencyMs: lengthDistSpec(toolLatency),
      toolResultTokens: lengthDistSpec(toolResultTokens),
      fanOut,
      fanOutStep,
      subSteps: f.subSteps ?? AGENT_DEFAULTS.subSteps,
    },
    toolLatency,
    toolResultTokens,
  };
}

/** A trace's figures as an empirical distribution's spec: its mean, and the trace it came from. */
function traceDist(trace: AgentTrace, values: number[]): LengthDistSpec {
  const mean = values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
  return {
    kind: 'empirical',
    text: `agent-trace:${trace.format}`,
    mean,
    source: { path: trace.path, sha256: trace.sha256, samples: values.length },
  };
}

/**
 * The agent workload of a trace (`--agent-trace`): the spec recorded in the summary says what
 * the trace holds (the longest run's own model calls, the widest fan-out, a sub-agent's most
 * calls, the tool latencies and result lengths as empirical distributions of the trace) and
 * names the file (`trace`). `f.concurrency`: runs at once when the trace has no start times.
 */
export function agentTraceWorkload(
  trace: AgentTrace,
  f: AgentFlags & { timeScale?: number },
): { spec: AgentWorkloadSpec; toolLatency: LengthDist; toolResultTokens: LengthDist; trace: AgentTrace } {
  const choice = f.toolChoice ?? 'required';
  if (choice !== 'auto' && choice !== 'required')
    throw agentUsage(`--tool-choice '${choice}' cannot drive an agent`, 'use --tool-choice required or auto');
  const latencies: number[] = [];
  const results: number[] = [];
  let steps = 0;
  let fanOut = 0;
  let subSteps = 0;
  const walk = (list: AgentTrace['runs'][number]['steps'], sub: boolean) => {
    for (const s of list) {
      if (s.kind === 'tool') {
        latencies.push(s.latencyMs);
        if ('tokens' in s.result) results.push(s.result.tokens);
      } else if (s.kind === 'fan_out') {
        fanOut = Math.max(fanOut, s.agents.length);
        for (const a of s.agents) {
          subSteps = Math.max(subSteps, a.steps.filter((x) => x.kind === 'model').length);
          walk(a.steps, true);
        }
      }
    }
    if (!sub) steps = Math.max(steps, list.filter((x) => x.kind === 'model').length);
  };
  for (const run of trace.runs) walk(run.steps, false);
  const timeScale = f.timeScale ?? 1;
  const spec: AgentWorkloadSpec = {
    concurrency: f.concurrency,
    steps,
    tools: f.tools ?? AGENT_DEFAULTS.tools,
    toolChoice: choice,
    toolLatencyMs: traceDist(trace, latencies),
    toolResultTokens: traceDist(trace, results),
    fanOut,
    fanOutStep: 0,
    subSteps,
    trace: {
      path: trace.path,
      format: trace.format,
      sha256: trace.sha256,
      runs: trace.runs.length,
      ...(timeScale !== 1 ? { timeScale } : {}),
    },
  };
  // Not drawn from in a replay (each tool step carries its own); at least 1, as a length must be.
  const fixed = (v: number) => parseLengthDist(String(Math.max(1, Math.round(v))), 'agent trace');
  return {
    spec,
    toolLatency: fixed(spec.toolLatencyMs.mean),
    toolResultTokens: fixed(spec.toolResultTokens.mean),
    trace,
  };
}

/** The run's id: "a-000042"; a sub-agent's adds ".k". */
export function agentRunId(run: number): string {
  return `a-${String(run).padStart(6, '0')}`;
}

/** `count` synthetic functions: tool_0 … with a one-string-argument schema (the engine fills `query`). */
export function syntheticTools(count: number): ToolDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    description: `Synthetic tool ${i}: looks something up`,
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  }));
}

/** The seeded agent runs of a workload (see the module comment). */
export function createAgentSource(input: AgentSourceInput): AgentSource {
  const { spec, tokenizer, root } = input;
  const tools = input.tools ?? syntheticTools(spec.tools);
  const taskRng = root.fork('agent-task');
  const subRng = root.fork('agent-subtask');
  const latencyRng = root.fork('agent-tool-latency');
  const resultRng = root.fork('agent-tool-result');
  const subTaskTokens = Math.max(1, Math.round(input.taskTokens / 4));
  const key = (run: number, agent: number, step: number) => `${run}/${agent}/${step}`;
  const replay = input.trace
    ? createAgentReplaySource({
        trace: input.trace,
        concurrency: spec.concurrency,
        timeScale: spec.trace?.timeScale ?? 1,
        toolChoice: spec.toolChoice,
        tools,
        tokenizer,
        root,
        systemText: input.systemText,
        syntheticTools,
      })
    : undefined;
  return {
    spec,
    tools,
    maxTokens: input.maxTokens,
    ...(replay ? { replay } : {}),
    start(run) {
      const task = syntheticPrompt(input.taskTokens, taskRng.fork(run), tokenizer, { unique: run });
      const messages: ChatMessage[] = [];
      if (input.systemText !== '') messages.push({ role: 'system', content: input.systemText });
      messages.push({ role: 'user', content: task });
      return messages;
    },
    subTask(run, agent) {
      const text = syntheticPrompt(subTaskTokens, subRng.fork(run).fork(agent), tokenizer, { unique: agent });
      return { role: 'user', content: text };
    },
    toolLatencyMs(run, agent, step) {
      return drawLength(input.toolLatency, latencyRng.fork(key(run, agent, step)));
    },
    toolResult(run, agent, step) {
      const rng = resultRng.fork(key(run, agent, step));
      return syntheticPrompt(drawLength(input.toolResultTokens, rng), rng.fork('text'), tokenizer);
    },
    affinityId: (run) => conversationAffinityId(root.key, agentRunId(run)),
    promptTokens(messages) {
      let n = 0;
      for (const m of messages) {
        if (m.content !== '') n += tokenizer.count(m.content);
        for (const c of m.toolCalls ?? []) n += tokenizer.count(c.arguments);
      }
      return n;
    },
  };
}
