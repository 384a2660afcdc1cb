/**
 * The tool and agent flags: `--tools N|FILE` and `--tool-choice` (single chat/Responses
 * requests offer them; with `--agents` the runs do), `--agents N` with its `--agent-*`,
 * `--tool-latency`, `--tool-result-tokens`, and `--tool-call-fraction` for the embedded engine.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { GoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/config.js';
import type { ToolChoice, ToolDefinition } from '../types.js';
import { readTextFileBounded } from '../util/index.js';
import { agentTraceWorkload, agentWorkload, loadAgentTrace, syntheticTools } from '../workload/index.js';
import type { BenchmarkFlags } from './options/index.js';

type AgentFlagValues = Pick<
  BenchmarkFlags,
  | 'tools'
  | 'toolChoice'
  | 'agents'
  | 'agentSteps'
  | 'agentFanOut'
  | 'agentFanOutStep'
  | 'agentSubSteps'
  | 'toolLatency'
  | 'toolResultTokens'
  | 'toolCallFraction'
  | 'agentTrace'
  | 'agentTraceFormat'
  | 'timeScale'
>;

const AGENT_ONLY = [
  'agentSteps',
  'agentFanOut',
  'agentFanOutStep',
  'agentSubSteps',
  'toolLatency',
  'toolResultTokens',
] as const;
const MAX_TOOLS = 1000;
const MAX_TOOLS_FILE_BYTES = 4 * 1024 * 1024;

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

const kebab = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** One tool definition of a file, in chat's nesting or the Responses API's flat form. */
function toolOf(value: unknown, where: string): ToolDefinition {
  const o = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  const fn =
    o && o.function !== null && typeof o.function === 'object' ? (o.function as Record<string, unknown>) : o;
  if (!fn || typeof fn.name !== 'string' || fn.name === '')
    throw usage(
      `${where} has no function name`,
      'each tool is {"type":"function","function":{"name":…}} or {"name":…}',
    );
  const tool: ToolDefinition = { name: fn.name };
  if (typeof fn.description === 'string') tool.description = fn.description;
  if (fn.parameters !== null && typeof fn.parameters === 'object')
    tool.parameters = fn.parameters as Record<string, unknown>;
  return tool;
}

/**
 * `--tools`: N synthetic functions, or the definitions of a JSON file (its path and sha256
 * recorded); `flag` names where it was given in messages (a class's `tools=`).
 */
export async function readTools(
  text: string,
  cwd: string,
  flag = '--tools',
): Promise<{ definitions: ToolDefinition[]; file?: { path: string; sha256: string } }> {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < 1 || n > MAX_TOOLS)
      throw usage(`${flag} ${text} is not from 1 to ${MAX_TOOLS}`, 'e.g. --tools 4');
    return { definitions: syntheticTools(n) };
  }
  const path = resolvePath(cwd, text);
  const read = await readTextFileBounded(path, { maxBytes: MAX_TOOLS_FILE_BYTES });
  if (!read.ok)
    throw usage(
      `${flag} ${text}: ${read.problem}`,
      'pass a tool count (--tools 4) or a JSON file of tool definitions',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch (e) {
    throw usage(
      `${flag} ${text} is not JSON: ${(e as Error).message}`,
      'write a JSON array of OpenAI tool definitions',
    );
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_TOOLS)
    throw usage(
      `${flag} ${text} holds no list of 1 to ${MAX_TOOLS} tools`,
      'write [{"type":"function","function":{"name":"search"}}] or {"tools":[…]}',
    );
  const definitions = list.map((t, i) => toolOf(t, `${flag} ${text}: tool [${i}]`));
  return { definitions, file: { path, sha256: createHash('sha256').update(read.text).digest('hex') } };
}

function toolChoiceOf(text: string, names: readonly string[]): ToolChoice {
  if (text === 'auto' || text === 'required' || text === 'none') return text;
  if (!names.includes(text))
    throw usage(
      `--tool-choice ${text} names no offered tool`,
      `use auto, required, none or one of: ${names.slice(0, 8).join(', ')}`,
    );
  return { name: text };
}

/** Agent runs make their own conversations in one load loop. */
function checkAgentLoad(config: BenchmarkConfig): void {
  if (
    config.load.sessions !== undefined ||
    config.workload.trace !== undefined ||
    config.workload.datasetPath !== undefined
  )
    throw usage(
      '--agents and --agent-trace cannot be used with sessions, --trace or --dataset',
      'agent runs make their own conversations: drop one of them',
    );
  if ((config.load.workers ?? 1) > 1 || config.shard !== undefined)
    throw usage(
      'agent runs go in one load loop',
      'drop --workers and --shard (a run of agents keeps whole runs together)',
    );
}

/** `--agent-trace FILE`: the recorded runs, read and checked now; every run unless --requests or --duration cut it. */
async function applyAgentTrace(
  o: AgentFlagValues,
  text: string,
  given: ReadonlySet<string>,
  config: BenchmarkConfig,
  cwd: string,
  read: Awaited<ReturnType<typeof readTools>> | undefined,
): Promise<void> {
  for (const key of AGENT_ONLY)
    if (given.has(key))
      throw usage(
        `${kebab(key)} cannot be used with --agent-trace`,
        'the trace gives every step its latency, lengths and fan-outs; drop the flag',
      );
  checkAgentLoad(config);
  const format = o.agentTraceFormat === 'auto' ? undefined : o.agentTraceFormat;
  const trace = await loadAgentTrace(resolvePath(cwd, text), format ? { format } : {});
  const agents = agentTraceWorkload(trace, {
    concurrency: o.agents ?? 1,
    ...(read ? { tools: read.definitions.length } : {}),
    ...(o.toolChoice !== undefined ? { toolChoice: o.toolChoice } : {}),
    ...(o.timeScale !== undefined ? { timeScale: o.timeScale } : {}),
  });
  config.workload.agents = read ? { ...agents, tools: read.definitions } : agents;
  if (!given.has('requests')) delete config.load.requests;
}

/** Applies the tool and agent flags to a config whose target and workload are resolved. */
export async function applyAgentFlags(
  o: AgentFlagValues,
  given: ReadonlySet<string>,
  config: BenchmarkConfig,
  cwd: string,
): Promise<void> {
  if (o.toolCallFraction !== undefined) {
    if (config.url !== undefined)
      throw usage(
        '--tool-call-fraction applies to the embedded engine only',
        'drop --url to simulate tool calls, or drop it to measure the server',
      );
    config.sim = { ...config.sim, toolCallFraction: o.toolCallFraction };
  }
  const toolsText = o.tools?.trim() || undefined;
  if (
    (toolsText !== undefined || o.toolChoice !== undefined || o.agents !== undefined) &&
    config.api !== 'chat' &&
    config.api !== 'responses'
  )
    throw usage(
      `tools and agents need --api chat or responses, not ${config.api}`,
      'drop --api, or use --api responses',
    );
  const read = toolsText !== undefined ? await readTools(toolsText, cwd) : undefined;
  const tracePath = o.agentTrace?.trim() || undefined;
  if (tracePath !== undefined) return applyAgentTrace(o, tracePath, given, config, cwd, read);
  if (given.has('agentTraceFormat'))
    throw usage(
      '--agent-trace-format needs --agent-trace',
      'e.g. --agent-trace runs.jsonl --agent-trace-format weka',
    );
  if (o.agents === undefined) {
    for (const key of AGENT_ONLY)
      if (given.has(key)) throw usage(`${kebab(key)} needs --agents`, 'e.g. --agents 4 --agent-steps 6');
    if (o.toolChoice !== undefined && !read)
      throw usage('--tool-choice needs --tools', 'e.g. --tools 4 --tool-choice required');
    if (!read) return;
    const names = read.definitions.map((t) => t.name);
    config.workload.tools = {
      spec: {
        count: names.length,
        ...(o.toolChoice !== undefined ? { choice: toolChoiceOf(o.toolChoice, names) } : {}),
        ...(read.file ? { file: read.file } : {}),
      },
      definitions: read.definitions,
    };
    return;
  }
  checkAgentLoad(config);
  const agents = agentWorkload({
    concurrency: o.agents,
    ...(o.agentSteps !== undefined ? { steps: o.agentSteps } : {}),
    ...(read ? { tools: read.definitions.length } : {}),
    ...(o.toolChoice !== undefined ? { toolChoice: o.toolChoice } : {}),
    ...(o.toolLatency !== undefined ? { toolLatency: o.toolLatency } : {}),
    ...(o.toolResultTokens !== undefined ? { toolResultTokens: o.toolResultTokens } : {}),
    ...(o.agentFanOut !== undefined ? { fanOut: o.agentFanOut } : {}),
    ...(o.agentFanOutStep !== undefined ? { fanOutStep: o.agentFanOutStep } : {}),
    ...(o.agentSubSteps !== undefined ? { subSteps: o.agentSubSteps } : {}),
  });
  config.workload.agents = read?.file ? { ...agents, tools: read.definitions } : agents;
}
