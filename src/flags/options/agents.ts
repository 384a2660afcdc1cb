/**
 * Tools and agent runs: `--tools`, `--tool-choice` (any chat/Responses run), `--agents` and the
 * `--agent-*`, `--tool-latency`, `--tool-result-tokens` flags of agent workloads
 * (workload/agents.ts, runner/strategies/agents.ts).
 *
 * @module
 */

import { defineOptions } from './table.js';

export const AGENT_OPTIONS = defineOptions({
  tools: {
    type: 'string',
    valueName: 'N|FILE',
    group: 'Workload',
    description:
      'Chat/Responses: offer tools with every request: N synthetic functions, or a JSON file of OpenAI tool definitions ([{"type":"function","function":{…}}] or [{"name":…}]) [default with --agents: 4]',
  },
  toolChoice: {
    type: 'string',
    valueName: 'auto|required|none|NAME',
    group: 'Workload',
    description:
      "tool_choice sent with --tools (a function's name forces that one) [default: the server's, auto; agents: required]",
  },
  agents: {
    type: 'integer',
    min: 1,
    max: 100_000,
    valueName: 'N',
    group: 'Workload',
    description:
      'Agent runs at once (closed loop): each a loop of model calls with tools, tool results sent back after a tool latency, up to --agent-steps; --requests counts model calls',
  },
  agentSteps: {
    type: 'integer',
    min: 1,
    max: 1000,
    valueName: 'N',
    group: 'Workload',
    description:
      'Agents: model calls per run at most (the last one asks for an answer, tool_choice none) [default: 4]',
  },
  agentFanOut: {
    type: 'integer',
    min: 0,
    max: 1000,
    valueName: 'K',
    group: 'Workload',
    description:
      "Agents: at --agent-fan-out-step the run's tool call fans out to K sub-agents sharing its conversation, joined before it goes on [default: 0]",
  },
  agentFanOutStep: {
    type: 'integer',
    min: 1,
    max: 1000,
    valueName: 'S',
    group: 'Workload',
    description: 'Agents: the step whose tool call fans out [default: 2]',
  },
  agentSubSteps: {
    type: 'integer',
    min: 1,
    max: 1000,
    valueName: 'N',
    group: 'Workload',
    description: 'Agents: model calls per sub-agent at most [default: 2]',
  },
  agentTrace: {
    type: 'string',
    valueName: 'FILE',
    group: 'Workload',
    description:
      "Replay recorded agent runs: goodput's agent-trace JSONL, WEKA traces or an OTLP JSON export of GenAI spans (docs/agents.md); runs start at their times (--time-scale) or go back to back, --agents at once (default 1)",
  },
  agentTraceFormat: {
    type: 'string',
    choices: ['auto', 'goodput', 'weka', 'otlp'],
    default: 'auto',
    group: 'Workload',
    description: 'Form of --agent-trace; auto recognises it from the first line',
  },
  toolLatency: {
    type: 'string',
    valueName: 'DIST',
    group: 'Workload',
    description:
      'Agents: milliseconds a tool takes, fixed (200) or a distribution in the grammar of --prompt-tokens-dist (uniform:50-400, lognormal:mean=300,sigma=0.5) [default: 100]',
  },
  toolResultTokens: {
    type: 'string',
    valueName: 'DIST',
    group: 'Workload',
    description:
      'Agents: tokens of each tool result, fixed or a distribution (grammar of --prompt-tokens-dist) [default: 64]',
  },
});
