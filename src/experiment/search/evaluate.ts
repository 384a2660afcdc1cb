/**
 * The virtual-time evaluator of a search: one point of the space is an embedded-engine
 * configuration (the experiment's `embeddedConfiguration`: the point's parameters as engine
 * flags), measured by `runBenchmark` in virtual time with the experiment's workload, at a
 * budget of requests, into `<search dir>/<point>/r<budget>/`. Its objective:
 * - `goodput`: requests meeting every SLO per second (the summary's `request_goodput`);
 * - `capacity`: the capacity at SLO of a concurrency sweep (`runSweep`, doubling up to the
 *   measurement's concurrency × 8, bisected), in requests in flight.
 * The same seed for every point, so every configuration sees the same prompts.
 *
 * @module
 */

import { join } from 'node:path';
import { GoodputError } from '../../errors.js';
import { type BenchmarkConfig, runBenchmark } from '../../runner/index.js';
import type { SimProfile } from '../../sim/index.js';
import { doublingConcurrencies, runSweep } from '../../sweep/index.js';
import type { RunSummary, ServeParamValue } from '../../types.js';
import { applyClassParams } from '../class-params.js';
import { embeddedConfiguration } from '../embedded.js';
import { slugify } from '../state.js';
import { pointLabel, pointParams, type SearchSpace } from './space.js';
import type { Evaluate } from './strategies.js';

export type SearchObjective = 'goodput' | 'capacity';
export const OBJECTIVES: readonly SearchObjective[] = ['goodput', 'capacity'];

/** What one evaluation measured (the figures the report and the verification compare). */
export interface PointFigures {
  index: number;
  params: Record<string, ServeParamValue>;
  budget: number;
  objective: number;
  requestGoodput?: number;
  requestThroughput?: number;
  outputThroughput?: number;
  attainment?: number;
  p99TtftMs?: number;
  p99TpotMs?: number;
  /** capacity: requests in flight within the SLO (0: none). */
  capacity?: number;
  /** Result folder (relative to the search folder). */
  dir: string;
  /** Why the point could not be measured (the engine refused its flags). */
  error?: string;
}

export interface EvaluatorOptions {
  measurement: BenchmarkConfig;
  space: SearchSpace;
  /** The search folder (absolute). */
  dir: string;
  objective: SearchObjective;
  /** A calibrated profile (`sim calibrate`); else the measurement's or the configuration's profile. */
  profile?: SimProfile;
  /** capacity: SLO attainment a load must reach [0.9]. */
  minAttainment?: number;
  signal?: AbortSignal;
  /** Called after each evaluation (progress). */
  onPoint?: (p: PointFigures) => void;
}

/** Requests of a full run: the measurement's count [default 200 when it is a duration]. */
export function fullBudgetOf(m: BenchmarkConfig): number {
  return m.load.requests ?? 200;
}

/** Every value of every dimension must be an engine flag the embedded engine takes (E_CONFIG otherwise). */
export function checkSpace(space: SearchSpace): void {
  for (const d of space.dimensions)
    for (const v of d.values) embeddedConfiguration('search', { [d.name]: v }, { where: `grid.${d.name}` });
}

function figuresOf(
  summary: RunSummary,
): Omit<PointFigures, 'index' | 'params' | 'budget' | 'objective' | 'dir'> {
  return {
    requestGoodput: summary.request_goodput,
    requestThroughput: summary.request_throughput,
    outputThroughput: summary.output_throughput,
    attainment: summary.goodput.attainment,
    p99TtftMs: summary.p99_ttft_ms,
    p99TpotMs: summary.p99_tpot_ms,
  };
}

/** The evaluator, and every evaluation's figures (by point and budget). */
export function createVirtualEvaluator(opts: EvaluatorOptions): {
  evaluate: Evaluate;
  figures: PointFigures[];
} {
  const m = opts.measurement;
  const full = fullBudgetOf(m);
  const figures: PointFigures[] = [];
  const configFor = (
    index: number,
    budget: number,
    outDir: string,
    concurrency?: number,
  ): BenchmarkConfig => {
    const params = pointParams(opts.space, index);
    const c = embeddedConfiguration(pointLabel(params), params, {
      ...(typeof m.sim?.profile === 'string' ? { profile: m.sim.profile } : {}),
    });
    if (c.target.kind !== 'embedded') throw new Error('search: not an embedded configuration');
    const load = { ...m.load };
    if (m.load.requests !== undefined) load.requests = budget;
    else if (m.load.durationMs !== undefined) load.durationMs = (m.load.durationMs * budget) / full;
    if (concurrency !== undefined) {
      load.mode = 'closed';
      load.concurrency = concurrency;
      delete load.rate;
    }
    const config: BenchmarkConfig = {
      ...m,
      load,
      outDir,
      force: true,
      serverMetrics: { enabled: false },
      sim: {
        ...m.sim,
        ...(c.target.profile !== undefined ? { profile: c.target.profile } : {}),
        engine: { ...m.sim?.engine, ...c.target.engine },
        timeMode: 'virtual',
        ...(opts.profile ? { resolvedProfile: opts.profile } : {}),
      },
    };
    const classes = applyClassParams(m.workload.classes, params, `search point ${c.name}`);
    if (classes) config.workload = { ...m.workload, classes };
    delete config.url;
    if (c.target.engine.speculativeConfig !== undefined) delete config.sim!.speculativeConfig;
    return config;
  };
  const io = { cwd: opts.dir, quiet: true, ...(opts.signal ? { signal: opts.signal } : {}) };

  const evaluate: Evaluate = async (index, budget) => {
    const params = pointParams(opts.space, index);
    const rel = join(`${index}-${slugify(pointLabel(params))}`, `r${budget}`);
    const outDir = join(opts.dir, rel);
    const f: PointFigures = { index, params, budget, objective: Number.NaN, dir: rel };
    try {
      if (opts.objective === 'goodput') {
        const { summary } = await runBenchmark(configFor(index, budget, outDir), io);
        Object.assign(f, figuresOf(summary), { objective: summary.request_goodput });
      } else {
        const top = Math.max(8, (m.load.concurrency ?? m.load.maxConcurrency ?? 32) * 8);
        const sweep = await runSweep(
          {
            mode: 'concurrency',
            concurrencies: doublingConcurrencies(top),
            minAttainment: opts.minAttainment ?? 0.9,
          },
          async (req) =>
            runBenchmark(
              configFor(index, budget, join(outDir, `c${req.concurrency}-${req.ordinal}`), req.concurrency),
              io,
            ),
          opts.signal ? { signal: opts.signal } : {},
        );
        const cap = sweep.capacity?.load ?? 0;
        Object.assign(f, { capacity: cap, objective: cap });
      }
    } catch (e) {
      // An engine that refuses its flags at start (as vLLM would) fails this point only.
      if (!(e instanceof GoodputError) || e.code !== 'E_SIM') throw e;
      f.error = e.message;
    }
    figures.push(f);
    opts.onPoint?.(f);
    return f.objective;
  };
  return { evaluate, figures };
}
