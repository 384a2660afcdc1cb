import { describe, expect, it } from 'vitest';
import { makeMeta } from '../../test/helpers/rules-fixtures.js';
import type { ConfigurationAnalysis, ExperimentAnalysis, MatrixCell } from '../experiment/analysis/index.js';
import { flagsOf, tokenizeCommandLine } from './args.js';
import { serializeAdr } from './document.js';
import { buildExperimentAdr, experimentGate, experimentRules, servingArgsOf } from './experiment.js';
import { EXPERIMENT_NO_CONCLUSION, lintAdrText } from './lint.js';
import { checkRules } from './rules.js';

function cell(mean: number, ci?: [number, number]): MatrixCell {
  return { metric: '', values: [mean], spread: ci ? { n: 3, mean, std: 1, ci } : { n: 1, mean, std: 0 } };
}

function row(over: Partial<ConfigurationAnalysis> & { name: string }): ConfigurationAnalysis {
  return {
    slug: over.name.toLowerCase(),
    label: over.name,
    baseline: false,
    params: {},
    status: 'ok',
    runs: { ok: 3, failed: 0, total: 3, dirs: [`runs/${over.name}/run-1`] },
    cells: {},
    verdict: 'better',
    hypotheses: [],
    findings: [],
    conclusion: '',
    ...over,
  };
}

describe('gate limits from the winner’s interval', () => {
  it.each([
    // [case, cells, headroom, slo, expected gate]
    [
      'upper bound × 1.1 for p99s, lower bound ÷ 1.1 for goodput',
      { ttft_p99: cell(90, [85, 95]), tpot_p99: cell(9.6, [9.4, 9.8]), request_goodput: cell(28, [26, 30]) },
      0.1,
      false,
      { headroom: 0.1, ttft_p99_ms: 105, tpot_p99_ms: 11, request_goodput_min: 23.6 },
    ],
    [
      'attainment only with an SLO: lower bound × (1 − h/4)',
      { attainment: cell(0.99, [0.98, 1]) },
      0.2,
      true,
      { headroom: 0.2, attainment_min: 0.93 },
    ],
    [
      'no attainment limit without an SLO',
      { attainment: cell(0.99, [0.98, 1]) },
      0.1,
      false,
      { headroom: 0.1 },
    ],
    ['one run: the mean stands in', { ttft_p99: cell(100) }, 0.1, false, { headroom: 0.1, ttft_p99_ms: 111 }],
  ] as const)('%s', (_, cells, headroom, slo, expected) => {
    expect(experimentGate(row({ name: 'w', cells: { ...cells } }), headroom, slo)).toEqual(expected);
  });
});

describe('rules from the winner’s flags', () => {
  const baseline = row({
    name: 'Baseline',
    baseline: true,
    args: ['--no-enable-prefix-caching', '--max-num-batched-tokens', '1024'],
  });
  const winner = row({
    name: 'Exp-2',
    args: ['--enable-prefix-caching', '--enable-chunked-prefill', '--max-num-batched-tokens', '2048'],
  });

  it('requires what the winner set differently and forbids what it dropped', () => {
    expect(experimentRules(winner, baseline).map(({ why: _, ...r }) => r)).toEqual([
      { flag: '--enable-prefix-caching' },
      { flag: '--enable-chunked-prefill' },
      { flag: '--max-num-batched-tokens', equals: '2048' },
      { flag: '--no-enable-prefix-caching', absent: true },
    ]);
  });

  it.each([
    [
      'the winning serve line',
      'vllm serve m --enable-prefix-caching --enable-chunked-prefill --max-num-batched-tokens 2048',
      0,
    ],
    ['the winning flag dropped', 'vllm serve m --enable-chunked-prefill --max-num-batched-tokens 2048', 1],
    ['the baseline', 'vllm serve m --no-enable-prefix-caching --max-num-batched-tokens 1024', 4],
  ])('checks %s', (_, line, violations) => {
    expect(checkRules(experimentRules(winner, baseline), flagsOf(tokenizeCommandLine(line)))).toHaveLength(
      violations,
    );
  });

  it('writes params as flags when a configuration has no recorded argv (a url: target)', () => {
    expect(
      servingArgsOf(
        row({
          name: 'u',
          params: { 'enable-chunked-prefill': true, 'enforce-eager': false, 'max-num-seqs': 64 },
        }),
      ),
    ).toEqual(['--enable-chunked-prefill', '--no-enforce-eager', '--max-num-seqs', '64']);
  });
});

function analysis(winner: boolean): ExperimentAnalysis {
  const baseline = row({
    name: 'Baseline',
    baseline: true,
    verdict: 'baseline',
    args: ['--max-num-batched-tokens', '1024'],
    cells: { ttft_p99: cell(900, [880, 920]) },
  });
  const exp = row({
    name: 'Exp-1',
    label: 'Exp-1',
    args: ['--max-num-batched-tokens', '2048'],
    cells: { ttft_p99: cell(500, [480, 520]) },
  });
  return {
    schemaVersion: 1,
    kind: 'goodput.experiment-analysis',
    name: 'exp',
    virtual: true,
    runsPerConfiguration: 3,
    order: { mode: 'interleaved' },
    objective: { metrics: ['ttft_p99'], guarded: [], source: 'plan' },
    withinRunResamples: 300,
    metrics: [{ id: 'ttft_p99', label: 'TTFT p99', unit: 'ms', better: 'lower' }],
    configurations: [baseline, exp],
    winner: winner
      ? {
          name: 'Exp-1',
          label: 'Exp-1',
          metric: 'ttft_p99',
          reason: 'significantly better than the baseline on TTFT p99 −44%',
        }
      : { reason: 'no conclusion: nothing significant' },
    notes: [],
  };
}

function adrOf(winner: boolean, status: 'proposed' | 'accepted') {
  return buildExperimentAdr({
    analysis: analysis(winner),
    date: new Date('2026-12-03T00:00:00Z'),
    existing: [],
    status,
    meta: makeMeta(),
    links: {
      experiment: '../exp',
      configurations: { Baseline: '../exp/runs/baseline', 'Exp-1': '../exp/runs/exp-1' },
    },
  });
}

describe('the experiment ADR', () => {
  it('with a winner: rules, gate, rollback, every row, and lint passes', () => {
    const adr = adrOf(true, 'accepted');
    expect(adr.fileName).toBe('ADR-20261203-001-exp-adopt-exp-1.md');
    expect(adr.frontMatter.experiment).toEqual({
      path: '../exp',
      name: 'exp',
      winner: 'Exp-1',
      objective: 'ttft_p99',
      runsPerConfiguration: 3,
    });
    expect(adr.frontMatter.rules?.[0]).toMatchObject({ flag: '--max-num-batched-tokens', equals: '2048' });
    expect(adr.frontMatter.gate?.ttft_p99_ms).toBe(572);
    expect(adr.frontMatter.rollback).toEqual({ metric: 'ttft_p99_ms', for: '5m', above: 858 });
    expect(adr.body).toMatch(/\| Baseline \|.*\n\| Exp-1 ★ \|/);
    expect(adr.body).toContain('headroom of 10%');
    const lint = lintAdrText(serializeAdr(adr.frontMatter, adr.body), adr.fileName);
    expect(lint.problems).toEqual([]);
  });

  it.each(['proposed', 'accepted'] as const)(
    'no conclusion (%s): no rule, no gate, and lint refuses it',
    (status) => {
      const adr = adrOf(false, status);
      expect(adr.frontMatter.experiment?.winner).toBeNull();
      expect(adr.frontMatter.rules).toBeUndefined();
      expect(adr.frontMatter.gate).toBeUndefined();
      expect(adr.body).toContain('No conclusion: nothing significant');
      const lint = lintAdrText(serializeAdr(adr.frontMatter, adr.body), adr.fileName);
      expect(lint.problems).toContain(EXPERIMENT_NO_CONCLUSION);
    },
  );
});
