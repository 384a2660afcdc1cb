/**
 * Reasoning models end to end: `goodput run` against the embedded engine in reasoning mode
 * (`--reasoning-tokens`). The summary keeps first-reasoning and first-answer percentiles apart;
 * every request's first answer chunk comes after all its reasoning chunks (checked per
 * record); usage's reasoning tokens are the engine's; and `gate --from` on `p99(ttfat)` passes
 * just above the measured value and fails just below it.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { metric } from '../src/metrics/index.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { jsonlLines, runCliInProcess } from './helpers/cli.js';

const REASONING = 12;
const MAX_TOKENS = 20;

let work: string;
let dir: string;
let summary: RunSummary;
let records: RequestRecord[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-reasoning-'));
  dir = join(work, 'run');
  const r = await runCliInProcess(
    [
      'run',
      '--requests',
      '16',
      '--concurrency',
      '4',
      '--prompt-tokens',
      '64',
      '--max-tokens',
      String(MAX_TOKENS),
      '--ignore-eos',
      '--reasoning-tokens',
      String(REASONING),
      '--reasoning-field',
      'reasoning',
      '--seed',
      '5',
      '--quiet',
      '--out',
      dir,
    ],
    { cwd: work },
  );
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  const { readFileSync } = await import('node:fs');
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
  records = (jsonlLines(join(dir, 'requests.jsonl')) as RequestRecord[]).filter(
    (x) => (x as { id?: unknown }).id !== undefined,
  );
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('reasoning mode of the embedded engine', () => {
  it('keeps first-reasoning and first-answer percentiles apart in the summary', () => {
    expect(summary.counts.completed).toBe(16);
    const ttfrt = summary.latency.ttfrt!;
    const ttfat = summary.latency.ttfat!;
    expect(ttfrt.count).toBe(16);
    expect(ttfat.count).toBe(16);
    // the first reasoning token is the first token; the answer starts 12 tokens later
    expect(ttfrt.p50).toBeCloseTo(summary.latency.ttft.p50, 3);
    expect(ttfat.p50).toBeGreaterThan(ttfrt.p50);
    expect(summary.latency.reasoningItl!.count).toBe(16 * (REASONING - 1));
    expect(summary.latency.answerItl!.count).toBe(16 * (MAX_TOKENS - REASONING - 1));
    expect(summary.reasoning).toEqual({
      requests: 16,
      reasoningTokens: 16 * REASONING,
      answerTokens: 16 * (MAX_TOKENS - REASONING),
      countedRequests: 0,
    });
    expect(metric('reasoning_tokens').read(summary)).toBe(REASONING);
    expect(metric('answer_tokens').read(summary)).toBe(MAX_TOKENS - REASONING);
  });

  it('every first answer chunk comes after all the reasoning chunks of its request', () => {
    expect(records).toHaveLength(16);
    for (const r of records) {
      const reasoning = r.chunkReasoningChars!;
      expect(reasoning, r.id).toHaveLength(r.chunkMs.length);
      const reasoningIdx = reasoning.flatMap((c, i) => (c > 0 ? [i] : []));
      const answerIdx = reasoning.flatMap((c, i) => (c === 0 ? [i] : []));
      expect(reasoningIdx).toHaveLength(REASONING);
      expect(answerIdx).toHaveLength(MAX_TOKENS - REASONING);
      const lastReasoningMs = r.chunkMs[reasoningIdx.at(-1)!]!;
      const firstAnswerMs = r.chunkMs[answerIdx[0]!]!;
      expect(firstAnswerMs, r.id).toBeGreaterThan(lastReasoningMs);
      expect(Math.max(...reasoningIdx)).toBeLessThan(Math.min(...answerIdx));
      expect(r.reasoningTokens).toBe(REASONING);
      expect(r.reasoningTokensSource).toBeUndefined(); // from usage
      expect(r.outputTokens).toBe(MAX_TOKENS);
    }
  });

  it('gates on the first-answer metric: passes above the measured p99, fails below it', async () => {
    const p99 = summary.latency.ttfat!.p99;
    const gate = (limit: number) =>
      runCliInProcess(['gate', '--from', dir, '--threshold', `p99(ttfat)<${limit}`], { cwd: work });
    const pass = await gate(Math.ceil(p99 + 1));
    expect(pass.code, pass.stderr + pass.stdout).toBe(ExitCode.OK);
    expect(pass.stdout).toContain('[GATE PASS]');
    const fail = await gate(Math.max(0.001, Math.floor(p99 - 1)));
    expect(fail.code, fail.stderr + fail.stdout).toBe(ExitCode.THRESHOLD_BREACH);
    expect(fail.stdout).toContain('[GATE FAIL]');
    expect(fail.stdout).toContain('p99(ttfat)');
  });
});

describe('the embedded engine serves the Responses API and embeddings', () => {
  async function run(
    name: string,
    extra: string[],
  ): Promise<{ summary: RunSummary; records: RequestRecord[] }> {
    const out = join(work, name);
    const r = await runCliInProcess(
      [
        'run',
        '--requests',
        '8',
        '--concurrency',
        '2',
        '--prompt-tokens',
        '48',
        '--seed',
        '3',
        '--quiet',
        '--out',
        out,
        ...extra,
      ],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const { readFileSync } = await import('node:fs');
    return {
      summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary,
      records: (jsonlLines(join(out, 'requests.jsonl')) as RequestRecord[]).filter((x) => x.id !== undefined),
    };
  }

  it('--api responses: reasoning and answer phases from Responses events, usage from response.completed', async () => {
    const { summary: s, records: rs } = await run('responses', [
      '--api',
      'responses',
      '--max-tokens',
      '10',
      '--ignore-eos',
      '--reasoning-tokens',
      '3',
    ]);
    expect(s.meta.target.api).toBe('responses');
    expect(s.counts.completed).toBe(8);
    expect(s.latency.ttfrt?.count).toBe(8);
    expect(s.latency.ttfat!.p50).toBeGreaterThan(s.latency.ttfrt!.p50);
    expect(s.reasoning).toMatchObject({ requests: 8, reasoningTokens: 24, answerTokens: 56 });
    for (const r of rs) {
      expect(r.outputTokensSource).toBe('usage');
      expect(r.chunkReasoningChars?.slice(0, 3).every((c) => c > 0)).toBe(true);
      expect(r.chunkReasoningChars?.slice(3).every((c) => c === 0)).toBe(true);
      expect(r.finishReason).toBe('length');
    }
  });

  it('--api embeddings: latency of each request, one input each (inputs/s = request throughput)', async () => {
    const { summary: s, records: rs } = await run('embeddings', ['--api', 'embeddings']);
    expect(s.counts.completed).toBe(8);
    expect(s.latency.e2el.count).toBe(8);
    expect(s.latency.ttft.count).toBe(0);
    expect(s.total_output_tokens).toBe(0);
    expect(s.counts.usageMissing).toBe(0);
    expect(s.request_throughput).toBeGreaterThan(0);
    for (const r of rs) expect(r.serverPromptTokens).toBeGreaterThan(0);
  });
});
