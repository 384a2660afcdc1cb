/**
 * An experiment folder made the way `goodput experiment` makes one, for the analysis and ADR
 * tests: real virtual-time runs of the embedded engine (one result folder per run, under
 * runs/<slug>/run-<k>/) and an experiment.json in the contract's shape (src/types/experiment.ts).
 * Runs are interleaved (ABC ABC …); repeat k of every configuration uses seed k + 1, so two
 * identical configurations give identical runs.
 */

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchmarkConfigInput, benchmarkConfig, runBenchmark } from '../../src/runner/index.js';
import type { ExperimentConfiguration, ExperimentFile, ServeParamValue } from '../../src/types.js';

export interface FixtureConfiguration {
  name: string;
  params?: Record<string, ServeParamValue>;
  /** The embedded engine's flags as experiment.json records them. */
  engineArgs?: string[];
  /** What differs in this configuration's runs (a sim profile, engine options…). */
  config?: BenchmarkConfigInput;
  /** A configuration whose server never started: no run. */
  failure?: { code: string; message: string; hint?: string };
}

export interface FixtureOptions {
  name?: string;
  runs?: number;
  /** The measurement every configuration shares (virtual time is added). */
  common: BenchmarkConfigInput;
  configurations: FixtureConfiguration[];
  plan?: Record<string, unknown>;
}

const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Runs every configuration `runs` times in virtual time into `dir` and writes experiment.json. */
export async function writeExperimentFixture(dir: string, opts: FixtureOptions): Promise<ExperimentFile> {
  const runsPer = opts.runs ?? 3;
  const now = new Date().toISOString();
  const configurations: ExperimentConfiguration[] = opts.configurations.map((c, i) => ({
    name: c.name,
    slug: slugOf(c.name),
    baseline: i === 0,
    params: c.params ?? {},
    target: 'embedded',
    ...(c.engineArgs ? { engineArgs: c.engineArgs } : {}),
    status: c.failure ? 'failed' : 'ok',
    ...(c.failure ? { failure: c.failure } : {}),
    runs: [],
  }));
  let order = 0;
  for (let k = 0; k < runsPer; k++) {
    for (const [i, c] of opts.configurations.entries()) {
      const conf = configurations[i] as ExperimentConfiguration;
      if (c.failure) continue;
      const rel = join('runs', conf.slug, `run-${k + 1}`);
      const startedAt = new Date().toISOString();
      const common = opts.common;
      const own = c.config ?? {};
      await runBenchmark(
        benchmarkConfig({
          ...common,
          ...own,
          sim: { ...common.sim, ...own.sim, timeMode: 'virtual' },
          seed: k + 1,
          outDir: join(dir, rel),
        }),
        { cwd: dir, quiet: true },
      );
      conf.runs.push({
        repeat: k,
        order: order++,
        dir: rel,
        status: 'ok',
        startedAt,
        endedAt: new Date().toISOString(),
      });
    }
  }
  const file: ExperimentFile = {
    schemaVersion: 1,
    kind: 'goodput-experiment',
    name: opts.name ?? 'fixture',
    createdAt: now,
    updatedAt: new Date().toISOString(),
    planSha256: '0'.repeat(64),
    plan: opts.plan ?? {},
    order: { mode: 'interleaved' },
    runsPerConfiguration: runsPer,
    restart: 'per-config',
    virtual: true,
    configurations,
    status: 'done',
  };
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'experiment.json'), `${JSON.stringify(file, null, 2)}\n`);
  return file;
}
