/**
 * The sessions report's prefix-cache line says why a figure is missing: an engine that was
 * scraped but publishes no prefix-cache counter is "not published by llama.cpp", a run with no
 * server metrics is "not measured (no server metrics)", and llama.cpp's per-response timings
 * give the rate when its metrics cannot (issue 26.4).
 */
import { describe, expect, it } from 'vitest';
import { makeSummary, statsOf } from '../../test/helpers/rules-fixtures.js';
import type { RunSummary } from '../types.js';
import { turnsView } from './turns-view.js';

function withTurns(over: Partial<RunSummary>): RunSummary {
  const s = makeSummary();
  s.turns = [1, 2].map((turn) => ({
    turn,
    requests: 10,
    completed: 10,
    ttft: statsOf([100, 120, 140]),
    promptTokens: { mean: 200 * turn, max: 220 * turn },
  }));
  return { ...s, ...over };
}

const hitLine = (s: RunSummary) =>
  turnsView(s)!.notes.find(([k]) => k === "server's prefix-cache hit rate")![1];

const llamaServer = {
  engine: 'llamacpp' as const,
  metricsUrl: 'http://127.0.0.1:1/metrics',
  samples: 15,
  series: { running: { min: 0, mean: 1, max: 2, last: 1 } },
};

describe('the prefix-cache line of the sessions report', () => {
  it('scraped, counter not published: says whose', () => {
    expect(hitLine(withTurns({ server: llamaServer }))).toBe('not published by llama.cpp');
  });
  it('no server metrics at all: says so', () => {
    expect(hitLine(withTurns({}))).toBe('not measured (no server metrics)');
  });
  it("llama.cpp's timings give the rate", () => {
    const s = withTurns({
      server: llamaServer,
      serverTimings: { requests: 20, promptTokens: 1000, cachedTokens: 3000 },
    });
    expect(hitLine(s)).toMatch(/^75(\.0)?\s?%$/);
  });
});
