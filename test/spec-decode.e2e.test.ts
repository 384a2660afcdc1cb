// runs alone: counts live chunk sizes, which a slow reader merges
/**
 * Speculative decoding end to end on the embedded engine (`--speculative-config`, vLLM's JSON):
 * in virtual time the summary's spec_acceptance_rate and spec_mean_accepted_length are the
 * configured acceptance's within sampling error, and TPOT at concurrency 1 is lower than the
 * same run without drafting; in live time the same figures come from scraping the embedded
 * engine's /metrics; a bad configuration is a usage error (exit 2) with a hint.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { metricById } from '../src/metrics/catalogue.js';
import { expectedAcceptance } from '../src/sim/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { jsonlLines, runCliInProcess } from './helpers/cli.js';

const REQUESTS = 16;
const MAX_TOKENS = 96;
const P = [0.8, 0.7, 0.6];
const SPEC = JSON.stringify({ method: 'eagle3', num_speculative_tokens: 3, acceptance_probability: P });
const COMMON = [
  '--requests',
  String(REQUESTS),
  '--concurrency',
  '1',
  '--prompt-tokens',
  '128',
  '--max-tokens',
  String(MAX_TOKENS),
  '--ignore-eos',
  '--seed',
  '5',
  '--quiet',
];

let work: string;

async function run(name: string, args: string[]): Promise<{ summary: RunSummary; records: RequestRecord[] }> {
  const dir = join(work, name);
  const r = await runCliInProcess(['run', ...COMMON, ...args, '--out', dir], { cwd: work });
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  return {
    summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary,
    records: (jsonlLines(join(dir, 'requests.jsonl')) as RequestRecord[]).filter((x) => x.id !== undefined),
  };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'goodput-spec-decode-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('speculative decoding on the embedded engine', () => {
  it('virtual time: acceptance figures within sampling error of the configuration, TPOT lower than without', async () => {
    const plain = await run('plain', ['--time', 'virtual']);
    const spec = await run('spec', ['--time', 'virtual', '--speculative-config', SPEC]);
    expect(plain.summary.server?.specAcceptanceRate).toBeUndefined();
    expect(plain.summary.meta.target.simSpeculativeConfig).toBeUndefined();
    expect(spec.summary.meta.target.simSpeculativeConfig).toBe(SPEC);
    const e = expectedAcceptance(P);
    // Drafts: one per decode step, each emitting at most k+1 tokens: at least this many.
    const decodeTokens = REQUESTS * (MAX_TOKENS - 1);
    const drafts = decodeTokens / (P.length + 1);
    const sigma = Math.sqrt(e.acceptedVariance / drafts);
    const rate = metricById('spec_acceptance_rate')!.read(spec.summary)!;
    const length = metricById('spec_mean_accepted_length')!.read(spec.summary)!;
    expect(Math.abs(length - e.meanAcceptedLength)).toBeLessThan(4 * sigma);
    expect(Math.abs(rate - e.acceptanceRate)).toBeLessThan((4 * sigma) / P.length);
    const byPosition = spec.summary.server!.specAcceptanceRateByPosition!;
    expect(byPosition).toHaveLength(3);
    byPosition.forEach((r, i) => {
      expect(Math.abs(r - e.byPosition[i]!)).toBeLessThan(4 * Math.sqrt(0.25 / drafts));
    });
    // Several tokens per chunk, every token delivered.
    for (const rec of spec.records) expect(rec.outputTokens).toBe(MAX_TOKENS);
    expect(spec.records.some((rec) => rec.chunkChars.some((c) => c > 1))).toBe(true);
    expect(plain.records.every((rec) => rec.chunkChars.every((c) => c === 1))).toBe(true);
    // At concurrency 1 (memory-bound) TPOT falls by about the accepted length, less the drafter's time.
    const tpot = (s: RunSummary) => s.latency.tpot.mean;
    expect(tpot(spec.summary)).toBeLessThan(0.6 * tpot(plain.summary));
    expect(tpot(spec.summary)).toBeGreaterThan(tpot(plain.summary) / (P.length + 1));
  }, 120_000);

  it('live time: the figures come from scraping the embedded engine; its steps are the virtual ones', async () => {
    const args = ['--requests', '4', '--max-tokens', '48', '--speculative-config', SPEC];
    const live = await run('live', [...args, '--scrape-interval', '200ms']);
    const virtual = await run('virtual-4', [...args, '--time', 'virtual']);
    // One request at a time, same seed: the same acceptance draws, so the same chunks (steps) per request.
    const chunks = (rs: RequestRecord[]) =>
      [...rs].sort((a, b) => a.index - b.index).map((r) => r.chunkMs.length);
    expect(chunks(live.records)).toEqual(chunks(virtual.records));
    expect(Math.max(...chunks(live.records))).toBeLessThan(48);
    const s = live.summary.server!;
    expect(live.summary.meta.target.timeMode).toBe('live');
    expect(s.specAcceptanceRate).toBeGreaterThan(0);
    expect(s.specAcceptanceRate).toBeLessThanOrEqual(1);
    expect(s.specMeanAcceptedLength).toBeGreaterThan(1);
    expect(s.specMeanAcceptedLength).toBeLessThanOrEqual(1 + P.length);
    expect(s.specAcceptanceRateByPosition).toHaveLength(3);
  }, 120_000);

  it('a bad configuration is a usage error naming the fix', async () => {
    const cases: [string[], RegExp][] = [
      [['run', '--speculative-config', '{method:ngram}'], /not valid JSON/],
      [['run', '--speculative-config', '{"method":"lookahead","num_speculative_tokens":2}'], /not simulated/],
      [['run', '--speculative-config', '{"method":"ngram","num_speculative_tokens":40}'], /1 to 16/],
      [
        [
          'run',
          '--url',
          'http://127.0.0.1:9',
          '--speculative-config',
          '{"method":"ngram","num_speculative_tokens":2}',
        ],
        /embedded engine only/,
      ],
      [['sim', '--port', '0', '--speculative-config', '{"method":"ngram"}'], /needs num_speculative_tokens/],
    ];
    for (const [argv, message] of cases) {
      const full = argv[0] === 'run' ? [...argv, '--quiet'] : argv;
      const r = await runCliInProcess(full, { cwd: work });
      expect(r.code, r.stderr).toBe(ExitCode.USAGE);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/^hint: \S/m);
    }
  });
});
