/**
 * Search strategies over the points of a space, each asking an evaluator for a point's
 * objective (higher is better; NaN for a point that could not be measured) at a budget (the
 * requests of its run):
 * - grid: every point at the full budget;
 * - successive halving: every point at a small budget, the best 1/η again at η times the
 *   budget, … until the full budget (short runs for all, longer ones for the promising);
 * - Bayesian optimisation: a seeded random start, then the point of highest expected
 *   improvement under a Gaussian process of the points measured so far, until the budget of
 *   evaluations; every run at the full budget.
 * The strategies know nothing of engines or runs; pure apart from the evaluator they call.
 *
 * @module
 */

import { seededRandom } from '../../util/index.js';
import { expectedImprovement, fitGaussianProcess } from './gp.js';
import { encodePoint, type SearchSpace } from './space.js';

/** One evaluation: which point, at what budget, in which round, and its objective. */
export interface Evaluation {
  index: number;
  budget: number;
  /** 0-based round (successive halving's rung; 0 for grid; the order of evaluation for Bayes). */
  round: number;
  objective: number;
}

export type Evaluate = (index: number, budget: number, round: number) => Promise<number>;

export type StrategyName = 'grid' | 'halving' | 'bayes';
export const STRATEGIES: readonly StrategyName[] = ['grid', 'halving', 'bayes'];

export interface StrategyOptions {
  /** Requests of a full run. */
  fullBudget: number;
  /** Halving: the first round's requests [fullBudget ÷ η^(rounds−1), at least minBudget]. */
  minBudget?: number;
  /** Halving: keep 1/η of the points each round [2]. */
  eta?: number;
  /** Bayes: points to evaluate in all [min(size, 20)]. */
  evaluations?: number;
  /** Bayes: random points before the model leads [min(max(d + 1, 4), evaluations)]. */
  initial?: number;
  seed?: number;
  signal?: AbortSignal;
}

/** Highest first; NaN (unmeasured) last. */
export const byObjective = (a: Evaluation, b: Evaluation): number =>
  (Number.isNaN(b.objective) ? Number.NEGATIVE_INFINITY : b.objective) -
  (Number.isNaN(a.objective) ? Number.NEGATIVE_INFINITY : a.objective);

async function evaluateAll(
  indices: readonly number[],
  budget: number,
  round: number,
  evaluate: Evaluate,
  out: Evaluation[],
  signal?: AbortSignal,
): Promise<Evaluation[]> {
  const done: Evaluation[] = [];
  for (const index of indices) {
    if (signal?.aborted) break;
    const e = { index, budget, round, objective: await evaluate(index, budget, round) };
    out.push(e);
    done.push(e);
  }
  return done;
}

export async function gridSearch(
  space: SearchSpace,
  evaluate: Evaluate,
  opts: StrategyOptions,
): Promise<Evaluation[]> {
  const out: Evaluation[] = [];
  await evaluateAll(
    Array.from({ length: space.size }, (_, i) => i),
    opts.fullBudget,
    0,
    evaluate,
    out,
    opts.signal,
  );
  return out;
}

/** The budgets of successive halving's rounds, smallest first, ending at the full budget. */
export function halvingBudgets(size: number, fullBudget: number, eta = 2, minBudget = 8): number[] {
  const rounds = Math.max(1, Math.ceil(Math.log(Math.max(size, 1)) / Math.log(eta)) + 1);
  const budgets: number[] = [];
  for (let r = rounds - 1; r >= 0; r--) budgets.push(Math.max(minBudget, Math.round(fullBudget / eta ** r)));
  // Rounds whose budget did not grow (the floor) are merged into one.
  return budgets
    .filter((b, i) => i === budgets.length - 1 || b < budgets[i + 1]!)
    .map((b) => Math.min(b, fullBudget));
}

export async function successiveHalving(
  space: SearchSpace,
  evaluate: Evaluate,
  opts: StrategyOptions,
): Promise<Evaluation[]> {
  const eta = opts.eta ?? 2;
  const budgets = halvingBudgets(space.size, opts.fullBudget, eta, opts.minBudget ?? 8);
  const out: Evaluation[] = [];
  let alive = Array.from({ length: space.size }, (_, i) => i);
  for (let round = 0; round < budgets.length && alive.length > 0; round++) {
    const done = await evaluateAll(alive, budgets[round]!, round, evaluate, out, opts.signal);
    if (opts.signal?.aborted || round === budgets.length - 1) break;
    alive = [...done]
      .filter((e) => !Number.isNaN(e.objective))
      .sort(byObjective)
      .slice(0, Math.ceil(alive.length / eta))
      .map((e) => e.index);
    if (alive.length === 1) {
      // One left: measure it at the full budget and stop.
      await evaluateAll(alive, opts.fullBudget, budgets.length - 1, evaluate, out, opts.signal);
      break;
    }
  }
  return out;
}

/** Most candidate points the acquisition looks at per step (a random subset of bigger spaces). */
const MAX_CANDIDATES = 4096;

export async function bayesianSearch(
  space: SearchSpace,
  evaluate: Evaluate,
  opts: StrategyOptions,
): Promise<Evaluation[]> {
  const total = Math.min(space.size, opts.evaluations ?? 20);
  const initial = Math.min(total, opts.initial ?? Math.max(space.dimensions.length + 1, 4));
  const random = seededRandom(opts.seed ?? 1);
  const out: Evaluation[] = [];
  const seen = new Set<number>();
  const pickUnseen = (): number => {
    for (;;) {
      const i = Math.floor(random() * space.size);
      if (!seen.has(i)) return i;
    }
  };
  while (out.length < total && !opts.signal?.aborted) {
    let next: number;
    const measured = out.filter((e) => !Number.isNaN(e.objective));
    if (out.length < initial || measured.length < 2) next = pickUnseen();
    else {
      const gp = fitGaussianProcess(
        measured.map((e) => encodePoint(space, e.index)),
        measured.map((e) => e.objective),
      );
      const best = Math.max(...measured.map((e) => e.objective));
      const candidates =
        space.size - seen.size <= MAX_CANDIDATES
          ? Array.from({ length: space.size }, (_, i) => i).filter((i) => !seen.has(i))
          : Array.from({ length: MAX_CANDIDATES }, pickUnseen);
      next = candidates[0]!;
      let bestEi = Number.NEGATIVE_INFINITY;
      for (const i of candidates) {
        const ei = expectedImprovement(gp.predict(encodePoint(space, i)), best, 0.01 * Math.abs(best || 1));
        if (ei > bestEi) {
          bestEi = ei;
          next = i;
        }
      }
    }
    seen.add(next);
    await evaluateAll([next], opts.fullBudget, out.length, evaluate, out, opts.signal);
  }
  return out;
}

/** Runs the named strategy. */
export function runStrategy(
  name: StrategyName,
  space: SearchSpace,
  evaluate: Evaluate,
  opts: StrategyOptions,
): Promise<Evaluation[]> {
  if (name === 'grid') return gridSearch(space, evaluate, opts);
  if (name === 'halving') return successiveHalving(space, evaluate, opts);
  return bayesianSearch(space, evaluate, opts);
}

/** Each point's evaluation at its largest budget, best first: the ranking a search ends with. */
export function ranking(evaluations: readonly Evaluation[]): Evaluation[] {
  const last = new Map<number, Evaluation>();
  for (const e of evaluations) {
    const had = last.get(e.index);
    if (!had || e.budget >= had.budget) last.set(e.index, e);
  }
  const maxBudget = Math.max(...evaluations.map((e) => e.budget));
  // Points measured at the full budget rank before those dropped at a smaller one.
  return [...last.values()].sort(
    (a, b) => (b.budget === maxBudget ? 1 : 0) - (a.budget === maxBudget ? 1 : 0) || byObjective(a, b),
  );
}
