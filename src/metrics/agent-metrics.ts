/**
 * The agent figures as catalogue metrics (compare rows, gate subjects, watch's exporter): the
 * summary's `agents` block, whose figures metrics/agents.ts defines. Undefined for a run
 * without agents.
 *
 * @module
 */

import type { AgentSummary, LatencyStats, RunSummary } from '../types.js';
import { type MetricDef, scalar } from './metric-def.js';

const stat =
  (pick: (a: AgentSummary) => LatencyStats, key: 'p50' | 'p99' | 'mean') =>
  (s: RunSummary): number | undefined => {
    const l = s.agents ? pick(s.agents) : undefined;
    return l && l.count > 0 ? l[key] : undefined;
  };

export const AGENT_METRICS: readonly MetricDef[] = [
  scalar({
    id: 'agent_run_p50',
    label: 'Agent run end to end p50',
    unit: 'ms',
    better: 'lower',
    read: stat((a) => a.runE2eMs, 'p50'),
  }),
  scalar({
    id: 'agent_run_p99',
    label: 'Agent run end to end p99',
    unit: 'ms',
    better: 'lower',
    read: stat((a) => a.runE2eMs, 'p99'),
  }),
  scalar({
    id: 'agent_steps_mean',
    label: 'Model calls per agent run, mean',
    unit: 'count',
    better: 'lower',
    read: stat((a) => a.stepsPerRun, 'mean'),
  }),
  scalar({
    id: 'agent_output_tokens_mean',
    label: 'Output tokens per agent run, mean',
    unit: 'count',
    better: 'lower',
    read: stat((a) => a.outputTokensPerRun, 'mean'),
  }),
  scalar({
    id: 'agent_model_call_p99',
    label: 'Agent model call p99',
    unit: 'ms',
    better: 'lower',
    read: stat((a) => a.modelCallMs, 'p99'),
  }),
  scalar({
    id: 'agent_tool_wait_p99',
    label: 'Agent tool wait p99',
    unit: 'ms',
    better: 'lower',
    read: stat((a) => a.toolWaitMs, 'p99'),
  }),
  scalar({
    id: 'agent_tool_wait_share',
    label: 'Agent time waiting on tools',
    unit: 'ratio',
    better: 'lower',
    read: (s) => s.agents?.toolWaitShare,
  }),
];
