/**
 * Experiments: configurations of a serving engine (running servers, servers goodput starts from
 * a command template, or the embedded simulated engine) measured with the same workload in
 * repeated, interleaved runs, into an experiment folder (`experiment.json`, `runs/`, `logs/`).
 * `goodput experiment` is in command.ts.
 *
 * @module
 */

export { type CacheResetRecord, resetCache, resetKindFor } from './cache-reset.js';
export { ENGINE_PARAMS, embeddedConfiguration } from './embedded.js';
export { type ExperimentIo, type ExperimentResult, runExperiment } from './execute.js';
export { runOrder, type ScheduledRun } from './order.js';
export { PID_FILE, sweepPidFile } from './pid-file.js';
export {
  gridPoints,
  type Plan,
  type PlannedExperiment,
  type PlanOverrides,
  PlanSchema,
  parsePlanText,
  planExperiment,
  runFlagsArgv,
} from './plan.js';
export { type RunningServer, ServeFailure, startServer } from './serve.js';
export { EXPERIMENT_FILE, readState, slugify } from './state.js';
export { type ConfigurationFigures, configurationFigures, renderExperimentSummary } from './summary.js';
export { splitCommand, substitute } from './template.js';
export type {
  CacheResetSpec,
  ConfigurationSpec,
  ConfigurationTarget,
  ExperimentSpec,
  ServeTemplate,
} from './types.js';
