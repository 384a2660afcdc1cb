/**
 * What one run of a configuration is given and what it records of its target: the run's
 * measurement (the experiment's, with the configuration's target, its `class.*` parameters
 * applied to the run's traffic classes, and the repeat's seed), the
 * embedded engine described as servers describe themselves.
 *
 * @module
 */

import type { BenchmarkConfig } from '../runner/index.js';
import type { ServerSelfDescription } from '../types.js';
import { applyClassParams } from './class-params.js';
import type { ConfigurationSpec, ExperimentSpec } from './types.js';

/**
 * The measurement of one run of a configuration. Repeat k of every configuration uses seed
 * `seed + k`: the configurations of a block see the same prompts, and the repeats differ (in
 * virtual time identical seeds would repeat one run exactly, which says nothing of the spread).
 */
export function runConfig(
  spec: ExperimentSpec,
  c: ConfigurationSpec,
  url: string | undefined,
  outDir: string,
  repeat: number,
): BenchmarkConfig {
  const m = spec.measurement;
  const seed = m.seed + repeat;
  const config: BenchmarkConfig = { ...m, seed, sampling: { ...m.sampling, seed }, outDir, force: false };
  const classes = applyClassParams(m.workload.classes, c.params, `configuration ${c.name}`);
  if (classes) config.workload = { ...m.workload, classes };
  if (c.target.kind === 'embedded') {
    delete config.url;
    const sim = {
      ...m.sim,
      // The run's own engine flags (--scheduling-policy, the classes' adapters) under the configuration's.
      engine: { ...m.sim?.engine, ...c.target.engine },
      timeMode: spec.virtual ? ('virtual' as const) : ('live' as const),
    };
    if (c.target.profile !== undefined) sim.profile = c.target.profile;
    if (c.target.engine.speculativeConfig !== undefined) delete sim.speculativeConfig;
    config.sim = sim;
  } else {
    config.url = url!;
    delete config.sim;
  }
  return config;
}

/** What the embedded engine is, in the shape servers describe themselves. */
export function embeddedDescription(
  c: ConfigurationSpec,
  spec: ExperimentSpec,
  version?: string,
): ServerSelfDescription {
  const t = c.target as Extract<ConfigurationSpec['target'], { kind: 'embedded' }>;
  const settings: Record<string, string> = {};
  for (let i = 0; i < t.engineArgs.length; i++) {
    const flag = t.engineArgs[i]!;
    const next = t.engineArgs[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      settings[flag.slice(2)] = next;
      i++;
    } else settings[flag.replace(/^--(no-)?/, '')] = String(!flag.startsWith('--no-'));
  }
  const profile = t.profile ?? spec.measurement.sim?.profile;
  if (profile !== undefined) settings.profile = profile;
  return {
    engine: 'goodput-sim',
    ...(version ? { version } : {}),
    settings,
    sources: { embedded: spec.virtual ? 'ok (virtual time)' : 'ok' },
  };
}
