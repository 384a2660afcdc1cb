/**
 * WEKA's agentic traces (the KV-cache tester's form, published with the `semianalysisai/
 * cc-traces-weka-*` datasets and read by AIPerf's `weka_trace` loader) as agent runs. One trace,
 * one JSON object (a line of `traces.jsonl`, or a file of its own), is one run:
 *
 *     {"id":"trace_0001","models":[…],"block_size":64,"hash_id_scope":"local",
 *      "system_tokens":4243,"tool_tokens":12974,"requests":[
 *        {"t":0.0,"type":"n","model":"…","in":71175,"out":169,"hash_ids":[…],"stop":"tool_use","api_time":3.1},
 *        {"type":"subagent","t":9.5,"agent_id":"a1","status":"completed","requests":[…]}, …]}
 *
 * - A call (`type` "n" or "s") is a model call of `out` tokens; what it adds is its `in` less the
 *   previous call's `in` + `out` (the first: less the system and tools prefix, `system_tokens` +
 *   `tool_tokens`, which becomes the run's system prompt). A conversation that shrank (a
 *   compaction) adds nothing: a replay cannot shrink it.
 * - The time between a call's end (`t` + `api_time`) and the next call (or the next call's
 *   `think_time`, when given) is a tool wait when the call stopped for a tool (`stop` "tool_use"),
 *   its result what the next call adds; otherwise a delay before the next call (the user's).
 * - Consecutive `subagent` entries fan out together, each from the run's system prompt (its
 *   prefix: a sub-agent of Claude Code starts a conversation of its own), and are joined before the
 *   parent's next call, unless every one of them is `async_launched`. Nested ones nest.
 * - `hash_ids` and `model` are not replayed: the prefix shared is the conversation's own.
 *
 * @module
 */

import { MAX_TOKENS } from '../util/index.js';
import {
  AGENT_TRACE_LIMITS,
  type AgentTraceAgent,
  type AgentTraceRun,
  type AgentTraceStep,
  agentTraceError,
  isObj,
  type Obj,
} from './agent-trace.js';

const HINT =
  'a WEKA trace is {"id":…,"block_size":64,"requests":[{"t":0,"type":"n","in":N,"out":M,"api_time":S,"stop":"tool_use"},…]}';

interface Walk {
  where: string;
  /** The run's system prompt tokens: a sub-agent's first call adds its `in` less these. */
  systemTokens: number;
  modelCalls: number;
}

function num(o: Obj, key: string, path: string, w: Walk, required: boolean, max = 1e9): number | undefined {
  const v = o[key];
  const field = path === '' ? key : `${path}.${key}`;
  if (v === undefined || v === null) {
    if (required) throw agentTraceError(w.where, field, 'missing', HINT);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > max)
    throw agentTraceError(
      w.where,
      field,
      `expected a number from 0 to ${max}, got ${JSON.stringify(v)}`,
      HINT,
    );
  return v;
}

/** The steps of one agent's `requests` (the run's, or a sub-agent's), see the module comment. */
function stepsOf(list: unknown, path: string, w: Walk, depth: number): AgentTraceStep[] {
  if (!Array.isArray(list)) throw agentTraceError(w.where, path, 'expected a list of requests', HINT);
  if (list.length > AGENT_TRACE_LIMITS.stepsPerAgent)
    throw agentTraceError(w.where, path, `more than ${AGENT_TRACE_LIMITS.stepsPerAgent} requests`, HINT);
  const steps: AgentTraceStep[] = [];
  let prev: { in: number; out: number; endS: number; tool: boolean } | undefined;
  let group: { agents: AgentTraceAgent[]; join: boolean } | undefined;
  const closeGroup = () => {
    if (group && group.agents.length > 0) {
      steps.push({ kind: 'fan_out', agents: group.agents });
      if (group.join) steps.push({ kind: 'join' });
    }
    group = undefined;
  };
  list.forEach((r, i) => {
    const at = `${path}[${i}]`;
    if (!isObj(r)) throw agentTraceError(w.where, at, 'expected a request object', HINT);
    if (r.type === 'subagent') {
      if (depth >= AGENT_TRACE_LIMITS.depth)
        throw agentTraceError(
          w.where,
          at,
          `sub-agents nested deeper than ${AGENT_TRACE_LIMITS.depth} levels`,
          HINT,
        );
      group ??= { agents: [], join: false };
      const sub = stepsOf(r.requests, `${at}.requests`, w, depth + 1);
      if (sub.some((s) => s.kind === 'model')) group.agents.push({ share: 'system', steps: sub });
      if (r.status !== 'async_launched') group.join = true;
      if (group.agents.length > AGENT_TRACE_LIMITS.agentsPerFanOut)
        throw agentTraceError(
          w.where,
          at,
          `more than ${AGENT_TRACE_LIMITS.agentsPerFanOut} sub-agents at once`,
          HINT,
        );
      return;
    }
    if (r.type !== 'n' && r.type !== 's')
      throw agentTraceError(
        w.where,
        `${at}.type`,
        `expected "n", "s" or "subagent", got ${JSON.stringify(r.type)}`,
        HINT,
      );
    if (++w.modelCalls > AGENT_TRACE_LIMITS.modelCallsPerRun)
      throw agentTraceError(
        w.where,
        at,
        `more than ${AGENT_TRACE_LIMITS.modelCallsPerRun} calls in one run`,
        HINT,
      );
    const t = num(r, 't', at, w, true)!;
    const input = Math.round(num(r, 'in', at, w, true, MAX_TOKENS)!);
    const out = Math.round(num(r, 'out', at, w, true, MAX_TOKENS)!);
    const api = num(r, 'api_time', at, w, false) ?? 0;
    const think = num(r, 'think_time', at, w, false);
    const afterFanOut = group !== undefined;
    closeGroup();
    const added = Math.max(0, prev ? input - prev.in - prev.out : input - w.systemTokens);
    // Seconds to ms, rounded to the microsecond (0.8 − 0.5 s is 300 ms, not 300.00000000000006).
    const gapS = Math.max(0, think ?? (prev ? t - prev.endS : 0));
    const gapMs = Math.min(AGENT_TRACE_LIMITS.waitMs, Math.round(gapS * 1e6) / 1e3);
    if (prev?.tool && !afterFanOut) {
      steps.push({ kind: 'tool', latencyMs: gapMs, result: { tokens: added } });
      steps.push({ kind: 'model', input: { tokens: 0 }, outputTokens: Math.max(1, out) });
    } else {
      const step: AgentTraceStep = {
        kind: 'model',
        input: { tokens: added },
        outputTokens: Math.max(1, out),
      };
      if (prev && !afterFanOut && gapMs > 0) step.delayMs = gapMs;
      steps.push(step);
    }
    prev = { in: input, out, endS: t + api, tool: r.stop === 'tool_use' };
  });
  closeGroup();
  return steps;
}

/** One WEKA trace (one line's object) as a run (see the module comment). */
export function parseWekaRun(o: Record<string, unknown>, where: string, lineNo: number): AgentTraceRun {
  const w: Walk = { where, systemTokens: 0, modelCalls: 0 };
  const system =
    (num(o, 'system_tokens', '', w, false, MAX_TOKENS) ?? 0) +
    (num(o, 'tool_tokens', '', w, false, MAX_TOKENS) ?? 0);
  w.systemTokens = Math.round(system);
  const steps = stepsOf(o.requests, 'requests', w, 0);
  if (!steps.some((s) => s.kind === 'model'))
    throw agentTraceError(where, 'requests', 'no call of type "n" or "s"', HINT);
  const id = typeof o.id === 'string' || typeof o.id === 'number' ? String(o.id) : `line ${lineNo}`;
  return { id, ...(w.systemTokens > 0 ? { systemTokens: w.systemTokens } : {}), steps };
}
