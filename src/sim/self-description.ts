/**
 * What the embedded engine says of itself in virtual time, where no socket is opened: the same
 * answers its live server gives (`/v1/models` owned by goodput-sim, `/version`, the labels of
 * `vllm:cache_config_info`), built from the profile and flags the virtual run simulates.
 *
 * @module
 */

import type { ServerSelfDescription } from '../types.js';
import { toolVersion } from '../util/index.js';
import { type EngineOptions, resolveEngineConfig } from './engine-config.js';
import { cacheConfigLabels } from './metrics.js';
import type { SimProfile } from './profiles.js';

/** The virtual engine's self-description, in the shape `describeServer` reads from a live one. */
export function virtualSelfDescription(profile: SimProfile, engine?: EngineOptions): ServerSelfDescription {
  const config = resolveEngineConfig(profile, engine);
  const settings: Record<string, string> = { profile: profile.id };
  for (const [k, v] of Object.entries(cacheConfigLabels(config))) settings[`cache_config.${k}`] = v;
  return {
    engine: 'goodput-sim',
    version: toolVersion(),
    // The base model, then its LoRA adapters, as /v1/models lists them.
    models: [profile.model.servedName, ...config.loraModules.filter((a) => a !== profile.model.servedName)],
    settings,
    sources: { embedded: 'ok (virtual time)' },
  };
}
