/**
 * OpenTelemetry GenAI spans (an OTLP JSON export: the OTLP file exporter's lines, or one
 * `{"resourceSpans":[…]}` document) as agent runs, read by the GenAI semantic conventions
 * (`gen_ai.operation.name`: `chat` / `text_completion` / `generate_content` a model call,
 * `execute_tool` a tool, `invoke_agent` an agent):
 *
 * - one trace (`traceId`) is one run, starting at its first span (`start_ms` relative to the
 *   export's first trace, so arrivals replay as recorded); its agent is its top `invoke_agent`
 *   span, or the trace itself when it has none.
 * - an agent's steps are its descendants in start order (spans of no GenAI operation are looked
 *   through); a model call is `gen_ai.usage.output_tokens` long (else
 *   `gen_ai.request.max_tokens`) and adds its `gen_ai.usage.input_tokens` less the previous
 *   call's input and output; consecutive `execute_tool` spans are one tool wait, first start to
 *   last end, whose result is what the next call adds; time between calls with no tool is a delay.
 * - an `invoke_agent` span inside an agent is a sub-agent; consecutive ones fan out together and
 *   are joined before the agent's next step. A sub-agent whose first prompt is at least its
 *   parent's conversation starts from it (the shared prefix), else from nothing of it.
 *
 * @module
 */

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
  'export GenAI spans as OTLP JSON ({"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}, one export a line) with gen_ai.operation.name and gen_ai.usage.* attributes';
const MODEL_OPS = new Set(['chat', 'text_completion', 'generate_content']);
/** Spans kept from one file. */
export const MAX_OTLP_SPANS = 2_000_000;

interface Span {
  id: string;
  parent: string | undefined;
  op: string | undefined;
  startMs: number;
  endMs: number;
  inputTokens?: number;
  outputTokens?: number;
  where: string;
}

/** An OTLP attribute's value: stringValue, intValue (a string in OTLP JSON) or doubleValue. */
function attrValue(v: unknown): string | number | undefined {
  if (!isObj(v)) return undefined;
  if (typeof v.stringValue === 'string') return v.stringValue;
  const n = v.intValue ?? v.doubleValue;
  const x = typeof n === 'string' ? Number(n) : n;
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

/** Nanoseconds since the epoch (a string or a number) in ms. */
function nanosToMs(v: unknown, where: string, field: string): number {
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return Number(BigInt(v) / 1000n) / 1000;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v / 1e6;
  throw agentTraceError(where, field, 'expected nanoseconds since the epoch', HINT);
}

function spanOf(s: unknown, where: string, path: string): Span {
  if (!isObj(s) || typeof s.spanId !== 'string' || s.spanId === '')
    throw agentTraceError(where, `${path}.spanId`, 'missing', HINT);
  const span: Span = {
    id: s.spanId,
    parent: typeof s.parentSpanId === 'string' && s.parentSpanId !== '' ? s.parentSpanId : undefined,
    op: undefined,
    startMs: nanosToMs(s.startTimeUnixNano, where, `${path}.startTimeUnixNano`),
    endMs: nanosToMs(s.endTimeUnixNano, where, `${path}.endTimeUnixNano`),
    where: `${where} ${path}`,
  };
  if (span.endMs < span.startMs)
    throw agentTraceError(where, `${path}.endTimeUnixNano`, 'before its start', HINT);
  const attrs = Array.isArray(s.attributes) ? s.attributes : [];
  for (const a of attrs) {
    if (!isObj(a)) continue;
    const v = attrValue(a.value);
    if (a.key === 'gen_ai.operation.name' && typeof v === 'string') span.op = v;
    else if (a.key === 'gen_ai.usage.input_tokens' && typeof v === 'number') span.inputTokens = v;
    else if (a.key === 'gen_ai.usage.output_tokens' && typeof v === 'number') span.outputTokens = v;
    else if (a.key === 'gen_ai.request.max_tokens' && typeof v === 'number') span.outputTokens ??= v;
  }
  return span;
}

/** The spans of an export, by trace, as they come; `runs()` turns them into runs. */
export class OtlpSpans {
  private readonly traces = new Map<string, Span[]>();
  private count = 0;

  constructor(private readonly name: string) {}

  add(o: Obj, where: string): void {
    const resources = o.resourceSpans;
    if (!Array.isArray(resources)) throw agentTraceError(where, 'resourceSpans', 'expected a list', HINT);
    resources.forEach((r, i) => {
      const scopes = isObj(r) ? (r.scopeSpans ?? r.instrumentationLibrarySpans) : undefined;
      if (!Array.isArray(scopes)) return;
      scopes.forEach((sc, j) => {
        const spans = isObj(sc) ? sc.spans : undefined;
        if (!Array.isArray(spans)) return;
        spans.forEach((s, k) => {
          const path = `resourceSpans[${i}].scopeSpans[${j}].spans[${k}]`;
          if (++this.count > MAX_OTLP_SPANS)
            throw agentTraceError(where, path, `more than ${MAX_OTLP_SPANS} spans in the file`, HINT);
          const trace = isObj(s) && typeof s.traceId === 'string' ? s.traceId : '';
          if (trace === '') throw agentTraceError(where, `${path}.traceId`, 'missing', HINT);
          const list = this.traces.get(trace) ?? [];
          if (list.length === 0) this.traces.set(trace, list);
          list.push(spanOf(s, where, path));
        });
      });
    });
  }

  runs(): AgentTraceRun[] {
    const runs: Array<AgentTraceRun & { startMs: number }> = [];
    for (const [traceId, spans] of this.traces) {
      const run = traceRun(traceId, spans);
      if (run) runs.push(run);
    }
    if (runs.length === 0)
      throw agentTraceError(this.name, undefined, 'holds no span with gen_ai.operation.name chat', HINT);
    const first = runs.reduce((m, r) => Math.min(m, r.startMs), Number.POSITIVE_INFINITY);
    for (const r of runs) r.startMs -= first;
    return runs.sort((a, b) => a.startMs - b.startMs);
  }
}

type Item = { kind: 'model' | 'tool'; span: Span } | { kind: 'agent'; span: Span };

/** The model calls, tools and sub-agents under `root`, in start order (other spans looked through). */
function itemsUnder(root: string, children: Map<string, Span[]>, depth: number): Item[] {
  const items: Item[] = [];
  const walk = (id: string, level: number) => {
    if (level > 64) return;
    for (const s of children.get(id) ?? []) {
      if (s.op !== undefined && MODEL_OPS.has(s.op)) items.push({ kind: 'model', span: s });
      else if (s.op === 'execute_tool') items.push({ kind: 'tool', span: s });
      else if (s.op === 'invoke_agent') {
        if (depth >= AGENT_TRACE_LIMITS.depth)
          throw agentTraceError(
            s.where,
            undefined,
            `sub-agents nested deeper than ${AGENT_TRACE_LIMITS.depth} levels`,
            HINT,
          );
        items.push({ kind: 'agent', span: s });
      } else walk(s.id, level + 1);
    }
  };
  walk(root, 0);
  return items.sort((a, b) => a.span.startMs - b.span.startMs);
}

interface Context {
  children: Map<string, Span[]>;
  calls: number;
}

/** One agent's steps; `conversation` is its parent's conversation tokens when it starts. */
function agentSteps(root: string, ctx: Context, depth: number, conversation: number): AgentTraceAgent {
  const items = itemsUnder(root, ctx.children, depth);
  const steps: AgentTraceStep[] = [];
  let prev: { tokens: number; endMs: number } | undefined;
  let share: AgentTraceAgent['share'] = 'system';
  let tool: { startMs: number; endMs: number } | undefined;
  let subs: AgentTraceAgent[] = [];
  for (let i = 0; i < items.length; i++) {
    const { kind, span } = items[i]!;
    if (kind === 'tool') {
      tool = tool
        ? { startMs: Math.min(tool.startMs, span.startMs), endMs: Math.max(tool.endMs, span.endMs) }
        : span;
      continue;
    }
    if (kind === 'agent') {
      if (subs.length >= AGENT_TRACE_LIMITS.agentsPerFanOut)
        throw agentTraceError(span.where, undefined, 'too many sub-agents at once', HINT);
      const sub = agentSteps(span.id, ctx, depth + 1, prev?.tokens ?? 0);
      if (sub.steps.some((s) => s.kind === 'model')) subs.push(sub);
      continue;
    }
    if (++ctx.calls > AGENT_TRACE_LIMITS.modelCallsPerRun)
      throw agentTraceError(span.where, undefined, 'too many model calls in one run', HINT);
    const out = span.outputTokens;
    if (out === undefined)
      throw agentTraceError(
        span.where,
        'gen_ai.usage.output_tokens',
        'missing (nor gen_ai.request.max_tokens)',
        HINT,
      );
    const input = span.inputTokens ?? prev?.tokens ?? 0;
    let added = Math.max(0, input - (prev?.tokens ?? 0));
    if (!prev && conversation > 0 && input >= conversation) {
      share = 'conversation';
      added = input - conversation;
    }
    const outputTokens = Math.max(1, Math.min(Math.round(out), 2_000_000));
    const joined = subs.length > 0;
    if (joined) steps.push({ kind: 'fan_out', agents: subs }, { kind: 'join' });
    subs = [];
    if (tool && prev) {
      steps.push({
        kind: 'tool',
        latencyMs: Math.min(tool.endMs - tool.startMs, AGENT_TRACE_LIMITS.waitMs),
        result: { tokens: Math.round(added) },
      });
      steps.push({ kind: 'model', input: { tokens: 0 }, outputTokens });
    } else {
      const step: AgentTraceStep = { kind: 'model', input: { tokens: Math.round(added) }, outputTokens };
      const gap = prev && !joined ? span.startMs - prev.endMs : 0;
      if (gap > 0) step.delayMs = Math.min(gap, AGENT_TRACE_LIMITS.waitMs);
      steps.push(step);
    }
    tool = undefined;
    prev = { tokens: input + out, endMs: span.endMs };
  }
  if (subs.length > 0) steps.push({ kind: 'fan_out', agents: subs }, { kind: 'join' });
  return { share, steps };
}

/** One trace's run, or undefined when it holds no model call. */
function traceRun(traceId: string, spans: Span[]): (AgentTraceRun & { startMs: number }) | undefined {
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string, Span[]>();
  const ROOT = '';
  for (const s of spans) {
    const parent = s.parent !== undefined && ids.has(s.parent) && s.parent !== s.id ? s.parent : ROOT;
    const list = children.get(parent) ?? [];
    if (list.length === 0) children.set(parent, list);
    list.push(s);
  }
  // The run's agent: its top invoke_agent span (its first, if several share the top), else the trace.
  const tops = (children.get(ROOT) ?? []).filter((s) => s.op === 'invoke_agent');
  const root = tops.length === 1 ? tops[0]!.id : ROOT;
  const agent = agentSteps(root, { children, calls: 0 }, 0, 0);
  if (!agent.steps.some((s) => s.kind === 'model')) return undefined;
  const startMs = spans.reduce((m, s) => Math.min(m, s.startMs), Number.POSITIVE_INFINITY);
  return { id: traceId, startMs, steps: agent.steps };
}
