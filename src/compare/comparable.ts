/**
 * Are two runs comparable? Only when the configuration under test is the only variable:
 * the same sampling parameters, workload and load. Each differing field is named by its path.
 * The run seed (RunMeta.seed) may differ: two seeds are two replicates of the same load.
 *
 * @module
 */

import type { RunMeta } from '../types.js';

/** One field that differs between the baseline and a candidate. */
export interface FieldDiff {
  /** Dotted path, e.g. "sampling.temperature" or "load.concurrency". */
  path: string;
  baseline: unknown;
  candidate: unknown;
}

/** Fields that may differ without changing the load: where a dataset, trace or tokenizer file lives, not what it holds. */
const IGNORED_PATHS = new Set([
  'workload.dataset.path',
  'workload.trace.path',
  'workload.tokenizerFile.path',
  'workload.tokenizerFile.chatTemplate.source',
  // what the server said of itself is compared on its own (serverDescriptionDiffs): a shard
  // whose endpoint timed out does not make its run another target
  'target.selfDescription',
]);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function diffValues(path: string, a: unknown, b: unknown, out: FieldDiff[]): void {
  if (IGNORED_PATHS.has(path)) return;
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) diffValues(`${path}.${key}`, a[key], b[key], out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path, baseline: a, candidate: b });
}

/**
 * The fields of `sampling`, `workload` and `load` whose values differ between two runs
 * (an absent field and an undefined one are equal). Empty when the runs are comparable.
 */
export function comparabilityDiffs(baseline: RunMeta, candidate: RunMeta): FieldDiff[] {
  const out: FieldDiff[] = [];
  for (const section of ['sampling', 'workload', 'load'] as const) {
    diffValues(section, baseline[section], candidate[section], out);
  }
  // `--seed` seeds the prompts and is also sent as the sampling seed. When each run's sampling
  // seed is just its own run seed, the runs are replicates (same shape, other draws), which is
  // exactly what a repeat measurement should be allowed to differ in. A sampling seed chosen
  // apart from the run seed is a real sampling difference and stays refused.
  const replicateSeeds =
    baseline.sampling.seed === baseline.seed && candidate.sampling.seed === candidate.seed;
  return replicateSeeds ? out.filter((d) => d.path !== 'sampling.seed') : out;
}

/**
 * The fields naming what was measured that differ between two runs: the model and the target
 * (base URL, API, embedded engine, its profile and time mode). Runs of several load generators
 * can only be merged when these agree.
 */
export function targetDiffs(baseline: RunMeta, candidate: RunMeta): FieldDiff[] {
  const out: FieldDiff[] = [];
  diffValues('model', baseline.model, candidate.model, out);
  diffValues('target', baseline.target, candidate.target, out);
  return out;
}

/** "sampling.temperature: 0 → 0.7" */
export function describeDiff(d: FieldDiff): string {
  const show = (v: unknown) => (v === undefined ? '(unset)' : JSON.stringify(v));
  return `${d.path}: ${show(d.baseline)} → ${show(d.candidate)}`;
}

/**
 * What the two servers said of themselves that differs (engine, version, models, settings, the
 * GPUs), as `server.*` paths; which endpoints answered is left out. Empty when either run has
 * no description (older summaries, another tool's result): nothing to say, not a difference.
 */
function serverDescriptionDiffs(baseline: RunMeta, candidate: RunMeta): FieldDiff[] {
  const a = baseline.target.selfDescription;
  const b = candidate.target.selfDescription;
  if (!a || !b) return [];
  const out: FieldDiff[] = [];
  const { sources: _a, ...restA } = a;
  const { sources: _b, ...restB } = b;
  diffValues('server', restA, restB, out);
  return out;
}

/** How many differing settings a note lists before it says "and N more". */
const MAX_SERVER_DIFFS = 8;

/**
 * The note compare adds when two runs' servers describe themselves differently (the figures may
 * be two servers', not one configuration's); undefined when they agree or either is silent.
 */
export function serverDescriptionNote(
  baseline: { name: string; summary: { meta: RunMeta } },
  candidate: { name: string; summary: { meta: RunMeta } },
): string | undefined {
  const diffs = serverDescriptionDiffs(baseline.summary.meta, candidate.summary.meta);
  if (diffs.length === 0) return undefined;
  const shown = diffs.slice(0, MAX_SERVER_DIFFS).map(describeDiff);
  const more = diffs.length > shown.length ? `; and ${diffs.length - shown.length} more` : '';
  return `the servers describe themselves differently (${baseline.name} → ${candidate.name}): ${shown.join('; ')}${more}`;
}
