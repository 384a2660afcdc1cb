/**
 * Diagnosis: a short ranked list of findings that line client latency up with the
 * server's series per time slice (queueing, KV pressure, prefill- or decode-bound,
 * client-bound, wasted work, scheduler-bound GPUs, errors), each with its evidence and the knob it points to,
 * named as the engine that served the run names it; and what could not be judged, and why.
 * Pure: records, samples and summary in, findings out.
 *
 * @module
 */
export { type DiagnosisInput, diagnose, renderFindings, runEngine } from './diagnose.js';
export {
  correlation,
  ObservationCollector,
  ObservationColumns,
  observe,
  type RequestObservation,
  type TimeSlice,
  timeSlices,
} from './observations.js';
export {
  clientBoundFinding,
  DECODE_TPOT_RATIO,
  decodeFinding,
  errorsFinding,
  KV_PRESSURE_USAGE,
  kvPressureFinding,
  LATE_SEND_SHARE,
  PREFILL_TTFT_RATIO,
  prefillFinding,
  QUEUE_TTFT_RATIO,
  queueingFinding,
  type SummaryView,
  WASTED_SHARE,
  wastedWorkFinding,
} from './rules.js';
export { serverConnectionsFinding } from './rules-connections.js';
export { GPU_LOW_UTIL_PCT, QUEUE_FULL_SHARE, schedulerBoundFinding } from './rules-gpu.js';
export { REPLICA_IMBALANCE_RATIO, replicaImbalanceFinding } from './rules-replicas.js';
export { type UnmeasuredView, unmeasuredLines } from './unmeasured.js';
