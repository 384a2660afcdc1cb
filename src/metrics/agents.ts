/**
 * Agent figures (`--agents`): from the measured records of agent runs (those with `agentRun`),
 * by step kind and by run. Defined here once:
 *
 * - model call: a step's request, send to last byte (its E2EL); `modelCallMs`.
 * - tool wait: the tool latency an agent waited between a reply that called a tool and its
 *   next call (`toolWaitMs` of that call); a fan-out's join is not a tool wait (its time is the
 *   sub-agents' model calls). `toolWaitMs`.
 * - agent run: every call of the run, its sub-agents' included. End to end: first send to the
 *   last call's end (`runE2eMs`); steps: its model calls (`stepsPerRun`); tokens: its output
 *   tokens (`outputTokensPerRun`). A run is complete when its own agent (not a sub-agent)
 *   answered: a successful call without a tool call.
 * - model wait vs tool wait: the sum over every agent of its model-call time and its tool
 *   waits; `toolWaitShare` = tool / (model + tool). Sub-agents run at once, so these sums are
 *   agent time, not wall time.
 *
 * Memory: one small entry per run (a run's calls are folded in as they come).
 *
 * @module
 */

import type { AgentSummary, RequestRecord } from '../types.js';
import { LatencyHistogram } from './histogram.js';

interface RunState {
  firstMs: number;
  lastMs: number;
  calls: number;
  outputTokens: number;
  answered: boolean;
}

/** Accumulates measured agent-run records (see the module comment). */
export class AgentStats {
  private readonly runs = new Map<string, RunState>();
  private readonly modelCall = new LatencyHistogram();
  private readonly toolWait = new LatencyHistogram();
  private readonly subAgents = new Set<string>();
  private modelCalls = 0;
  private failedCalls = 0;
  private toolCalls = 0;
  private modelWaitMs = 0;
  private toolWaitTotalMs = 0;

  /** One measured record of an agent run (`record.agentRun` set). */
  add(record: RequestRecord): void {
    const runId = record.agentRun!;
    let run = this.runs.get(runId);
    const start = record.firstSentMs ?? record.sentMs;
    if (!run) {
      run = { firstMs: start, lastMs: record.endMs, calls: 0, outputTokens: 0, answered: false };
      this.runs.set(runId, run);
    }
    if (start < run.firstMs) run.firstMs = start;
    if (record.endMs > run.lastMs) run.lastMs = record.endMs;
    run.calls++;
    run.outputTokens += record.outputTokens;
    this.modelCalls++;
    if (record.sessionId !== undefined && record.sessionId !== runId) this.subAgents.add(record.sessionId);
    if (record.toolWaitMs !== undefined) {
      this.toolWait.record(record.toolWaitMs);
      this.toolWaitTotalMs += record.toolWaitMs;
    }
    const callMs = record.endMs - record.sentMs;
    this.modelWaitMs += callMs;
    if (record.outcome !== 'success') {
      this.failedCalls++;
      return;
    }
    this.modelCall.record(callMs);
    this.toolCalls += record.toolCalls ?? 0;
    if (!record.toolCalls && (record.sessionId === undefined || record.sessionId === runId))
      run.answered = true;
  }

  get size(): number {
    return this.runs.size;
  }

  summary(): AgentSummary {
    const e2e = new LatencyHistogram();
    const steps = new LatencyHistogram();
    const tokens = new LatencyHistogram();
    let completed = 0;
    for (const run of this.runs.values()) {
      e2e.record(run.lastMs - run.firstMs);
      steps.record(run.calls);
      tokens.record(run.outputTokens);
      if (run.answered) completed++;
    }
    const waited = this.modelWaitMs + this.toolWaitTotalMs;
    return {
      runs: this.runs.size,
      completedRuns: completed,
      subAgents: this.subAgents.size,
      modelCalls: this.modelCalls,
      failedCalls: this.failedCalls,
      toolCalls: this.toolCalls,
      modelCallMs: this.modelCall.stats(),
      toolWaitMs: this.toolWait.stats(),
      runE2eMs: e2e.stats(),
      stepsPerRun: steps.stats(),
      outputTokensPerRun: tokens.stats(),
      modelWaitMs: this.modelWaitMs,
      toolWaitTotalMs: this.toolWaitTotalMs,
      toolWaitShare: waited > 0 ? this.toolWaitTotalMs / waited : 0,
    };
  }
}
