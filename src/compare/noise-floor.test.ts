import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRecord, makeSummary } from '../../test/helpers/rules-fixtures.js';
import { runsToResolve } from './across-runs.js';
import { runGroup } from './command.js';
import { compareRuns, type RunInput } from './compare.js';
import { compareGroups } from './groups.js';
import { COMPARE_METRICS } from './metrics.js';
import { NOISE_FLOORS, noiseFloorOf } from './noise-floor.js';
import {
  COMPARE_CSV_COLUMNS,
  renderCompareCsv,
  renderCompareMarkdown,
  renderCompareTable,
} from './render.js';
import { samplesFromRecords } from './samples.js';
import { seededRandom } from './stats.js';

/** 400 requests: TTFT uniform in [100, 200) × ttftScale, every decode gap `gap` ms (± 1 ms). */
function run(name: string, gap: number, seed: number, ttftScale = 1): RunInput {
  const random = seededRandom(seed);
  const records = Array.from({ length: 400 }, (_, i) =>
    makeRecord(i, (100 + random() * 100) * ttftScale, gap + random() * 2 - 1, 16),
  );
  const samples = samplesFromRecords(records);
  const summary = makeSummary({
    attempted: 400,
    latency: {
      ttft: [...samples.ttft],
      tpot: [...samples.tpot],
      e2el: [...samples.e2el],
      itl: [...samples.itl],
    },
  });
  return { name, summary, samples };
}

const row = (runs: RunInput[], key: string) =>
  compareRuns(runs, { resamples: 300 }).comparisons[0]?.deltas.find((d) => d.key === key);

describe('noise floors, one run a side', () => {
  it('has one floor for every tested compare row', () => {
    for (const def of COMPARE_METRICS.filter((m) => m.test !== 'none')) {
      expect(NOISE_FLOORS[def.key], def.key).toBeDefined();
    }
    // Tails drift more than medians; a floor is never under the per-run spread it came from.
    expect(noiseFloorOf('tpot_p99').floor).toBeGreaterThan(noiseFloorOf('tpot_p50').floor);
    expect(noiseFloorOf('ttft_p99').floor).toBeGreaterThan(noiseFloorOf('ttft_p50').floor);
    for (const [key, f] of Object.entries(NOISE_FLOORS))
      expect(f.floor, key).toBeGreaterThanOrEqual(f.runSpread);
  });

  it.each([
    // [case, decode gap of the candidate (baseline 20 ms), verdict]
    ['+10 % TPOT: significant within the run, inside the 15 % floor', 22, 'unchanged'],
    ['+25 % TPOT: beyond the floor', 25, 'worse'],
    ['−25 % TPOT', 15, 'better'],
  ] as const)('%s', (_, gap, verdict) => {
    const base = run('A', 20, 1);
    const cand = run('B', gap, 2);
    const d = row([base, cand], 'tpot_p50');
    expect(d?.p).toBeLessThan(0.001); // the within-run test alone would call every one of them
    expect(d).toMatchObject({ verdict, intervalKind: 'within-run', floor: noiseFloorOf('tpot_p50').floor });
    if (verdict === 'unchanged') {
      const spread = noiseFloorOf('tpot_p50').runSpread;
      expect(d?.runsNeeded).toBe(runsToResolve(d?.change as number, spread, spread));
      expect(d?.runsNeeded).toBeGreaterThan(2);
    } else {
      expect(d?.runsNeeded).toBeUndefined();
    }
  });

  it('says "decode suffers" only from a significant change, not from one inside the floor', () => {
    const base = run('A', 20, 1);
    const inside = compareRuns([base, run('B', 22, 2)], { resamples: 300 }).comparisons[0];
    expect(inside?.hints.join(' ')).not.toContain('decode');
    const beyond = compareRuns([base, run('B', 26, 2)], { resamples: 300 }).comparisons[0];
    expect(beyond?.hints.join(' ')).toContain('decode suffers');
  });

  it('--min-effect overrides every floor (0: the within-run test alone)', () => {
    const runs = [run('A', 20, 1), run('B', 22, 2)];
    const strict = compareRuns(runs, { resamples: 300, minEffect: 0 });
    expect(strict.minEffect).toBe(0);
    const d = strict.comparisons[0]?.deltas.find((x) => x.key === 'tpot_p50');
    expect(d).toMatchObject({ verdict: 'worse', floor: 0 });
    expect(d?.runsNeeded).toBeUndefined();
  });

  it('labels within-run intervals in the table, Markdown and CSV, and lists the runs that would resolve', () => {
    const report = compareRuns([run('A', 20, 1), run('B', 22, 2)], { resamples: 300 });
    const table = renderCompareTable(report);
    expect(table).toContain('Δ (95% CI, within run)');
    expect(table).toContain('95% intervals within each run');
    expect(table).toContain('TPOT p50 15%');
    expect(table).toMatch(/runs a side that would resolve the changes seen .*TPOT p50 \d+/);
    expect(renderCompareMarkdown(report)).toContain('| Δ (95% CI, within run) |');
    const [header, ...lines] = renderCompareCsv(report).trim().split('\r\n');
    expect(header?.split(',')).toEqual([...COMPARE_CSV_COLUMNS]);
    const kind = COMPARE_CSV_COLUMNS.indexOf('interval_kind');
    expect(new Set(lines.map((l) => l.split(',')[kind]))).toEqual(new Set(['within-run']));
  });
});

describe('compareGroups', () => {
  it('is compareRuns with one run a group, and replicates with several', () => {
    const [a, b] = [run('A', 20, 1), run('B', 20, 2)];
    expect(compareGroups([[a], [b]], { resamples: 300 })).toEqual(compareRuns([a, b], { resamples: 300 }));
    const grouped = compareGroups([
      [run('a1', 20, 1), run('a2', 20, 2), run('a3', 20, 3)],
      [run('b1', 30, 4), run('b2', 30, 5), run('b3', 30, 6)],
    ]);
    expect(grouped.baseline).toMatchObject({ name: 'a1,a2,a3' });
    expect(grouped.baseline.runs?.map((r) => r.name)).toEqual(['a1', 'a2', 'a3']);
    const c = grouped.comparisons[0];
    expect(c?.replicates).toEqual({ baseline: 3, candidate: 3 });
    expect(c?.deltas.find((d) => d.key === 'tpot_p50')).toMatchObject({
      intervalKind: 'across-runs',
      verdict: 'worse',
    });
    const table = renderCompareTable(grouped);
    expect(table).toContain('Δ (95% CI, across runs, n=3 vs 3)');
    expect(table).toContain('95% intervals across runs');
    expect(table).not.toContain('95% intervals within each run');
  });

  it("refuses another tool's result among replicates", () => {
    const imported = { name: 'vllm.json', imported: {} } as never;
    expect(() =>
      compareGroups([
        [run('a1', 20, 1), run('a2', 20, 2)],
        [imported, run('b', 20, 3)],
      ]),
    ).toThrow(/replicates are goodput runs/);
  });
});

describe('runGroup', () => {
  it.each([
    ['runs/a', ['runs/a']],
    ['runs/a1,runs/a2,runs/a3', ['runs/a1', 'runs/a2', 'runs/a3']],
    ['a1,,a2,', ['a1', 'a2']],
  ])('%s', (arg, expected) => {
    expect(runGroup(arg, tmpdir())).toEqual(expected);
  });

  it('keeps a folder whose name holds a comma whole', () => {
    const dir = mkdtempSync(join(tmpdir(), 'goodput-group-'));
    try {
      mkdirSync(join(dir, 'c=8,r=2'));
      expect(runGroup('c=8,r=2', dir)).toEqual(['c=8,r=2']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
