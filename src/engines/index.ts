/**
 * Serving engines as goodput knows them: each engine's tuning knobs in its own words (the
 * advice of the diagnosis), the spellings of its flags (ADR rules), its name in text. One
 * table per engine (profiles.ts); pure, no I/O.
 *
 * @module
 */
export { canonicalFlag, engineOfCommand } from './flags.js';
export {
  type Advice,
  type AdviceKind,
  ENGINE_PROFILES,
  type EngineId,
  type EngineProfile,
  engineAdvice,
  engineLabel,
  engineProfile,
  type KnownEngine,
} from './profiles.js';
