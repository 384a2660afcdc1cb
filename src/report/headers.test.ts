/**
 * A run's header says what was sent: a trace's schedule and max_tokens, a dataset's own output
 * lengths, a staged load's stages; never the defaults of flags the load did not use.
 */
import { describe, expect, it } from 'vitest';
import { runMeta, streamed } from '../../test/fixtures/records.js';
import { summarizeRecords } from '../metrics/index.js';
import type { RunMeta, RunSummary } from '../types.js';
import { runFacts } from './html/facts.js';
import { buildRunView } from './run-view.js';

function summaryOf(meta: Partial<RunMeta>): RunSummary {
  return summarizeRecords([streamed({ index: 1 })], runMeta(meta));
}

const base = runMeta();
const trace = {
  path: 't.jsonl',
  format: 'mooncake' as const,
  sha256: 'a'.repeat(64),
  entries: 40,
  blockSize: 512,
  timeScale: 0.5,
};
const cases: Array<[string, Partial<RunMeta>, RegExp, RegExp, RegExp]> = [
  [
    'a trace replay',
    {
      workload: { ...base.workload, kind: 'trace', trace, maxTokens: 128, maxTokensFrom: 'trace' },
      load: { mode: 'open', requests: 40, warmup: 0, timeoutMs: 1000, maxRetries: 0 },
    },
    /^sends followed the trace \(times × 0\.5\)/,
    /max_tokens from the trace/,
    /all at once|--rate inf|max 128 output tokens|max_tokens 128/,
  ],
  [
    'a dataset with its own output lengths',
    {
      workload: {
        ...base.workload,
        kind: 'dataset',
        dataset: { path: 'd.jsonl', format: 'jsonl', sha256: 'b'.repeat(64), entries: 9 },
        maxTokens: 128,
        maxTokensFrom: 'dataset',
      },
    },
    /^closed loop/,
    /max_tokens from each dataset entry \(128 where an entry states none\)/,
    /max 128 output tokens|max_tokens 128/,
  ],
  [
    'stages of rate',
    {
      load: {
        mode: 'open',
        stages: [{ durationMs: 10_000, target: 4 }],
        stagesOf: 'rate',
        warmup: 0,
        timeoutMs: 1000,
        maxRetries: 0,
      },
    },
    /^stages of rate 10s:4/,
    /max \d+ output tokens/,
    /all at once|--rate inf/,
  ],
];

describe('headers describe what was sent', () => {
  it.each(cases)('%s', (_, meta, load, output, never) => {
    const s = summaryOf(meta);
    const context = new Map(buildRunView(s).context);
    expect(context.get('load')).toMatch(load);
    expect(context.get('workload')).toMatch(output);
    const facts = new Map(runFacts(s));
    expect(facts.get('Load')).toMatch(load);
    expect(facts.get('Workload')).toMatch(output);
    for (const text of [...context.values(), ...facts.values()]) expect(text).not.toMatch(never);
  });
});
