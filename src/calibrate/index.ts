/**
 * Calibration of the simulated engine to a real server (`goodput sim calibrate`): measured
 * runs replayed in virtual time, the step-time coefficients fitted by least squares, the error
 * on held-out runs, and the profile that `sim --profile-file` and the embedded engine read.
 *
 * @module
 */

export {
  type Calibration,
  calibrate,
  checkRun,
  coefficientsOf,
  type FitOptions,
  type FitResult,
  fitProfile,
  type HoldoutPlan,
  type RunCheck,
  type StepCoefficients,
  summarizeErrors,
  withCoefficients,
} from './fit.js';
export {
  type LeastSquaresOptions,
  type LeastSquaresResult,
  levenbergMarquardt,
  solveLinear,
} from './least-squares.js';
export { replayRun } from './replay.js';
export {
  type CalibrationReport,
  calibratedProfileFile,
  calibrationReport,
  type ReadableCoefficients,
  readableCoefficients,
  renderCalibration,
} from './report.js';
export {
  type CalibrationRequest,
  type CalibrationRun,
  DEFAULT_MAX_REQUESTS,
  type RunFigures,
  readCalibrationRun,
  readCalibrationRuns,
  runFigures,
} from './runs.js';
