/**
 * `goodput merge`: two load generators driving one engine at the same time, combined into
 * one run whose percentiles are those of every request recorded in one place.
 */
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { collect, readRecords, readSummary } from '../src/results/index.js';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import { histogramTolerance, nearestRank } from './fixtures/records.js';
import { runCliInProcess } from './helpers/cli.js';

let sim: SimServer;
let work: string;
beforeAll(async () => {
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 2, slowdown: 0.2 });
  work = await mkdtemp(join(tmpdir(), 'goodput-merge-'));
});
afterAll(() => sim.close());

async function cli(argv: string[]) {
  const r = await runCliInProcess(argv, { cwd: work });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

const generator = (seed: number, slo: { ttftMs?: number } = { ttftMs: 200 }) =>
  benchmarkConfig({
    url: sim.url,
    seed,
    slo,
    load: { concurrency: 4, requests: 40 },
    workload: { promptTokens: 128 },
    sampling: { temperature: 0, maxTokens: 16, ignoreEos: true },
    serverMetrics: { enabled: false },
  });

describe('goodput merge', () => {
  it('combines concurrent generators: counts add up, percentiles equal those of all records together', async () => {
    const [a, b] = await Promise.all([
      runBenchmark({ ...generator(1), outDir: join(work, 'g1') }, { cwd: work, quiet: true }),
      runBenchmark({ ...generator(2), outDir: join(work, 'g2') }, { cwd: work, quiet: true }),
    ]);
    const r = await cli(['merge', 'g1', 'g2', '-o', 'merged', '--json']);
    expect(r.code).toBe(ExitCode.OK);
    expect(r.err).toMatch(/merged 2 runs \(80 records\)/);
    const merged = await readSummary(join(work, 'merged'));
    expect(JSON.parse(r.out)).toEqual(merged);
    expect(merged.completed).toBe(a.summary.completed + b.summary.completed);
    expect(merged.goodput.goodRequests).toBe(a.summary.goodput.goodRequests + b.summary.goodput.goodRequests);

    const records = await collect(readRecords(join(work, 'merged')));
    expect(records).toHaveLength(80);
    expect(new Set(records.map((x) => x.id)).size).toBe(80);
    const ttfts = records
      .filter((x) => x.outcome === 'success')
      .map((x) => x.firstTokenMs! - x.sentMs)
      .sort((x, y) => x - y);
    for (const [p, key] of [
      [50, 'p50'],
      [99, 'p99'],
    ] as const) {
      const exact = nearestRank(ttfts, p);
      expect(Math.abs(merged.latency.ttft[key] - exact)).toBeLessThanOrEqual(
        histogramTolerance(exact) + 0.001,
      );
    }
  });

  it('refuses runs judged against different SLOs, and an --out that is one of the runs', async () => {
    await runBenchmark(
      { ...generator(3, { ttftMs: 999 }), outDir: join(work, 'g3') },
      { cwd: work, quiet: true },
    );
    const slo = await cli(['merge', 'g1', 'g3', '-o', 'bad']);
    expect(slo.code).toBe(ExitCode.USAGE);
    expect(slo.err).toMatch(/different SLOs/);
    const self = await cli(['merge', 'g1', 'g2', '-o', 'g1']);
    expect(self.code).toBe(ExitCode.USAGE);
    expect(self.err).toMatch(/is one of the runs being merged/);
  });

  it('refuses runs of different targets or loads unless --allow-different, naming each field', async () => {
    const other = await startSim({ host: '127.0.0.1', port: 0, seed: 2, slowdown: 0.2 });
    try {
      await runBenchmark(
        {
          ...generator(4),
          url: other.url,
          load: { ...generator(4).load, concurrency: 2 },
          outDir: join(work, 'g4'),
        },
        { cwd: work, quiet: true },
      );
    } finally {
      await other.close();
    }
    const refused = await cli(['merge', 'g1', 'g4', '-o', 'mixed']);
    expect(refused.code).toBe(ExitCode.USAGE);
    expect(refused.err).toContain('error[E_INCOMPARABLE]');
    expect(refused.err).toMatch(
      /g4: target\.baseUrl: "http:\/\/127\.0\.0\.1:\d+" → "http:\/\/127\.0\.0\.1:\d+"/,
    );
    expect(refused.err).toContain('g4: load.concurrency: 4 → 2');
    expect(refused.err).toContain('--allow-different');
    const allowed = await cli(['merge', 'g1', 'g4', '-o', 'mixed', '--allow-different']);
    expect(allowed.code, allowed.err).toBe(ExitCode.OK);
    expect(allowed.err).toContain('merging runs that differ');
    expect((await readSummary(join(work, 'mixed'))).counts.attempted).toBe(80);
  });

  it('refuses runs that did not run at the same time (an hour apart) unless --allow-different', async () => {
    // g2 as if taken an hour later: same target, same load, but not the same time.
    await cp(join(work, 'g2'), join(work, 'g2-later'), { recursive: true });
    const file = join(work, 'g2-later', 'summary.json');
    const summary = JSON.parse(await readFile(file, 'utf8'));
    summary.meta.startedAt = new Date(Date.parse(summary.meta.startedAt) + 3_600_000).toISOString();
    await writeFile(file, JSON.stringify(summary));
    const refused = await cli(['merge', 'g1', 'g2-later', '-o', 'apart']);
    expect(refused.code).toBe(ExitCode.USAGE);
    expect(refused.err).toMatch(/g2-later ran from .*, g1 from .*: their windows do not overlap/);
    expect(refused.err).toContain('--allow-different');
    const allowed = await cli(['merge', 'g1', 'g2-later', '-o', 'apart', '--allow-different']);
    expect(allowed.code, allowed.err).toBe(ExitCode.OK);
  });
});
