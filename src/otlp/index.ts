/**
 * OpenTelemetry export (OTLP/HTTP protobuf) of the requests of `run` and `watch`: GenAI
 * semantic-convention metrics and, optionally, one span per request. A sink; never a failure.
 *
 * @module
 */

export { type OtlpConfig, parseKeyValueList, resolveOtlpConfig } from './config.js';
export {
  describeOtlpOutcome,
  GEN_AI_METRICS,
  OtlpExport,
  type OtlpOutcome,
  type OtlpSource,
} from './export.js';
