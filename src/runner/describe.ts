/**
 * What the run's target says of itself, asked once before the load (never during it): a live
 * server through `describeServer` (its `/version`, `vllm:cache_config_info`, `/get_server_info`,
 * `/props`, `/v1/models`, and the GPUs of `--gpu-metrics-url`), bounded in time and never a
 * failure of the run, with the run's key and secret header values redacted; the virtual engine
 * from the profile and flags it simulates.
 *
 * @module
 */

import { describeServer, redactDescription } from '../server-metrics/index.js';
import type { ServerSelfDescription } from '../types.js';
import type { BenchmarkConfig } from './config.js';
import { embeddedEngineOptions, type PreparedTarget } from './target.js';

/** For all the endpoints together (asked one at a time), bodies included. */
export const DESCRIBE_TIMEOUT_MS = 2_000;

/** The target's self-description; see the module comment. Never rejects. */
export async function describeRunTarget(
  config: Pick<BenchmarkConfig, 'apiKey' | 'headers' | 'secrets' | 'gpuMetricsUrl' | 'sim'>,
  target: Pick<PreparedTarget, 'baseUrl' | 'virtualProfile'>,
  signal?: AbortSignal,
): Promise<ServerSelfDescription> {
  if (target.virtualProfile) {
    try {
      return (await import('../sim/index.js')).virtualSelfDescription(
        target.virtualProfile,
        embeddedEngineOptions(config.sim),
      );
    } catch (e) {
      // An engine configuration the engine refuses: the transport says so, as the run's error.
      return { engine: 'unknown', sources: { describe: (e as Error).name } };
    }
  }
  const headers: Record<string, string> = { ...config.headers };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  try {
    const described = await describeServer(target.baseUrl, {
      headers,
      timeoutMs: DESCRIBE_TIMEOUT_MS,
      ...(config.gpuMetricsUrl !== undefined ? { gpuMetricsUrl: config.gpuMetricsUrl } : {}),
      ...(signal ? { signal } : {}),
    });
    return redactDescription(described, [config.apiKey, ...(config.secrets ?? [])]);
  } catch (e) {
    return { engine: 'unknown', sources: { describe: (e as Error).name } };
  }
}
