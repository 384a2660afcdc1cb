/**
 * `experiment --search`: a parameter space of the embedded engine explored in virtual time
 * (grid, successive halving, Bayesian optimisation with a small Gaussian process) for the
 * configuration with the best goodput or capacity at SLO; the top few then go to the
 * experiment, against the real server when it has a `serve:` template, and the disagreements
 * between simulation and measurement are reported.
 *
 * @module
 */

export {
  checkSpace,
  createVirtualEvaluator,
  type EvaluatorOptions,
  fullBudgetOf,
  OBJECTIVES,
  type PointFigures,
  type SearchObjective,
} from './evaluate.js';
export { cholesky, expectedImprovement, fitGaussianProcess, type GaussianProcess } from './gp.js';
export { renderDisagreements, renderSearch } from './render.js';
export { runSearch, SEARCH_FILE, type SearchFile, type SearchOptions } from './search.js';
export {
  encodePoint,
  pointLabel,
  pointParams,
  type SearchDimension,
  type SearchSpace,
  spaceFromGrid,
} from './space.js';
export {
  bayesianSearch,
  byObjective,
  type Evaluate,
  type Evaluation,
  gridSearch,
  halvingBudgets,
  ranking,
  runStrategy,
  STRATEGIES,
  type StrategyName,
  type StrategyOptions,
  successiveHalving,
} from './strategies.js';
export { type Disagreement, disagreements, VERIFIED_METRICS, type VerifiedMetric } from './verify.js';
