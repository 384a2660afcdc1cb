/**
 * What a replay of an agent trace sends (`--agent-trace`): the runs of the trace
 * (agent-trace.ts) with the text of each step, seeded, and the tools each call offers. The loop
 * is runner/strategies/agent-replay.ts.
 *
 * - A run's system prompt: its own `system_tokens` of one seeded text (runs of different lengths
 *   share its beginning, as recorded runs of one product share their system prompt), else the
 *   shared `--system-prompt-tokens` prompt.
 * - A step's tokens are seeded synthetic text, distinct for every run, agent and step; a step's
 *   text is sent as given.
 * - A call offers the step's `tools` (a count: the first N of the run's functions, `--tools FILE`
 *   ones first; names: those functions), else the run's `tools`, else `--tools`, else 4.
 *
 * @module
 */

import type { ChatMessage, ToolDefinition } from '../types.js';
import type { AgentTrace, AgentTraceInput, AgentTraceRun } from './agent-trace.js';
import type { Rng } from './rng.js';
import { syntheticPrompt } from './synthetic.js';
import type { Tokenizer } from './tokenizer.js';

export interface AgentReplaySource {
  readonly trace: AgentTrace;
  /** Runs at once when the trace has no start times (`--agents N`, default 1). */
  readonly concurrency: number;
  /** Multiplies the runs' start times (`--time-scale`). */
  readonly timeScale: number;
  /** tool_choice of a call that the trace followed with a tool or a fan-out. */
  readonly toolChoice: 'auto' | 'required';
  run(r: number): AgentTraceRun;
  /** Run r's opening messages: its system prompt, if any. */
  start(r: number): ChatMessage[];
  /** The text of what a step adds; `key` names the agent and step ("2/3"). */
  text(input: AgentTraceInput, r: number, key: string): string;
  /** The functions a call offers. */
  tools(offered: number | readonly string[] | undefined, r: number): readonly ToolDefinition[];
}

export interface AgentReplayInput {
  trace: AgentTrace;
  concurrency: number;
  timeScale: number;
  toolChoice: 'auto' | 'required';
  /** The default functions (`--tools`, or AGENT_DEFAULTS.tools synthetic ones). */
  tools: readonly ToolDefinition[];
  tokenizer: Tokenizer;
  root: Rng;
  systemText: string;
  /** `count` synthetic functions tool_0 … (agents.ts). */
  syntheticTools: (count: number) => ToolDefinition[];
}

/** A function offered by name: the given definition of that name, or a synthetic one named so. */
function namedTool(
  name: string,
  known: readonly ToolDefinition[],
  synthetic: ToolDefinition,
): ToolDefinition {
  return known.find((t) => t.name === name) ?? { ...synthetic, name };
}

export function createAgentReplaySource(input: AgentReplayInput): AgentReplaySource {
  const { trace, tokenizer, root } = input;
  const systemRng = root.fork('agent-trace-system');
  const stepRng = root.fork('agent-trace-step');
  const synthetic = input.syntheticTools(1)[0]!;
  const byCount = new Map<number, readonly ToolDefinition[]>();
  const systems = new Map<number, string>();
  const toolsOf = (n: number): readonly ToolDefinition[] => {
    let list = byCount.get(n);
    if (!list) {
      const given = input.tools.slice(0, n);
      const more = input.syntheticTools(n).slice(given.length);
      list = [...given, ...more];
      byCount.set(n, list);
    }
    return list;
  };
  return {
    trace,
    concurrency: input.concurrency,
    timeScale: input.timeScale,
    toolChoice: input.toolChoice,
    run: (r) => trace.runs[r]!,
    start(r) {
      const tokens = trace.runs[r]!.systemTokens;
      if (tokens === undefined)
        return input.systemText === '' ? [] : [{ role: 'system', content: input.systemText }];
      if (tokens === 0) return [];
      let text = systems.get(tokens);
      if (text === undefined) {
        text = syntheticPrompt(tokens, systemRng.fork(0), tokenizer);
        systems.set(tokens, text);
      }
      return [{ role: 'system', content: text }];
    },
    text(step, r, key) {
      if ('text' in step) return step.text;
      return syntheticPrompt(step.tokens, stepRng.fork(r).fork(key), tokenizer, { unique: r });
    },
    tools(offered, r) {
      if (Array.isArray(offered)) return offered.map((name) => namedTool(name, input.tools, synthetic));
      const n = (offered as number | undefined) ?? trace.runs[r]!.tools;
      return n === undefined ? input.tools : toolsOf(n);
    },
  };
}
