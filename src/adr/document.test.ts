import { describe, expect, it } from 'vitest';
import { makeRecord, makeSummary } from '../../test/helpers/rules-fixtures.js';
import { compareRuns, type RunInput, samplesFromRecords } from '../compare/index.js';
import { GoodputError } from '../errors.js';
import { gateSpecThresholds } from '../gate/index.js';
import { METRICS } from '../metrics/index.js';
import { buildAdr, experimentVerdict, nextAdrId, slugify } from './build.js';
import { parseAdr, serializeAdr } from './document.js';
import { lintAdrs, lintAdrText, NO_CONCLUSION } from './lint.js';

function run(name: string, ttft: number, labels?: Record<string, string>): RunInput {
  const records = Array.from({ length: 120 }, (_, i) => makeRecord(i, ttft + (i % 10) * 3, 10));
  const samples = samplesFromRecords(records);
  const summary = makeSummary({
    attempted: 120,
    latency: { ttft: [...samples.ttft], tpot: [...samples.tpot], e2el: [...samples.e2el] },
    meta: labels ? { labels } : {},
  });
  return { name, summary, samples };
}

const minimal = (fields: string) => `---
schemaVersion: 1
id: ADR-20250102-001
title: Test
date: 2025-01-02
${fields}
---

# body
`;

describe('ids and names', () => {
  it("numbers the day's records from the highest existing one", () => {
    const day = new Date('2025-01-02T23:59:00Z');
    expect(nextAdrId(day, [])).toBe('ADR-20250102-001');
    expect(nextAdrId(day, ['ADR-20250102-001-a.md', 'ADR-20250102-007-b.md', 'ADR-20250101-009-c.md'])).toBe(
      'ADR-20250102-008',
    );
  });
  it.each([
    ['Enable chunked prefill (2048)!', 'enable-chunked-prefill-2048'],
    ['Ünïcode — títle', 'unicode-title'],
    ['???', 'decision'],
  ])('slugify(%j) = %j', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });
});

describe('parseAdr', () => {
  it.each([
    ['status: accepted\ngate: { ttft_p99_ms: -1 }', 'gate.ttft_p99_ms'],
    ['status: maybe', 'status'],
    ['status: accepted\nrules:\n  - flag: enable', 'rules[0].flag'],
    ['status: accepted\nrollback: { metric: ttft_p99_ms, above: 5, for: soon }', 'rollback.for'],
    ['status: accepted\nrules:\n  - { flag: --x, equals: 1, absent: true }', 'rules[0]'],
  ])('names the field at fault in %j', (fields, path) => {
    let error: unknown;
    try {
      parseAdr(minimal(fields), 'x.md');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GoodputError);
    expect((error as GoodputError).code).toBe('E_ADR');
    expect((error as GoodputError).exitCode).toBe(5);
    expect((error as GoodputError).message).toContain(`${path}:`);
  });
  it.each([
    ['gate: { ttft_p99_msx: 350 }', 'gate.ttft_p99_msx: unknown field (did you mean ttft_p99_ms?)'],
    ['gate: { tpot_p99: 40 }', 'gate.tpot_p99: unknown field (did you mean tpot_p99_ms?)'],
    ['rulez:\n  - flag: --enforce-eager', 'rulez: unknown field (did you mean rules?)'],
    [
      'rollbak: { metric: ttft_p99_ms, above: 500, for: 5m }',
      'rollbak: unknown field (did you mean rollback?)',
    ],
    [
      'rollback: { metric: ttft_p99, above: 500, for: 5m }',
      "unknown metric 'ttft_p99' (did you mean ttft_p99_ms?)",
    ],
    ['rules:\n  - { flag: --x, equal: 1 }', 'rules[0].equal: unknown field (did you mean equals?)'],
  ])('a misspelt field is an error with a suggestion, never ignored: %j', (fields, problem) => {
    const gate = fields.startsWith('gate:') ? '' : 'gate: { ttft_p99_ms: 100 }\n';
    const text = minimal(`status: accepted\n${gate}${fields}`);
    expect(() => parseAdr(text, 'x.md')).toThrow(problem);
    const lint = lintAdrText(text, 'docs/adr/ADR-20250102-001-x.md');
    expect(lint.problems.join('\n')).toContain(problem);
  });
  it('every catalogue metric has a gate key the schema accepts, and it gates that metric', () => {
    for (const m of METRICS) {
      const limit = m.unit === 'ratio' ? 0.5 : 7;
      const doc = parseAdr(minimal(`status: accepted\ngate: { ${m.adrGateKey}: ${limit} }`), 'x.md');
      const [t] = gateSpecThresholds(doc.frontMatter.gate ?? {});
      expect(t?.metric, m.adrGateKey).toBe(m);
      expect(t?.limit).toBe(limit);
    }
  });
  it('refuses a file without front matter or with broken YAML', () => {
    expect(() => parseAdr('# just markdown\n')).toThrow(/no YAML front matter/);
    expect(() => parseAdr('---\na: [\n---\n')).toThrow(/not valid YAML/);
  });
});

describe('lint', () => {
  it('fails an accepted ADR with no rule and no threshold, and passes a proposed one', () => {
    const path = 'docs/adr/ADR-20250102-001-test.md';
    expect(lintAdrText(minimal('status: accepted'), path).problems).toEqual([NO_CONCLUSION]);
    expect(lintAdrText(minimal('status: accepted\ngate: { headroom: 0.2 }'), path).problems).toEqual([
      NO_CONCLUSION,
    ]);
    expect(lintAdrText(minimal('status: proposed'), path).problems).toEqual([]);
    expect(lintAdrText(minimal('status: accepted\nrules: [{ flag: --x }]'), path).problems).toEqual([]);
    expect(
      lintAdrText(minimal('status: accepted\ngate: { thresholds: ["p99(ttft)<3"] }'), path).problems,
    ).toEqual([]);
  });
  it('reports a bad threshold, an id that does not match its file, and a reused id', () => {
    const text = minimal('status: accepted\ngate: { thresholds: ["p99(tft)<3"] }');
    expect(lintAdrText(text, 'docs/adr/ADR-20250102-001.md').problems[0]).toMatch(
      /^gate\.thresholds: invalid threshold/,
    );
    expect(lintAdrText(minimal('status: proposed'), 'docs/adr/ADR-20250102-002-x.md').problems[0]).toMatch(
      /does not match the file name/,
    );
    const ok = minimal('status: proposed');
    const results = lintAdrs([
      { path: 'a/ADR-20250102-001-a.md', text: ok },
      { path: 'b/ADR-20250102-001-b.md', text: ok },
    ]);
    expect(results.map((r) => r.problems)).toEqual([
      [],
      ['id ADR-20250102-001 is already used by a/ADR-20250102-001-a.md'],
    ]);
  });
});

describe('buildAdr', () => {
  const baseline = run('Baseline', 300, { 'serving.args': '--max-num-batched-tokens 8192' });
  const exp1 = run('Exp-1', 310, { 'serving.args': '--max-num-batched-tokens 4096' });
  const exp2 = run('Exp-2', 150, {
    'serving.args': '--max-num-batched-tokens 2048 --enable-chunked-prefill',
  });
  // One 5 % floor for every row: this test is about the document, not compare's calibrated floors.
  const report = compareRuns([baseline, exp1, exp2], { resamples: 200, minEffect: 0.05 });
  const adr = buildAdr({
    title: 'Smaller token budget for long prompts',
    date: new Date('2025-01-02T10:00:00Z'),
    existing: ['ADR-20250102-001-earlier.md'],
    status: 'accepted',
    baseline,
    candidates: [exp1, exp2],
    report,
    headroom: 0.2,
    rules: [{ flag: '--max-num-seqs', equals: '256' }],
    links: { baseline: '../../runs/base', candidates: ['../../runs/e1', '../../runs/e2'] },
    context: 'P99 TTFT spikes with long system prompts.',
  });

  it('picks the best experiment, derives the gate with headroom, and rules from the labels', () => {
    expect(adr.id).toBe('ADR-20250102-002');
    expect(adr.fileName).toBe('ADR-20250102-002-smaller-token-budget-for-long-prompts.md');
    const fm = adr.frontMatter;
    expect(fm.runs?.chosen).toBe('../../runs/e2');
    expect(fm.gate?.ttft_p99_ms).toBe(Math.ceil(exp2.summary.latency.ttft.p99 * 1.2));
    expect(fm.gate?.tpot_p99_ms).toBe(Math.ceil(exp2.summary.latency.tpot.p99 * 1.2 * 10) / 10);
    // The token goodput ratio is ~1 on any run without cancels: not a gate. Request goodput is.
    expect(fm.gate?.goodput_min).toBeUndefined();
    const goodput = exp2.summary.request_goodput;
    expect(goodput).toBeGreaterThan(0);
    expect(fm.gate?.request_goodput_min).toBeLessThanOrEqual(goodput / 1.2);
    expect(fm.gate?.request_goodput_min).toBeGreaterThan((goodput / 1.2) * 0.99);
    expect(fm.rules).toEqual([
      { flag: '--max-num-batched-tokens', equals: '2048' },
      { flag: '--enable-chunked-prefill' },
      { flag: '--max-num-seqs', equals: '256' },
    ]);
    expect(fm.rollback).toEqual({
      metric: 'ttft_p99_ms',
      for: '5m',
      above: Math.ceil(((fm.gate?.ttft_p99_ms as number | undefined) ?? 0) * 1.5),
    });
    expect(fm.workload?.load).toEqual(exp2.summary.meta.load);
    expect(fm.workload?.sampling).toEqual(exp2.summary.meta.sampling);
  });

  it('writes the sections, the matrix and the links', () => {
    for (const heading of [
      '## Context',
      '## Metrics matrix',
      '## Solidified rules',
      '## Rollback',
      '## Results',
    ]) {
      expect(adr.body).toContain(heading);
    }
    expect(adr.body).toContain('P99 TTFT spikes with long system prompts.');
    expect(adr.body).toMatch(
      /\| Exp-2 \(chosen\) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| better \(TTFT p99 −/,
    );
    expect(adr.body).toContain('| Exp-1 | ');
    expect(adr.body).toContain('- `--max-num-batched-tokens=2048`');
    expect(adr.body).toContain('- Exp-2: [../../runs/e2](../../runs/e2)');
  });

  it('states the decision with its evidence, the trade-off and the consequences', () => {
    const decision = adr.body.slice(adr.body.indexOf('## Decision'), adr.body.indexOf('## Solidified rules'));
    expect(decision).toMatch(/Adopt the configuration of Exp-2: against the baseline it improved TTFT p99 −/);
    expect(decision).toMatch(/Trade-off: /);
    // Every rule CI enforces and every gate limit, by name.
    expect(decision).toContain('`goodput adr enforce` refuses a serving configuration that breaks');
    for (const rule of ['--max-num-batched-tokens=2048', '--enable-chunked-prefill', '--max-num-seqs=256'])
      expect(decision).toContain(`\`${rule}\``);
    expect(decision).toMatch(/`goodput gate --adr` fails a release .* unless `p99\(ttft\) <= \d+/);
    expect(decision).toMatch(/rolls back when `ttft_p99_ms` stays above \d+ for 5m/);
  });

  it('round-trips through the file format and lints clean', () => {
    const text = serializeAdr(adr.frontMatter, adr.body);
    const back = parseAdr(text, adr.fileName);
    expect(back.frontMatter).toEqual(adr.frontMatter);
    expect(back.body).toBe(adr.body);
    expect(lintAdrText(text, `docs/adr/${adr.fileName}`).problems).toEqual([]);
    expect(gateSpecThresholds(back.frontMatter.gate ?? {}).length).toBe(3);
  });
});

describe('an ADR whose comparison has no verdict', () => {
  it('says there is no verdict (not "no significant change") and that the trade-off is not known', () => {
    const baseline = run('Baseline', 300);
    const exp = run('Exp-1', 150);
    const report = compareRuns([baseline, exp], { resamples: 200 });
    // What a comparison that could test nothing gives: every key row untested, with its reason.
    const untested = {
      ...report,
      comparisons: report.comparisons.map((c) => ({
        ...c,
        deltas: c.deltas.map((d) => ({ ...d, verdict: 'untested' as const, why: 'one run per side' })),
      })),
    };
    expect(experimentVerdict(untested.comparisons[0]!)).toEqual({
      verdict: 'no verdict',
      better: [],
      worse: [],
      why: 'one run per side',
    });
    const adr = buildAdr({
      title: 'Untested',
      date: new Date('2025-01-02T10:00:00Z'),
      existing: [],
      status: 'proposed',
      baseline,
      candidates: [exp],
      report: untested,
      links: { baseline: 'b', candidates: ['e'] },
    });
    expect(adr.body).not.toContain('no significant change');
    expect(adr.body).toContain('| no verdict |');
    expect(adr.body).toContain('without a verdict yet');
    expect(adr.body).toContain('(one run per side)');
    expect(adr.body).toContain('Trade-off: not known yet');
  });
});
