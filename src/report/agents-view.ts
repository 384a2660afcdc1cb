/**
 * The agent section of a run's report (`--agents`): the summary's `agents` figures (defined in
 * metrics/agents.ts) by step kind and by run, the agents' time on the model against tools, and
 * the trace file a replay (`--agent-trace`) came from.
 *
 * @module
 */

import { basename } from 'node:path';
import type { LatencyStats, RunSummary } from '../types.js';
import { fmtInt, fmtMs, fmtNum, fmtPct } from './format.js';

interface ViewTable {
  header: string[];
  rows: string[][];
  align: Array<'l' | 'r'>;
}

function row(name: string, unit: 'ms' | 'n', l: LatencyStats): string[] {
  const f = (v: number) => (unit === 'ms' ? fmtMs(v) : fmtNum(v));
  return l.count > 0
    ? [name, fmtInt(l.count), f(l.mean), f(l.p50), f(l.p99), f(l.max)]
    : [name, '0', '—', '—', '—', '—'];
}

/** The agent table and its notes; undefined for a run without agents. */
export function agentsView(s: RunSummary): { table: ViewTable; notes: Array<[string, string]> } | undefined {
  const a = s.agents;
  if (!a) return undefined;
  const table: ViewTable = {
    header: ['figure', 'count', 'mean', 'p50', 'p99', 'max'],
    rows: [
      row('model call (ms)', 'ms', a.modelCallMs),
      row('tool wait (ms)', 'ms', a.toolWaitMs),
      row('agent run end to end (ms)', 'ms', a.runE2eMs),
      row('model calls per run', 'n', a.stepsPerRun),
      row('output tokens per run', 'n', a.outputTokensPerRun),
    ],
    align: ['l', 'r', 'r', 'r', 'r', 'r'],
  };
  const notes: Array<[string, string]> = [
    ['agent runs (answered)', `${fmtInt(a.runs)} (${fmtInt(a.completedRuns)})`],
    ['sub-agents (fan-out)', fmtInt(a.subAgents)],
    ['model calls (failed)', `${fmtInt(a.modelCalls)} (${fmtInt(a.failedCalls)})`],
    ['tool calls', fmtInt(a.toolCalls)],
    [
      'waiting on model vs tools',
      `${fmtNum(a.modelWaitMs / 1000)} s vs ${fmtNum(a.toolWaitTotalMs / 1000)} s (tools ${fmtPct(a.toolWaitShare)})`,
    ],
  ];
  // A replay of recorded runs (--agent-trace) names its file (its full path and sha256 are in the summary).
  const trace = s.meta.workload.agents?.trace;
  if (trace) {
    const scale = trace.timeScale !== undefined ? `, start times × ${trace.timeScale}` : '';
    notes.unshift([
      'replayed from',
      `${basename(trace.path)} (${trace.format}, ${fmtInt(trace.runs)} runs${scale})`,
    ]);
  }
  return { table, notes };
}
