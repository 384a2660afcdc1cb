/**
 * Reasoning mode in virtual time (`--time virtual --reasoning-tokens …`): the engine's simulated
 * timeline gives the same figures a live run of the reasoning engine gives. Every request's first
 * answer chunk comes after all its reasoning chunks (checked per record); the reasoning lengths
 * are the ones the live engine draws for the same requests (same seed, same prompt keys); a gate
 * on `p99(ttfat)` decides on the first-answer figure (not TTFT), passing just above the run's
 * value and failing just below it; a simulated user who gives up while the model reasons leaves
 * the reasoning received, counted.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { jsonlLines, runCliInProcess } from './helpers/cli.js';

const REQUESTS = 32;
const MAX_TOKENS = 24;
/** The workload and the engine's reasoning mode, shared by every run of this file. */
const COMMON = [
  '--requests',
  String(REQUESTS),
  '--concurrency',
  '8',
  '--prompt-tokens',
  '64',
  '--max-tokens',
  String(MAX_TOKENS),
  '--reasoning-tokens',
  '4-16',
  '--reasoning-field',
  'reasoning',
  '--seed',
  '11',
  '--quiet',
];

let work: string;

interface Run {
  dir: string;
  summary: RunSummary;
  records: RequestRecord[];
}

async function run(name: string, args: string[]): Promise<Run> {
  const dir = join(work, name);
  const r = await runCliInProcess(['run', ...COMMON, ...args, '--out', dir], { cwd: work });
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  const records = (jsonlLines(join(dir, 'requests.jsonl')) as RequestRecord[]).filter(
    (x) => (x as { id?: unknown }).id !== undefined,
  );
  return {
    dir,
    summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary,
    records: records.sort((a, b) => a.index - b.index),
  };
}

let virtual: Run;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-reasoning-virtual-'));
  virtual = await run('virtual', ['--time', 'virtual']);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('reasoning mode in virtual time', () => {
  it('the summary has the phase figures, from the records of the simulated timeline', () => {
    const s = virtual.summary;
    expect(s.meta.target.timeMode).toBe('virtual');
    expect(s.counts.completed).toBe(REQUESTS);
    const reasoning = virtual.records.map((r) => r.reasoningTokens!);
    const output = virtual.records.map((r) => r.outputTokens);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // 4 to 16 reasoning tokens each, drawn per request: not all the same.
    expect(Math.min(...reasoning)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...reasoning)).toBeLessThanOrEqual(16);
    expect(new Set(reasoning).size).toBeGreaterThan(1);
    expect(s.reasoning).toEqual({
      requests: REQUESTS,
      reasoningTokens: sum(reasoning),
      answerTokens: sum(output) - sum(reasoning),
      countedRequests: 0,
    });
    expect(s.latency.ttfrt!.count).toBe(REQUESTS);
    // A request whose reasoning took all of max_tokens has no answer: only the others have a ttfat.
    const answered = virtual.records.filter((r) => r.outputTokens > r.reasoningTokens!);
    expect(answered.length).toBeGreaterThan(0);
    expect(s.latency.ttfat!.count).toBe(answered.length);
    expect(s.latency.reasoningItl!.count).toBe(sum(reasoning.map((n) => n - 1)));
    expect(s.latency.answerItl!.count).toBe(
      sum(answered.map((r) => r.outputTokens - r.reasoningTokens! - 1)),
    );
    // The first reasoning token is the first token.
    expect(s.latency.ttfrt!.p50).toBeCloseTo(s.latency.ttft.p50, 6);
    expect(s.latency.ttfat!.p50).toBeGreaterThan(s.latency.ttfrt!.p50);
  });

  it('every first answer chunk comes after all the reasoning chunks of its request', () => {
    expect(virtual.records).toHaveLength(REQUESTS);
    for (const r of virtual.records) {
      const n = r.reasoningTokens!;
      expect(r.reasoningTokensSource, r.id).toBeUndefined(); // from usage
      const phase = r.chunkReasoningChars!;
      expect(phase, r.id).toHaveLength(r.chunkMs.length);
      expect(r.chunkMs).toHaveLength(r.outputTokens);
      expect(
        phase.slice(0, n).every((c) => c > 0),
        r.id,
      ).toBe(true);
      expect(
        phase.slice(n).every((c) => c === 0),
        r.id,
      ).toBe(true);
      if (r.outputTokens === n) continue;
      const lastReasoningMs = r.chunkMs[n - 1]!;
      const firstAnswerMs = r.chunkMs[n]!;
      expect(firstAnswerMs, r.id).toBeGreaterThan(lastReasoningMs);
    }
  });

  it('draws the reasoning and answer lengths the live engine draws for the same requests', async () => {
    const live = await run('live', ['--requests', '12', '--concurrency', '4']);
    const virt = await run('virtual-12', ['--requests', '12', '--concurrency', '4', '--time', 'virtual']);
    expect(live.summary.meta.target.timeMode).toBe('live');
    const lengths = (x: Run) =>
      x.records.map((r) => [r.index, r.reasoningTokens, r.outputTokens, r.finishReason]);
    expect(lengths(virt)).toEqual(lengths(live));
    expect(virt.summary.reasoning).toEqual(live.summary.reasoning);
  }, 120_000);

  it('gates on the first-answer metric: just above the run value passes, just below fails, TTFT does not decide', async () => {
    const { ttft, ttfat } = virtual.summary.latency;
    const p99 = ttfat!.p99;
    // Reasoning takes at least 4 decode steps: p99(ttft) is well below p99(ttfat).
    expect(ttft.p99).toBeLessThan(p99 - 2);
    // The same run again (virtual time is deterministic), gated.
    const gate = (threshold: string) =>
      runCliInProcess(
        [
          'gate',
          ...COMMON,
          '--time',
          'virtual',
          '--out',
          join(work, `gate-${threshold}`),
          '--threshold',
          threshold,
        ],
        { cwd: work },
      );
    const pass = await gate(`p99(ttfat)<${(p99 + 0.5).toFixed(3)}`);
    expect(pass.code, pass.stderr + pass.stdout).toBe(ExitCode.OK);
    expect(pass.stdout).toContain('[GATE PASS]');
    // Between p99(ttft) and p99(ttfat): a gate reading TTFT would pass; the answer metric fails.
    const fail = await gate(`p99(ttfat)<${(p99 - 0.5).toFixed(3)}`);
    expect(fail.code, fail.stderr + fail.stdout).toBe(ExitCode.THRESHOLD_BREACH);
    expect(fail.stdout).toContain('[GATE FAIL]');
    expect(fail.stdout).toContain('p99(ttfat)');
  }, 120_000);

  it('a user who gives up while the model reasons: the reasoning received, counted; no answer', async () => {
    // Half the users give up three reasoning tokens after the median first token: most of them still reasoning.
    const { ttft, reasoningItl } = virtual.summary.latency;
    const after = Math.round(ttft.p50 + 3 * reasoningItl!.p50);
    const cut = await run('cancels', [
      '--time',
      'virtual',
      '--cancel-after-ms',
      String(after),
      '--cancel-rate',
      '0.5',
    ]);
    const midReasoning = cut.records.filter(
      (r) => r.outcome === 'cancelled' && r.chunkMs.length > 0 && r.chunkReasoningChars!.every((c) => c > 0),
    );
    expect(midReasoning.length).toBeGreaterThan(REQUESTS / 8);
    for (const r of cut.records.filter((x) => x.outcome === 'cancelled')) {
      if (r.chunkMs.length === 0) {
        expect(r.reasoningTokens, r.id).toBeUndefined();
        continue;
      }
      expect(r.reasoningTokensSource, r.id).toBe('counted');
      expect(r.reasoningTokens, r.id).toBe(r.chunkReasoningChars!.filter((c) => c > 0).length);
    }
    // The summary's phase figures are those of the completed requests, whose reasoning came from usage.
    expect(cut.summary.reasoning).toMatchObject({
      requests: cut.summary.counts.completed,
      countedRequests: 0,
    });
  });
});
