import { describe, expect, it } from 'vitest';
import { makeSummary } from '../../../test/helpers/rules-fixtures.js';
import type { ExperimentConfiguration, ExperimentFile } from '../../types.js';
import type { AnalysedRun } from './cells.js';
import { argsOf, buildAnalysis } from './matrix.js';
import { readConfiguration } from './reading.js';
import type { AcrossVerdict, ConfigurationAnalysis, MatrixCell } from './types.js';
import { chooseWinner, DEFAULT_GUARDED, objectiveOf, rowVerdict } from './winner.js';

/** A cell whose only content is its verdict against the baseline (and a change for the evidence). */
function cell(
  id: string,
  verdict: AcrossVerdict,
  change = verdict === 'better' ? -0.3 : 0.3,
  mean = 100,
): MatrixCell {
  return {
    metric: id,
    values: [mean, mean, mean],
    spread: { n: 3, mean, std: 1, ci: [mean - 2, mean + 2] },
    vsBaseline: { verdict, changeKind: 'relative', change, ci: [change - 0.05, change + 0.05] },
  };
}

const cells = (verdicts: Record<string, AcrossVerdict>) =>
  Object.fromEntries(Object.entries(verdicts).map(([id, v]) => [id, cell(id, v)]));

const flat: AcrossVerdict = 'no significant change';

describe('the reading', () => {
  it.each([
    ['TTFT down, TPOT flat', { ttft_p99: 'better', tpot_p99: flat }, ['prefill-bound']],
    ['TTFT up, TPOT flat', { ttft_p99: 'worse', tpot_p99: flat }, ['prefill-starved']],
    ['TPOT up', { ttft_p99: flat, tpot_p99: 'worse' }, ['decode-dragged']],
    [
      'TTFT down and TPOT up: no prefill-bound claim',
      { ttft_p99: 'better', tpot_p99: 'worse' },
      ['decode-dragged'],
    ],
    ['TPOT down', { ttft_p99: flat, tpot_p99: 'better' }, ['decode-relieved']],
    [
      'preemptions and queue up',
      { ttft_p99: flat, tpot_p99: flat, preemptions: 'worse', waiting_mean: 'worse' },
      ['kv-pressure'],
    ],
    ['fragmentation down', { ttft_p99: flat, tpot_p99: flat, kv_fragmentation: 'better' }, ['kv-relief']],
    [
      'queue shorter, fragmentation up',
      { ttft_p99: flat, tpot_p99: flat, waiting_mean: 'better', kv_fragmentation: 'worse' },
      ['kv-relief', 'kv-fragmentation'],
    ],
    [
      'preemptions up with fragmentation: one pressure reading',
      {
        ttft_p99: flat,
        tpot_p99: flat,
        preemptions: 'worse',
        waiting_mean: 'better',
        kv_fragmentation: 'worse',
      },
      ['kv-pressure'],
    ],
    [
      'prefix cache hits up with TTFT down',
      { ttft_p99: 'better', tpot_p99: flat, prefix_cache_hit_rate: 'better' },
      ['prefill-bound', 'prefix-reuse'],
    ],
    ['nothing significant', { ttft_p99: flat, tpot_p99: flat, preemptions: flat }, []],
    ['too few runs', { ttft_p99: 'untested', tpot_p99: 'untested' }, []],
  ] as const)('%s', (_, verdicts, kinds) => {
    const hs = readConfiguration({ cells: cells(verdicts), findings: [], baselineFindings: [] });
    expect(hs.map((h) => h.kind)).toEqual(kinds);
    for (const h of hs) expect(h.evidence.length).toBeGreaterThan(0);
  });

  it('joins the diagnosis: a prefill-bound baseline supports "the bottleneck was prefill"', () => {
    const [h] = readConfiguration({
      cells: cells({ ttft_p99: 'better', tpot_p99: flat }),
      findings: [],
      baselineFindings: [
        { kind: 'prefill-bound', title: 'TTFT grows with prompt length (prefill-bound)', runs: 3, of: 3 },
      ],
    });
    expect(h?.text).toBe('TTFT P99 down with TPOT flat: the bottleneck was prefill');
    expect(h?.evidence).toEqual(['TTFT p99 −30% [−35, −25]']);
    expect(h?.diagnosis).toBe('baseline: TTFT grows with prompt length (prefill-bound) in 3 of 3 runs');
  });
});

function row(
  name: string,
  verdicts: Record<string, AcrossVerdict>,
  means: Record<string, number> = {},
): ConfigurationAnalysis {
  const c = Object.fromEntries(
    Object.entries(verdicts).map(([id, v]) => [id, cell(id, v, undefined, means[id] ?? 100)]),
  );
  return {
    name,
    slug: name,
    label: name,
    baseline: false,
    params: {},
    status: 'ok',
    runs: { ok: 3, failed: 0, total: 3, dirs: [] },
    cells: c,
    verdict: 'untested',
    hypotheses: [],
    findings: [],
    conclusion: '',
  };
}

const baselineRow: ConfigurationAnalysis = { ...row('base', {}), baseline: true, verdict: 'baseline' };

describe('verdicts and the winner', () => {
  const objective = objectiveOf({});

  it.each([
    ['better on goodput only', { request_goodput: 'better', ttft_p99: flat }, 'better'],
    ['worse on TPOT only', { tpot_p99: 'worse' }, 'worse'],
    ['better and worse', { ttft_p99: 'better', tpot_p99: 'worse' }, 'mixed'],
    ['nothing significant', { ttft_p99: flat, tpot_p99: flat }, 'no significant change'],
    ['no interval', { ttft_p99: 'untested' }, 'untested'],
    [
      'better on a metric outside objective and guard',
      { ttft_p99: flat, preemptions: 'better' },
      'no significant change',
    ],
  ] as const)('row verdict: %s', (_, verdicts, expected) => {
    expect(rowVerdict(cells(verdicts), objective)).toBe(expected);
  });

  it.each([
    [
      'goodput first: the one better on goodput wins over a better TTFT',
      [
        row('a', { ttft_p99: 'better', request_goodput: flat }),
        row('b', { request_goodput: 'better', ttft_p99: flat }),
      ],
      'b',
    ],
    [
      'among several better on goodput, the highest mean',
      [
        row('a', { request_goodput: 'better' }, { request_goodput: 10 }),
        row('b', { request_goodput: 'better' }, { request_goodput: 12 }),
      ],
      'b',
    ],
    [
      'worse on a guarded metric: not eligible',
      [row('a', { request_goodput: 'better', tpot_p99: 'worse' }), row('b', { ttft_p99: 'better' })],
      'b',
    ],
    ['nothing significant: no conclusion', [row('a', { request_goodput: flat, ttft_p99: flat })], undefined],
    [
      'the only better one is worse on error rate: no conclusion',
      [row('a', { ttft_p99: 'better', error_rate: 'worse' })],
      undefined,
    ],
  ] as const)('winner: %s', (_, rows, name) => {
    const w = chooseWinner([baselineRow, ...rows], objective);
    expect(w.name).toBe(name);
    if (name === undefined) expect(w.reason).toMatch(/^no conclusion/);
    else expect(w.reason).toMatch(/significantly better than the baseline on/);
  });

  it('a failed baseline gives no conclusion', () => {
    const w = chooseWinner(
      [{ ...baselineRow, status: 'failed' }, row('a', { request_goodput: 'better' })],
      objective,
    );
    expect(w.name).toBeUndefined();
    expect(w.reason).toMatch(/baseline/);
  });

  it.each([
    [undefined, ['request_goodput', 'ttft_p99', 'tpot_p99', 'output_throughput'], [...DEFAULT_GUARDED]],
    ['ttft_p99', ['ttft_p99'], DEFAULT_GUARDED.filter((g) => g !== 'ttft_p99')],
    ['goodput', ['request_goodput'], DEFAULT_GUARDED.filter((g) => g !== 'request_goodput')],
    [{ metric: 'tpot_p99', guard: ['error_rate'] }, ['tpot_p99'], ['error_rate']],
  ] as const)('objective %j', (given, metrics, guarded) => {
    const o = objectiveOf(given === undefined ? {} : { objective: given });
    expect(o.metrics).toEqual(metrics);
    expect(o.guarded).toEqual(guarded);
  });

  it('refuses an unknown objective metric with a did-you-mean', () => {
    expect(() => objectiveOf({ objective: 'ttft_p9' })).toThrow(
      /unknown metric 'ttft_p9' \(did you mean ttft_p90\?\)/,
    );
  });
});

/** Runs whose TTFTs and TPOTs are given per run (100 requests each). */
function runsOf(slug: string, ttfts: number[], tpot = 10, over: { failed?: number } = {}): AnalysedRun[] {
  return ttfts.map((t, k) => {
    const summary = makeSummary({
      latency: {
        ttft: Array(100).fill(t),
        tpot: Array(100).fill(tpot),
        e2el: Array(100).fill(t + 20 * tpot),
      },
      ...over,
    });
    return { repeat: k, dir: `runs/${slug}/run-${k + 1}`, summary, input: { name: `${slug}-${k}`, summary } };
  });
}

function experiment(configs: Array<Partial<ExperimentConfiguration> & { name: string }>): ExperimentFile {
  return {
    schemaVersion: 1,
    kind: 'goodput-experiment',
    name: 'table',
    createdAt: '',
    updatedAt: '',
    planSha256: '',
    plan: {},
    order: { mode: 'interleaved' },
    runsPerConfiguration: 3,
    restart: 'per-config',
    virtual: true,
    status: 'done',
    configurations: configs.map((c, i) => ({
      slug: c.name,
      baseline: i === 0,
      params: {},
      target: 'embedded',
      status: 'ok',
      runs: [0, 1, 2].map((k) => ({
        repeat: k,
        order: k,
        dir: `runs/${c.name}/run-${k + 1}`,
        status: 'ok' as const,
      })),
      ...c,
    })),
  };
}

describe('buildAnalysis', () => {
  it('rows: baseline, a faster configuration with its conclusion, an A/A twin, a failed one', () => {
    const runs = new Map([
      ['base', runsOf('base', [400, 410, 395])],
      ['fast', runsOf('fast', [250, 255, 248])],
      ['twin', runsOf('twin', [400, 410, 395])],
    ]);
    const a = buildAnalysis({
      experiment: experiment([
        { name: 'base' },
        { name: 'fast', engineArgs: ['--max-num-batched-tokens', '2048'] },
        { name: 'twin' },
        {
          name: 'broken',
          status: 'failed',
          failure: { code: 'E_SERVE', message: 'health timeout after 60 s' },
          runs: [],
        },
      ]),
      runs,
      resamples: 200,
    });
    expect(a.configurations.map((r) => r.label)).toEqual(['Baseline', 'Exp-1', 'Exp-2', 'Exp-3']);
    const [base, fast, twin, broken] = a.configurations;
    expect(base?.conclusion).toBe('baseline');
    expect(base?.cells.ttft_p99?.spread.mean).toBeCloseTo(401.67, 1);
    expect(base?.cells.ttft_p99?.spread.ci?.[0]).toBeLessThan(401.67);
    expect(fast?.cells.ttft_p99?.vsBaseline?.verdict).toBe('better');
    expect(fast?.cells.tpot_p99?.vsBaseline?.verdict).toBe('no significant change'); // identical TPOT both sides
    expect(fast?.args).toEqual(['--max-num-batched-tokens', '2048']);
    expect(fast?.conclusion).toMatch(/^better: TTFT p99 −38% \[−\d+, −\d+\]/);
    expect(fast?.cells.ttft_p99?.withinRun?.pairs).toBe(3);
    for (const c of Object.values(twin?.cells ?? {}))
      expect(c.vsBaseline?.verdict).not.toMatch(/better|worse/);
    expect(twin?.verdict).not.toMatch(/better|worse|mixed/);
    expect(broken).toMatchObject({
      status: 'failed',
      conclusion: 'failed: E_SERVE: health timeout after 60 s',
    });
    expect(a.winner.name).toBe('fast');
  });
});

describe('a configuration’s flags', () => {
  it.each([
    [
      'the engine flags of the embedded engine',
      { engineArgs: ['--enable-prefix-caching'] },
      ['--enable-prefix-caching'],
    ],
    [
      'a serve command without the port goodput chose',
      {
        serve: {
          argv: [
            'vllm',
            'serve',
            'm',
            '--port',
            '41234',
            '--max-num-batched-tokens',
            '2048',
            '--host=0.0.0.0',
          ],
          cwd: '/',
          envNames: [],
          health: '',
          port: 41234,
        },
      },
      ['vllm', 'serve', 'm', '--max-num-batched-tokens', '2048', '--host=0.0.0.0'],
    ],
    [
      'the port given as --port=N; another flag of the same value stays',
      {
        serve: {
          argv: ['goodput', 'sim', '--port=8011', '--max-num-seqs', '8011'],
          cwd: '/',
          envNames: [],
          health: '',
          port: 8011,
        },
      },
      ['goodput', 'sim', '--max-num-seqs', '8011'],
    ],
    ['a url: target: none recorded', {}, undefined],
  ] as const)('%s', (_, over, expected) => {
    const c = {
      name: 'x',
      slug: 'x',
      baseline: false,
      params: {},
      target: 'serve',
      status: 'ok',
      runs: [],
      ...over,
    } as unknown as ExperimentConfiguration;
    expect(argsOf(c)).toEqual(expected);
  });
});
