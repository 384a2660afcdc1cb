import { describe, expect, it } from 'vitest';
import { makeMeta, makeRecord, makeSummary } from '../../test/helpers/rules-fixtures.js';
import { GoodputError } from '../errors.js';
import { comparabilityDiffs } from './comparable.js';
import { compareRuns, type RunInput, tooFewForQuantile } from './compare.js';
import { renderCompareMarkdown, renderCompareTable } from './render.js';
import { samplesFromRecords } from './samples.js';
import { seededRandom } from './stats.js';

/** A run of n requests whose TTFT is drawn uniformly from [ttftLo, ttftLo + spread) and gap from [gap, gap+2). */
function run(
  name: string,
  n: number,
  ttftLo: number,
  gap: number,
  seed: number,
  over: Parameters<typeof makeSummary>[0] = {},
): RunInput {
  const random = seededRandom(seed);
  const gapRandom = seededRandom(1000); // the same decode behaviour in every run
  const records = Array.from({ length: n }, (_, i) =>
    makeRecord(i, ttftLo + random() * 100, gap + gapRandom() * 2),
  );
  const samples = samplesFromRecords(records);
  const summary = makeSummary({
    attempted: n,
    latency: {
      ttft: [...samples.ttft],
      tpot: [...samples.tpot],
      e2el: [...samples.e2el],
      itl: [...samples.itl],
    },
    ...over,
  });
  return { name, summary, samples };
}

describe('comparabilityDiffs', () => {
  it('names every differing field of sampling, workload and load', () => {
    const a = makeMeta();
    const b = makeMeta({
      sampling: { ...a.sampling, temperature: 0.7, topP: 0.9 },
      load: { ...a.load, concurrency: 8 },
      workload: { ...a.workload, promptTokens: 128 },
      model: 'other', // not a load field: allowed
    });
    expect(comparabilityDiffs(a, b).map((d) => d.path)).toEqual([
      'sampling.temperature',
      'sampling.topP',
      'workload.promptTokens',
      'load.concurrency',
    ]);
  });

  it('treats two run seeds as replicates, but not a sampling seed chosen apart', () => {
    const a = makeMeta({ seed: 1, sampling: { temperature: 0, maxTokens: 16, ignoreEos: true, seed: 1 } });
    const replicate = makeMeta({
      seed: 2,
      sampling: { temperature: 0, maxTokens: 16, ignoreEos: true, seed: 2 },
    });
    const fixedSampling = makeMeta({
      seed: 2,
      sampling: { temperature: 0, maxTokens: 16, ignoreEos: true, seed: 7 },
    });
    expect(comparabilityDiffs(a, replicate)).toEqual([]);
    expect(comparabilityDiffs(a, fixedSampling).map((d) => d.path)).toEqual(['sampling.seed']);
  });

  it('ignores where a dataset lives but not what it holds', () => {
    const ds = { path: '/a/x.jsonl', format: 'jsonl' as const, sha256: 'aa', entries: 10 };
    const a = makeMeta({ workload: { ...makeMeta().workload, kind: 'dataset', dataset: ds } });
    const moved = makeMeta({ workload: { ...a.workload, dataset: { ...ds, path: '/b/x.jsonl' } } });
    const changed = makeMeta({ workload: { ...a.workload, dataset: { ...ds, sha256: 'bb' } } });
    expect(comparabilityDiffs(a, moved)).toEqual([]);
    expect(comparabilityDiffs(a, changed).map((d) => d.path)).toEqual(['workload.dataset.sha256']);
  });

  it('ignores where a tokenizer file lives but not which tokenizer or template counted', () => {
    const file = {
      path: '/a/tokenizer.json',
      sha256: 'aa',
      chatTemplate: { source: '/a/c.json', sha256: 't1' },
    };
    const a = makeMeta({ workload: { ...makeMeta().workload, tokenizer: 'hf:m@aa', tokenizerFile: file } });
    const moved = makeMeta({
      workload: {
        ...a.workload,
        tokenizerFile: {
          ...file,
          path: '/b/tokenizer.json',
          chatTemplate: { source: '/b/t.jinja', sha256: 't1' },
        },
      },
    });
    const otherTemplate = makeMeta({
      workload: {
        ...a.workload,
        tokenizerFile: { ...file, chatTemplate: { source: '/a/c.json', sha256: 't2' } },
      },
    });
    expect(comparabilityDiffs(a, moved)).toEqual([]);
    expect(comparabilityDiffs(a, otherTemplate).map((d) => d.path)).toEqual([
      'workload.tokenizerFile.chatTemplate.sha256',
    ]);
    expect(comparabilityDiffs(a, makeMeta()).map((d) => d.path)).toEqual([
      'workload.tokenizer',
      'workload.tokenizerFile',
    ]);
  });
});

describe('compareRuns', () => {
  it('refuses runs with different sampling, naming each field', () => {
    const a = run('A', 50, 100, 10, 1);
    const b = run('B', 50, 100, 10, 2, {
      meta: { sampling: { temperature: 1, maxTokens: 32, ignoreEos: true, seed: 1 } },
    });
    let error: unknown;
    try {
      compareRuns([a, b]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GoodputError);
    expect((error as GoodputError).code).toBe('E_INCOMPARABLE');
    expect((error as GoodputError).message).toContain('sampling.temperature: 0 → 1');
    expect((error as GoodputError).message).toContain('sampling.maxTokens: 16 → 32');
    expect((error as GoodputError).hint).toContain('--allow-different');
    const allowed = compareRuns([a, b], { allowDifferent: true });
    expect(allowed.comparisons[0]?.differences.map((d) => d.path)).toEqual([
      'sampling.maxTokens',
      'sampling.temperature',
    ]);
  });

  it('needs two runs', () => {
    expect(() => compareRuns([run('A', 5, 100, 10, 1)])).toThrow(/at least two runs/);
  });

  it('calls a faster prefill better and unchanged decode unchanged, with a prefill hint', () => {
    const base = run('A', 300, 200, 10, 1);
    const faster = run('B', 300, 120, 10, 2);
    // One floor for every row (5 %): this test is about the within-run tests, not the table.
    const report = compareRuns([base, faster], { resamples: 500, minEffect: 0.05 });
    const by = new Map(report.comparisons[0]?.deltas.map((d) => [d.key, d]));
    expect(by.get('ttft_p50')?.verdict).toBe('better');
    expect(by.get('ttft_p50')?.p).toBeLessThan(0.001);
    expect(by.get('ttft_p99')?.verdict).toBe('better');
    expect(by.get('ttft_p99')?.ci?.[1]).toBeLessThan(0);
    // Same decode samples in both runs: no change at all.
    expect(by.get('tpot_p50')?.verdict).toBe('unchanged');
    expect(by.get('tpot_p50')?.p).toBe(1);
    expect(by.get('tpot_p99')?.verdict).toBe('unchanged');
    expect(report.comparisons[0]?.hints.join(' ')).toMatch(
      /Hypothesis: TTFT p99 fell .* bottleneck was prefill/,
    );
  });

  it('calls slower decode worse and says decode suffers', () => {
    const base = run('A', 200, 200, 10, 1);
    const slow = run('B', 200, 200, 14, 1);
    const report = compareRuns([base, slow], { resamples: 500 });
    const by = new Map(report.comparisons[0]?.deltas.map((d) => [d.key, d]));
    expect(by.get('tpot_p50')?.verdict).toBe('worse');
    expect(by.get('tpot_p50')?.change).toBeGreaterThan(0.3);
    expect(by.get('ttft_p50')?.verdict).toBe('unchanged');
    expect(report.comparisons[0]?.hints.join(' ')).toContain('decode suffers');
  });

  it('treats a significant change under the noise floor as no change', () => {
    // Identical draws, the candidate 3% slower: the rank test rejects, the floor (5%) holds.
    const base = run('A', 400, 100, 10, 1);
    const slower = run('B', 400, 100, 10, 1);
    const scale = (xs: Float64Array) => xs.map((x) => x * 1.03);
    if (slower.samples) slower.samples = { ...slower.samples, ttft: scale(slower.samples.ttft) };
    const floored = compareRuns([base, slower], { resamples: 200 }).comparisons[0]?.deltas[0];
    expect(floored?.p).toBeLessThan(0.05);
    expect(floored?.verdict).toBe('unchanged');
    const strict = compareRuns([base, slower], { resamples: 200, minEffect: 0 }).comparisons[0]?.deltas[0];
    expect([strict?.key, strict?.verdict]).toEqual(['ttft_p50', 'worse']);
  });

  it('tests proportions in points and throughput as a rate ratio', () => {
    const base = run('A', 400, 100, 10, 1, { attempted: 400, failed: 0, durationS: 40 });
    const worse = run('B', 400, 100, 10, 1, { attempted: 400, failed: 40, durationS: 80 });
    const by = new Map(
      compareRuns([base, worse], { resamples: 100 }).comparisons[0]?.deltas.map((d) => [d.key, d]),
    );
    const err = by.get('error_rate');
    expect(err?.changeKind).toBe('points');
    expect(err?.change).toBeCloseTo(0.1, 12);
    expect(err?.verdict).toBe('worse');
    expect(by.get('request_throughput')?.verdict).toBe('worse');
    expect(by.get('request_throughput')?.change).toBeCloseTo(360 / 80 / (400 / 40) - 1, 12);
    expect(by.get('goodput_ratio')?.verdict).toBe('untested');
  });

  it('shows server figures only when a run has them, and hints at KV pressure', () => {
    const server = (preemptions: number, waiting: number) => ({
      engine: 'goodput-sim' as const,
      metricsUrl: 'http://x/metrics',
      samples: 10,
      series: { waiting: { min: 0, mean: waiting, max: waiting * 2, last: 0 } },
      preemptions,
      kvFragmentation: 0.1,
    });
    const plain = compareRuns([run('A', 20, 100, 10, 1), run('B', 20, 100, 10, 2)], { resamples: 50 });
    expect(plain.comparisons[0]?.deltas.some((d) => d.key === 'preemptions')).toBe(false);
    const base = run('A', 20, 100, 10, 1, { server: server(0, 1) });
    const cand = run('B', 20, 100, 10, 2, { server: server(12, 6) });
    const report = compareRuns([base, cand], { resamples: 50 });
    const pre = report.comparisons[0]?.deltas.find((d) => d.key === 'preemptions');
    expect([pre?.baseline, pre?.candidate, pre?.verdict]).toEqual([0, 12, 'untested']);
    const hints = report.comparisons[0]?.hints.join(' ') ?? '';
    expect(hints).toContain('preemptions rose from 0 to 12');
    expect(hints).toContain('queue pressure');
  });

  it('renders a table and Markdown with values, intervals and verdicts', () => {
    const report = compareRuns([run('base', 200, 200, 10, 1), run('cand', 200, 120, 10, 2)], {
      resamples: 200,
      minEffect: 0.05,
    });
    const table = renderCompareTable(report);
    expect(table).toMatch(/TTFT p50 \(ms\)\s+\d+/);
    expect(table).toMatch(/−\d+\.\d% \[−\d+\.\d, −\d+\.\d\]\s+better/);
    expect(table).toContain('no significant change');
    expect(table).toContain('Hypothesis');
    const md = renderCompareMarkdown(report);
    expect(md.split('\n')[0]).toBe('| Metric | base (baseline) | cand | Δ (95% CI, within run) | Verdict |');
    expect(md).toContain('| better |');
  });
});

describe('percentile intervals need a sample beyond the percentile', () => {
  it.each([
    // [q, n1, n2, needed or undefined when the interval is run]
    [0.99, 100, 100, undefined],
    [0.99, 99, 500, 100],
    [0.99, 500, 1, 100],
    [0.95, 19, 20, 20],
    [0.95, 20, 20, undefined],
    [0.5, 1, 5, 2],
    [0.5, 2, 2, undefined],
    [0.999, 999, 5000, 1000],
  ])('p%s of %i and %i requests', (q, n1, n2, need) => {
    const why = tooFewForQuantile(q, n1, n2);
    if (need === undefined) expect(why).toBeUndefined();
    else expect(why).toContain(`(${n1} and ${n2}): each run needs ${need}`);
  });

  it('a 40-request run compares its p50 with an interval, its p99 with none and says why', () => {
    const a = run('A', 40, 100, 10, 1);
    const b = run('B', 40, 300, 10, 2); // every TTFT far above A's
    const deltas = compareRuns([a, b], { minEffect: 0.05 }).comparisons[0]!.deltas;
    const p50 = deltas.find((d) => d.key === 'ttft_p50')!;
    const p99 = deltas.find((d) => d.key === 'ttft_p99')!;
    expect(p50.verdict).toBe('worse');
    expect(p99).toMatchObject({ verdict: 'untested' });
    expect(p99.ci).toBeUndefined();
    expect(p99.change).toBeGreaterThan(0.5); // the figures still compare
    expect(p99.why).toBe(
      'too few samples for a p99 interval (40 and 40): each run needs 100, so that one lies beyond the p99 (more requests a run, e.g. run --requests 100, or replicates: A1,A2,A3 B1,B2,B3)',
    );
    // 100 requests a run: the interval and the verdict are back
    const [c, d] = [run('C', 100, 100, 10, 1), run('D', 100, 300, 10, 2)];
    const again = compareRuns([c, d], { minEffect: 0.05 }).comparisons[0]!.deltas.find(
      (x) => x.key === 'ttft_p99',
    )!;
    expect(again.verdict).toBe('worse');
    expect(again.ci).toHaveLength(2);
    expect(renderCompareTable(compareRuns([a, b]))).toContain('no verdict on TTFT p99');
  });
});
