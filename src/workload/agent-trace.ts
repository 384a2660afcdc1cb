/**
 * Recorded agent runs (`--agent-trace FILE`): the runs a trace holds, in one shape whatever the
 * file's form (goodput's JSONL here; WEKA's in agent-trace-weka.ts, OTLP GenAI spans in
 * agent-trace-otel.ts), and the reader of goodput's own form. docs/agents.md documents it.
 *
 * goodput's form is one JSON object per line, one agent run per line: a run is a tree (its
 * sub-agents nest inside the step that fans out), so a line holds all of it and replays alone,
 * with no other line to wait for or to join by id; an error names the line and the field's
 * path (`steps[3].agents[0].steps[1].latency_ms`).
 *
 *     {"run":"r1","start_ms":0,"system_tokens":1200,"tools":4,"steps":[
 *       {"kind":"model","input_tokens":800,"output_tokens":120},
 *       {"kind":"tool","latency_ms":350,"result_tokens":400},
 *       {"kind":"fan_out","agents":[{"steps":[{"kind":"model","input_tokens":90,"output_tokens":40}]}]},
 *       {"kind":"join"},
 *       {"kind":"model","output_tokens":200}]}
 *
 * Hostile input is bounded: bytes and lines (agent-trace-file.ts), steps per agent, sub-agents per
 * fan-out, fan-out depth and model calls per run (here); every number is checked.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { didYouMean, MAX_TOKENS } from '../util/index.js';

/** What is added to the conversation: a number of synthetic tokens, or the text itself. */
export type AgentTraceInput = { tokens: number } | { text: string };

export type AgentTraceStep =
  /** A model call: what is added before it, its output limit, the tools it offers, a wait before it (not a tool's). */
  | {
      kind: 'model';
      input: AgentTraceInput;
      outputTokens: number;
      tools?: number | string[];
      delayMs?: number;
    }
  /** A tool wait after the last reply: its latency, then its result goes back in the conversation. */
  | { kind: 'tool'; latencyMs: number; result: AgentTraceInput }
  /** Sub-agents started now; they run alongside this agent until a join (or its end). */
  | { kind: 'fan_out'; agents: AgentTraceAgent[] }
  /** Waits for every sub-agent started and not yet joined. */
  | { kind: 'join' };

export interface AgentTraceAgent {
  /** `conversation` (default): starts from its parent's conversation; `system`: from the run's system prompt only. */
  share: 'conversation' | 'system';
  steps: AgentTraceStep[];
}

export interface AgentTraceRun {
  /** The trace's own name of the run (default `line N`). */
  id: string;
  /** When the run starts, ms after the first run (absent: runs go back to back, --agents at once). */
  startMs?: number;
  /** Tokens of the run's own system prompt (absent: the shared --system-prompt-tokens one). */
  systemTokens?: number;
  /** Tools a model call offers when it says nothing (default AGENT_TRACE_DEFAULT_TOOLS or --tools). */
  tools?: number;
  steps: AgentTraceStep[];
}

export type AgentTraceFormat = 'goodput' | 'weka' | 'otlp';

export interface AgentTrace {
  path: string;
  format: AgentTraceFormat;
  sha256: string;
  runs: AgentTraceRun[];
}

/** Bounds on one run (the file's bytes and lines are bounded where it is read). */
export const AGENT_TRACE_LIMITS = {
  /** Sub-agents inside sub-agents, levels. */
  depth: 8,
  stepsPerAgent: 10_000,
  agentsPerFanOut: 1_000,
  modelCallsPerRun: 100_000,
  /** A tool latency or a delay: one day. */
  waitMs: 86_400_000,
  textChars: 1_000_000,
} as const;

export const AGENT_TRACE_HINT =
  'an agent trace line is {"steps":[{"kind":"model","input_tokens":N,"output_tokens":M},{"kind":"tool","latency_ms":L,"result_tokens":R},…]}: see docs/agents.md';

/** An error naming where (`file:line`) and the field's path. */
export function agentTraceError(
  where: string,
  field: string | undefined,
  problem: string,
  hint = AGENT_TRACE_HINT,
): GoodputError {
  return new GoodputError(
    'E_DATASET',
    `agent trace ${where}: ${field !== undefined ? `field "${field}": ` : ''}${problem}`,
    hint,
  );
}

/** A JSON object (not null, not an array): what every trace form's readers check first. */
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads fields of one object, each error naming `where` and the field's path. */
class Fields {
  constructor(
    readonly where: string,
    readonly path: string,
    readonly o: Obj,
  ) {}
  at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }
  fail(key: string | undefined, problem: string): never {
    throw agentTraceError(this.where, key === undefined ? this.path || undefined : this.at(key), problem);
  }
  only(keys: readonly string[]): void {
    for (const k of Object.keys(this.o))
      if (!keys.includes(k)) this.fail(k, `unknown field${didYouMean(k, keys)}`);
  }
  num(key: string, min: number, max: number, integer: boolean): number | undefined {
    const v = this.o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v))
      this.fail(key, `expected a number, got ${JSON.stringify(v)}`);
    if (integer && !Number.isInteger(v)) this.fail(key, `expected a whole number, got ${v}`);
    if (v < min || v > max) this.fail(key, `${v} is not from ${min} to ${max}`);
    return v;
  }
  text(key: string): string | undefined {
    const v = this.o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') this.fail(key, `expected a string, got ${typeof v}`);
    if (v.length > AGENT_TRACE_LIMITS.textChars)
      this.fail(key, `longer than ${AGENT_TRACE_LIMITS.textChars} characters`);
    return v;
  }
  /** `<prefix>_tokens` or `<prefix>_text`, not both. */
  input(prefix: string): AgentTraceInput {
    const tokens = this.num(`${prefix}_tokens`, 0, MAX_TOKENS, true);
    const text = this.text(`${prefix}_text`);
    if (tokens !== undefined && text !== undefined)
      this.fail(`${prefix}_text`, `give ${prefix}_tokens or ${prefix}_text, not both`);
    return text !== undefined ? { text } : { tokens: tokens ?? 0 };
  }
}

/** Counts what a run holds while it is read, against AGENT_TRACE_LIMITS. */
interface Budget {
  modelCalls: number;
}

function parseTools(f: Fields): number | string[] | undefined {
  const v = f.o.tools;
  if (Array.isArray(v)) {
    if (v.length > 1000) f.fail('tools', 'more than 1000 tools');
    return v.map((name, i) => {
      if (typeof name !== 'string' || name === '' || name.length > 128)
        f.fail(`tools[${i}]`, 'expected a function name (1 to 128 characters)');
      return name;
    });
  }
  return f.num('tools', 0, 1000, true);
}

function parseStep(v: unknown, where: string, path: string, depth: number, budget: Budget): AgentTraceStep {
  if (!isObj(v)) throw agentTraceError(where, path, 'expected an object {"kind":…}');
  const f: Fields = new Fields(where, path, v);
  switch (v.kind) {
    case 'model': {
      f.only(['kind', 'input_tokens', 'input_text', 'output_tokens', 'tools', 'delay_ms']);
      if (++budget.modelCalls > AGENT_TRACE_LIMITS.modelCallsPerRun)
        f.fail(undefined, `more than ${AGENT_TRACE_LIMITS.modelCallsPerRun} model calls in one run`);
      const outputTokens = f.num('output_tokens', 1, MAX_TOKENS, true);
      if (outputTokens === undefined) f.fail('output_tokens', "missing (the call's max_tokens)");
      const step: Extract<AgentTraceStep, { kind: 'model' }> = {
        kind: 'model',
        input: f.input('input'),
        outputTokens,
      };
      const tools = parseTools(f);
      if (tools !== undefined) step.tools = tools;
      const delayMs = f.num('delay_ms', 0, AGENT_TRACE_LIMITS.waitMs, false);
      if (delayMs) step.delayMs = delayMs;
      return step;
    }
    case 'tool': {
      f.only(['kind', 'latency_ms', 'result_tokens', 'result_text', 'name']);
      const latencyMs = f.num('latency_ms', 0, AGENT_TRACE_LIMITS.waitMs, false);
      if (latencyMs === undefined) f.fail('latency_ms', 'missing (how long the tool took, ms)');
      f.text('name');
      return { kind: 'tool', latencyMs, result: f.input('result') };
    }
    case 'fan_out': {
      f.only(['kind', 'agents']);
      if (depth >= AGENT_TRACE_LIMITS.depth)
        f.fail(undefined, `sub-agents nested deeper than ${AGENT_TRACE_LIMITS.depth} levels`);
      const list: unknown = v.agents;
      if (!Array.isArray(list) || list.length === 0 || list.length > AGENT_TRACE_LIMITS.agentsPerFanOut)
        f.fail('agents', `expected a list of 1 to ${AGENT_TRACE_LIMITS.agentsPerFanOut} sub-agents`);
      return {
        kind: 'fan_out',
        agents: list.map((a, i) => parseAgent(a, where, f.at(`agents[${i}]`), depth + 1, budget)),
      };
    }
    case 'join':
      f.only(['kind']);
      return { kind: 'join' };
    default:
      return f.fail(
        'kind',
        `expected model, tool, fan_out or join, got ${JSON.stringify(v.kind)}${typeof v.kind === 'string' ? didYouMean(v.kind, ['model', 'tool', 'fan_out', 'join']) : ''}`,
      );
  }
}

/** An agent's steps: 1 to AGENT_TRACE_LIMITS.stepsPerAgent, at least one a model call. */
function parseSteps(f: Fields, depth: number, budget: Budget): AgentTraceStep[] {
  const list = f.o.steps;
  if (!Array.isArray(list) || list.length === 0 || list.length > AGENT_TRACE_LIMITS.stepsPerAgent)
    f.fail('steps', `expected a list of 1 to ${AGENT_TRACE_LIMITS.stepsPerAgent} steps`);
  const steps = list.map((s, i) => parseStep(s, f.where, f.at(`steps[${i}]`), depth, budget));
  if (!steps.some((s) => s.kind === 'model')) f.fail('steps', 'no model call (kind "model")');
  return steps;
}

function parseAgent(v: unknown, where: string, path: string, depth: number, budget: Budget): AgentTraceAgent {
  if (!isObj(v)) throw agentTraceError(where, path, 'expected a sub-agent {"steps":[…]}');
  const f: Fields = new Fields(where, path, v);
  f.only(['steps', 'share', 'id']);
  const share = v.share ?? 'conversation';
  if (share !== 'conversation' && share !== 'system')
    return f.fail('share', `expected "conversation" or "system", got ${JSON.stringify(share)}`);
  return { share, steps: parseSteps(f, depth, budget) };
}

/** Parses one JSON line's value; undefined for a blank line. */
export function parseJsonLine(text: string, where: string): Obj | undefined {
  if (text.trim() === '') return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw agentTraceError(where, undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (!isObj(v)) throw agentTraceError(where, undefined, 'expected a JSON object');
  return v;
}

/** One run of goodput's form from its line's object (see the module comment). */
export function parseGoodputRun(o: Obj, where: string, lineNo: number): AgentTraceRun {
  const f: Fields = new Fields(where, '', o);
  f.only(['run', 'start_ms', 'system_tokens', 'tools', 'steps']);
  const id = o.run === undefined ? `line ${lineNo}` : o.run;
  if (typeof id !== 'string' && typeof id !== 'number') f.fail('run', 'expected a string or a number');
  const run: AgentTraceRun = { id: String(id), steps: parseSteps(f, 0, { modelCalls: 0 }) };
  const start = f.num('start_ms', 0, Number.MAX_SAFE_INTEGER, false);
  if (start !== undefined) run.startMs = start;
  const system = f.num('system_tokens', 0, MAX_TOKENS, true);
  if (system !== undefined) run.systemTokens = system;
  const tools = f.num('tools', 0, 1000, true);
  if (tools !== undefined) run.tools = tools;
  return run;
}
