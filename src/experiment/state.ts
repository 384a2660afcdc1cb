/**
 * experiment.json: the experiment's state, written atomically (temporary file, fsync, rename)
 * after every change, so that whatever kills goodput leaves a whole file that `--resume` can
 * continue from. Also the fresh state of a spec, and the resume's reconciliation (a run that was
 * in flight is redone from an empty folder; every finished run is kept untouched).
 *
 * @module
 */

import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { GoodputError } from '../errors.js';
import type { ExperimentConfiguration, ExperimentFile } from '../types.js';
import { runOrder } from './order.js';
import type { ExperimentSpec } from './types.js';

export const EXPERIMENT_FILE = 'experiment.json';
/** Largest experiment.json read back (thousands of runs fit in well under this). */
const MAX_EXPERIMENT_BYTES = 32 * 1024 * 1024;

/** A name as a folder: lowercase letters, digits and dashes. */
export function slugify(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s === '' ? 'configuration' : s.slice(0, 60);
}

/** Unique slugs for the names, in order (a clash gets -2, -3 …). */
export function uniqueSlugs(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((n) => {
    const base = slugify(n);
    let s = base;
    for (let k = 2; seen.has(s); k++) s = `${base}-${k}`;
    seen.add(s);
    return s;
  });
}

/** The state of a spec before anything ran. */
export function initialState(spec: ExperimentSpec, now = new Date()): ExperimentFile {
  const slugs = uniqueSlugs(spec.configurations.map((c) => c.name));
  const baseline = spec.baseline ?? spec.configurations[0]?.name;
  const configurations: ExperimentConfiguration[] = spec.configurations.map((c, i) => {
    const conf: ExperimentConfiguration = {
      name: c.name,
      slug: slugs[i]!,
      baseline: c.name === baseline,
      params: c.params,
      target: c.target.kind,
      status: 'pending',
      runs: [],
    };
    if (c.target.kind === 'url') conf.url = c.target.url;
    if (c.target.kind === 'embedded') conf.engineArgs = c.target.engineArgs;
    if (c.target.kind === 'serve') conf.log = join('logs', `${slugs[i]}.log`);
    return conf;
  });
  runOrder(spec.configurations.length, spec.runs, spec.order).forEach((slot, order) => {
    const conf = configurations[slot.configuration]!;
    conf.runs.push({
      repeat: slot.repeat,
      order,
      dir: join('runs', conf.slug, `run-${slot.repeat + 1}`),
      status: 'pending',
    });
  });
  const stamp = now.toISOString();
  return {
    schemaVersion: 1,
    kind: 'goodput-experiment',
    name: spec.name,
    createdAt: stamp,
    updatedAt: stamp,
    planSha256: spec.planSha256,
    plan: spec.plan,
    order: spec.order,
    runsPerConfiguration: spec.runs,
    restart: spec.restart,
    virtual: spec.virtual,
    configurations,
    status: 'running',
  };
}

/** Writes experiment.json atomically. */
export function writeState(dir: string, state: ExperimentFile): void {
  state.updatedAt = new Date().toISOString();
  const path = join(dir, EXPERIMENT_FILE);
  const tmp = `${path}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new GoodputError(
      'E_IO',
      `cannot write ${path} (${code}): the experiment is stopped, its servers too`,
      'free disk space or fix the folder’s permissions, then continue with --resume (finished runs are kept)',
    );
  }
}

/** Reads experiment.json back (E_RESULT naming the file when it is not one). */
export function readState(dir: string): ExperimentFile {
  const path = join(dir, EXPERIMENT_FILE);
  if (!existsSync(path))
    throw new GoodputError(
      'E_USAGE',
      `${path} does not exist: nothing to resume`,
      'start the experiment without --resume',
    );
  const text = readFileSync(path, 'utf8');
  let parsed: ExperimentFile;
  try {
    if (text.length > MAX_EXPERIMENT_BYTES) throw new Error('too large');
    parsed = JSON.parse(text) as ExperimentFile;
  } catch (e) {
    throw new GoodputError(
      'E_RESULT',
      `${path} is not readable JSON (${(e as Error).message})`,
      'start the experiment again in a new folder',
    );
  }
  if (
    parsed?.kind !== 'goodput-experiment' ||
    parsed.schemaVersion !== 1 ||
    !Array.isArray(parsed.configurations)
  )
    throw new GoodputError(
      'E_RESULT',
      `${path} is not a goodput experiment (schemaVersion 1)`,
      'point --resume at the folder of a goodput experiment',
    );
  return parsed;
}

/**
 * Prepares a resumed state: every run not finished (status pending: never started, or cut
 * off mid-run) has its folder removed, to be redone; finished runs (ok or failed) are kept as
 * they are. Returns how many runs are left.
 */
export function reconcileForResume(dir: string, state: ExperimentFile): number {
  let left = 0;
  for (const c of state.configurations) {
    for (const r of c.runs) {
      if (r.status !== 'pending') continue;
      left++;
      delete r.startedAt;
      delete r.endedAt;
      delete r.cacheReset;
      rmSync(join(dir, r.dir), { recursive: true, force: true });
    }
    if (c.status !== 'failed') c.status = c.runs.every((r) => r.status !== 'pending') ? c.status : 'pending';
  }
  state.status = 'running';
  return left;
}
