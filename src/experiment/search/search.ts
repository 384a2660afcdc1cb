/**
 * A search in virtual time: the strategy walks the space, the evaluator measures each point
 * on the embedded engine (calibrated or not), and `search.json` (schemaVersion 1, kind
 * `goodput.search`, written atomically) keeps every evaluation, the ranking and the top few
 * that the experiment then measures for real (or in repeated virtual runs).
 *
 * @module
 */

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchmarkConfig } from '../../runner/index.js';
import { DEFAULT_PROFILE, type SimProfile } from '../../sim/index.js';
import { createVirtualEvaluator, fullBudgetOf, type PointFigures, type SearchObjective } from './evaluate.js';
import type { SearchDimension, SearchSpace } from './space.js';
import { ranking, runStrategy, type StrategyName } from './strategies.js';

export const SEARCH_FILE = 'search.json';

export interface SearchOptions {
  strategy: StrategyName;
  objective: SearchObjective;
  space: SearchSpace;
  measurement: BenchmarkConfig;
  /** The search folder (absolute): search.json and one folder per evaluated point. */
  dir: string;
  profile?: SimProfile;
  /** Bayes: points to evaluate [min(size, 20)]. */
  evaluations?: number;
  /** Halving: keep 1/η per round [2]; first round's requests at least minBudget [8]. */
  eta?: number;
  minBudget?: number;
  /** How many of the best to hand back for verification [3]. */
  top?: number;
  seed?: number;
  minAttainment?: number;
  signal?: AbortSignal;
  onPoint?: (p: PointFigures, done: number) => void;
}

export interface SearchFile {
  schemaVersion: 1;
  kind: 'goodput.search';
  strategy: StrategyName;
  objective: SearchObjective;
  /** The profile the engine ran: a calibrated one's id, or the measurement's. */
  profile: string;
  calibrated: boolean;
  space: SearchDimension[];
  spaceSize: number;
  /** Requests of a full run. */
  fullBudget: number;
  startedAt: string;
  /** Wall time of the whole search, ms, and evaluations per second. */
  wallMs: number;
  evaluationsPerS: number;
  /** Requests simulated in all (Σ budgets). */
  requests: number;
  evaluations: Array<PointFigures & { round: number }>;
  /** Each point at its largest budget, best first. */
  ranking: PointFigures[];
  /** The best `top` points measured at the full budget (what the experiment verifies). */
  top: PointFigures[];
  interrupted: boolean;
}

async function writeAtomically(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`);
  await rename(tmp, path);
}

/** Runs the search and writes search.json; see the module comment. */
export async function runSearch(opts: SearchOptions): Promise<SearchFile> {
  await mkdir(opts.dir, { recursive: true });
  const startedAt = new Date();
  const t0 = performance.now();
  let done = 0;
  const { evaluate, figures } = createVirtualEvaluator({
    measurement: opts.measurement,
    space: opts.space,
    dir: opts.dir,
    objective: opts.objective,
    ...(opts.profile ? { profile: opts.profile } : {}),
    ...(opts.minAttainment !== undefined ? { minAttainment: opts.minAttainment } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onPoint: (p) => opts.onPoint?.(p, ++done),
  });
  const fullBudget = fullBudgetOf(opts.measurement);
  const evaluations = await runStrategy(opts.strategy, opts.space, evaluate, {
    fullBudget,
    ...(opts.eta !== undefined ? { eta: opts.eta } : {}),
    // A run shorter than twice its concurrency is all ramp-up and drain: it ranks nothing.
    minBudget: opts.minBudget ?? Math.max(8, 2 * (opts.measurement.load.concurrency ?? 4)),
    ...(opts.evaluations !== undefined ? { evaluations: opts.evaluations } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const wallMs = performance.now() - t0;
  const figureOf = (index: number, budget: number): PointFigures =>
    figures.find((f) => f.index === index && f.budget === budget)!;
  const ranked = ranking(evaluations).map((e) => figureOf(e.index, e.budget));
  const file: SearchFile = {
    schemaVersion: 1,
    kind: 'goodput.search',
    strategy: opts.strategy,
    objective: opts.objective,
    profile: opts.profile?.id ?? opts.measurement.sim?.profile ?? DEFAULT_PROFILE,
    calibrated: opts.profile?.stepTime !== undefined,
    space: opts.space.dimensions,
    spaceSize: opts.space.size,
    fullBudget,
    startedAt: startedAt.toISOString(),
    wallMs: Math.round(wallMs),
    evaluationsPerS: evaluations.length / (wallMs / 1000),
    requests: evaluations.reduce((s, e) => s + e.budget, 0),
    evaluations: evaluations.map((e) => ({ ...figureOf(e.index, e.budget), round: e.round })),
    ranking: ranked,
    top: ranked.filter((f) => f.budget === fullBudget && !Number.isNaN(f.objective)).slice(0, opts.top ?? 3),
    interrupted: opts.signal?.aborted === true,
  };
  await writeAtomically(join(opts.dir, SEARCH_FILE), file);
  return file;
}
