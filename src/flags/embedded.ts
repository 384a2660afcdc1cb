/**
 * The flags of the embedded engine (no --url): its profile or a calibrated profile file,
 * virtual time, speculative decoding and reasoning mode, each refused with --url. The simulator
 * loads only when one of them is given.
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { GoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/config.js';
import type { BenchmarkFlags } from './options/index.js';

const usage = (message: string, hint: string) => new GoodputError('E_USAGE', message, hint);

/** Text of a flag, an empty one as absent. */
const text = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

/** --sim-profile, --sim-profile-file, --time virtual and --speculative-config into `config.sim`. */
export async function applyEmbeddedEngineFlags(
  o: BenchmarkFlags,
  config: BenchmarkConfig,
  cwd: string,
): Promise<void> {
  const simProfile = text(o.simProfile);
  if (simProfile !== undefined) {
    if (config.url !== undefined) {
      throw usage(
        '--sim-profile applies to the embedded engine only',
        'drop --url to run the embedded engine, or drop --sim-profile',
      );
    }
    try {
      (await import('../sim/index.js')).resolveProfile(simProfile);
    } catch (e) {
      const err = e as GoodputError;
      throw usage(`--sim-profile: ${err.message}`, err.hint.replace('--profile', '--sim-profile'));
    }
    config.sim = { ...config.sim, profile: simProfile };
  }
  const simProfileFile = text(o.simProfileFile);
  if (simProfileFile !== undefined) {
    if (config.url !== undefined)
      throw usage(
        '--sim-profile-file applies to the embedded engine only',
        'drop --url to run the embedded engine, or drop --sim-profile-file',
      );
    const { loadProfileFile } = await import('../sim/index.js');
    const profile = await loadProfileFile(resolvePath(cwd, simProfileFile)).catch((e: GoodputError) => {
      throw usage(`--sim-profile-file: ${e.message}`, e.hint.replace('--profile-file', '--sim-profile-file'));
    });
    config.sim = { ...config.sim, resolvedProfile: profile };
  }
  if (o.time === 'virtual') {
    if (config.url !== undefined) {
      throw usage(
        '--time virtual applies to the embedded engine only',
        'drop --url to simulate, or drop --time virtual to measure the server',
      );
    }
    if (config.serverMetrics.prometheus !== undefined || config.serverMetrics.replicas !== undefined) {
      throw usage(
        `${config.serverMetrics.prometheus ? '--metrics-prometheus' : '--metrics-url for several replicas'} with --time virtual: the simulated engine's own counters are the server block`,
        'drop it, or run in live time against the servers it names',
      );
    }
    if (config.gpuMetricsUrl !== undefined) {
      throw usage(
        '--gpu-metrics-url with --time virtual: a simulated clock has no GPU to read',
        'drop --gpu-metrics-url, or run in live time against the server on that GPU',
      );
    }
    config.sim = { ...config.sim, timeMode: 'virtual' };
  }
  const speculativeConfig = text(o.speculativeConfig);
  if (speculativeConfig !== undefined) {
    if (config.url !== undefined) {
      throw usage(
        '--speculative-config applies to the embedded engine only',
        "drop --url to simulate it; a server that runs speculative decoding reports it in its own metrics (the run's server block)",
      );
    }
    (await import('../sim/index.js')).parseSpeculativeConfig(speculativeConfig); // E_SIM (exit 2) naming the fix
    config.sim = { ...config.sim, speculativeConfig };
  }
}

/** --reasoning-tokens and --reasoning-field: the embedded engine's reasoning mode. */
export async function applyReasoningFlags(o: BenchmarkFlags, config: BenchmarkConfig): Promise<void> {
  const reasoningTokens = text(o.reasoningTokens);
  const reasoningField = o.reasoningField;
  if (reasoningTokens !== undefined || reasoningField !== undefined) {
    if (config.url !== undefined) {
      throw usage(
        '--reasoning-tokens and --reasoning-field apply to the embedded engine only',
        'drop --url to run the embedded engine in reasoning mode, or drop them to measure the server',
      );
    }
    if (reasoningTokens === undefined) {
      throw usage(
        '--reasoning-field needs --reasoning-tokens',
        'e.g. --reasoning-tokens 200 --reasoning-field reasoning',
      );
    }
    const { parseReasoningField, parseReasoningLength } = await import('../sim/index.js');
    config.sim = {
      ...config.sim,
      reasoning: {
        length: parseReasoningLength(reasoningTokens),
        field: parseReasoningField(reasoningField ?? 'reasoning_content'),
      },
    };
  }
}
