import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../types.js';
import { AgentStats } from './agents.js';

function rec(over: Partial<RequestRecord>): RequestRecord {
  return {
    id: 'x',
    index: 0,
    warmup: false,
    outcome: 'success',
    attempts: 1,
    scheduledMs: 0,
    sentMs: 0,
    firstSentMs: 0,
    endMs: 0,
    chunkMs: [],
    chunkChars: [],
    promptTokens: 10,
    outputTokens: 5,
    outputTokensSource: 'usage',
    maxTokens: 16,
    ...over,
  };
}

describe('AgentStats', () => {
  it('folds a run, its sub-agent and its tool waits into per-kind and per-run figures', () => {
    const a = new AgentStats();
    // Run a-1: call 0-100 (tool call), wait 50, call 150-250 fans out to a-1.1 (250-350), then 350-400 answers.
    a.add(rec({ agentRun: 'a-1', sessionId: 'a-1', sentMs: 0, endMs: 100, toolCalls: 1 }));
    a.add(rec({ agentRun: 'a-1', sessionId: 'a-1', sentMs: 150, endMs: 250, toolCalls: 1, toolWaitMs: 50 }));
    a.add(rec({ agentRun: 'a-1', sessionId: 'a-1.1', sentMs: 250, endMs: 350 }));
    a.add(rec({ agentRun: 'a-1', sessionId: 'a-1', sentMs: 350, endMs: 400 }));
    // Run a-2: one failed call, never answered.
    a.add(
      rec({ agentRun: 'a-2', sessionId: 'a-2', sentMs: 0, endMs: 30, outcome: 'error', outputTokens: 0 }),
    );
    const s = a.summary();
    expect(s).toMatchObject({
      runs: 2,
      completedRuns: 1,
      subAgents: 1,
      modelCalls: 5,
      failedCalls: 1,
      toolCalls: 2,
    });
    expect(s.runE2eMs.max).toBeCloseTo(400, 0);
    expect(s.stepsPerRun.max).toBe(4);
    expect(s.outputTokensPerRun.max).toBe(20);
    expect(s.toolWaitMs.count).toBe(1);
    expect(s.modelWaitMs).toBe(100 + 100 + 100 + 50 + 30);
    expect(s.toolWaitTotalMs).toBe(50);
    expect(s.toolWaitShare).toBeCloseTo(50 / 430, 6);
  });
});
