/**
 * The package entry as a library user sees it: a tiny benchmark against the simulator over
 * loopback, read back, compared with a second run and gated, all through `src/index.ts` (what
 * `import … from 'goodput'` resolves to). The entry is curated: internals stay out of it.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as goodput from '../src/index.js';
import {
  benchmarkConfig,
  compareRuns,
  evaluateThresholds,
  GoodputError,
  loadRuns,
  parseThresholds,
  readRecords,
  readSummary,
  runBenchmark,
  type SimServer,
  startSim,
} from '../src/index.js';

let work: string;
let sim: SimServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-library-'));
  sim = await startSim({ seed: 3 });
});

afterAll(async () => {
  await sim?.close();
  rmSync(work, { recursive: true, force: true });
});

const tiny = (outDir: string) =>
  benchmarkConfig({
    url: sim.url,
    load: { concurrency: 2, requests: 12 },
    workload: { promptTokens: 32 },
    sampling: { maxTokens: 8 },
    serverMetrics: { enabled: false },
    outDir,
  });

describe('goodput as a library', () => {
  it('runs a benchmark on the simulator, reads it back, compares and gates it', async () => {
    const a = await runBenchmark(tiny(join(work, 'a')), { cwd: work, quiet: true });
    const b = await runBenchmark(tiny(join(work, 'b')), { cwd: work, quiet: true });
    expect(a.summary.counts.completed).toBe(12);

    const read = await readSummary(a.dir);
    expect(read.counts).toEqual(a.summary.counts);
    expect(read.latency.ttft.p99).toBe(a.summary.latency.ttft.p99);
    let records = 0;
    for await (const r of readRecords(a.dir)) if (!r.warmup) records++;
    expect(records).toBe(12);

    const report = compareRuns(await loadRuns([a.dir, b.dir]));
    expect(report.comparisons).toHaveLength(1);
    expect(report.comparisons[0]!.deltas.length).toBeGreaterThan(0);

    const pass = evaluateThresholds(parseThresholds(['error_rate<0.01', 'p99(ttft)<60000']), read);
    expect(pass.passed).toBe(true);
    const fail = evaluateThresholds(parseThresholds(['p99(ttft)<0.001']), read);
    expect(fail.passed).toBe(false);
  });

  it('refuses a directory that holds no run with a GoodputError', async () => {
    await expect(readSummary(join(work, 'nothing-here'))).rejects.toBeInstanceOf(GoodputError);
  });

  it('exports a curated API: the documented entry points, not the internals', () => {
    const names = Object.keys(goodput);
    for (const name of ['runBenchmark', 'readSummary', 'compareRuns', 'evaluateThresholds', 'startSim']) {
      expect(names).toContain(name);
    }
    for (const internal of ['Engine', 'KvCache', 'runLoad', 'parseArgv', 'JsonlWriter', 'SseParser']) {
      expect(names).not.toContain(internal);
    }
    expect(names.length).toBeLessThan(60);
  });
});
