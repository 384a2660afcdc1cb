/**
 * The experiment plan (YAML, read bounded, validated with zod; every error names the field
 * path): configurations (a list and/or a grid), how each is served (`url:`, a `serve:`
 * template, or the embedded engine's flags), repeats, order, cooldown, restart and cache reset,
 * and the `run:` flags every configuration is measured with. `planFromText` turns it into an
 * ExperimentSpec less the measurement (the command resolves the run flags) and the run argv.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { basename, extname, resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import { describeIssues, parseDuration } from '../config/index.js';
import { GoodputError } from '../errors.js';
import type { ServeParamValue } from '../types.js';
import { parseYamlBounded } from '../util/index.js';
import { objectiveOf } from './analysis/index.js';
import { embeddedConfiguration } from './embedded.js';
import { placeholders, splitCommand } from './template.js';
import type { CacheResetSpec, ConfigurationSpec, ExperimentSpec, ServeTemplate } from './types.js';

const Param = z.union([z.string(), z.number(), z.boolean()]);
const Duration = z.union([z.string(), z.literal(0)]);
const Command = z.union([z.string().min(1), z.array(z.string()).min(1)]);
const ServeObject = z.strictObject({
  command: Command,
  env: z.record(z.string(), Param).optional(),
  cwd: z.string().optional(),
  health: z.string().optional(),
  url: z.string().optional(),
  startup_timeout: Duration.optional(),
  stop_signal: z.enum(['SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2', 'SIGKILL']).optional(),
  grace: Duration.optional(),
});
const Serve = z.union([z.string().min(1), z.array(z.string()).min(1), ServeObject]);
const Configuration = z.strictObject({
  name: z.string().min(1).max(80).optional(),
  params: z.record(z.string(), Param).optional(),
  url: z.string().min(1).optional(),
  serve: Serve.optional(),
});
const RunFlags = z.union([
  z.string(),
  z.array(z.string()),
  z.record(z.string(), z.union([Param, z.array(Param)])),
]);
export const PlanSchema = z.strictObject({
  name: z.string().min(1).max(120).optional(),
  output: z.string().min(1).optional(),
  configurations: z.array(Configuration).max(1000).optional(),
  grid: z.record(z.string(), z.array(Param).min(1)).optional(),
  baseline: z.string().min(1).optional(),
  serve: Serve.optional(),
  runs: z.number().int().min(1).max(1000).optional(),
  order: z.enum(['interleaved', 'random-blocks']).optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  cooldown: Duration.optional(),
  restart: z.enum(['per-run', 'per-config']).optional(),
  time: z.enum(['virtual', 'live']).optional(),
  profile: z.string().optional(),
  cache_reset: z
    .union([z.enum(['auto', 'vllm', 'sglang', 'llama.cpp', 'none']), z.strictObject({ command: Command })])
    .optional(),
  run: RunFlags.optional(),
  /** What the winner is chosen on (the analysis: experiment/analysis/winner.ts): a catalogue id or { metric, guard }. */
  objective: z
    .union([
      z.string().min(1),
      z.strictObject({ metric: z.string().min(1), guard: z.array(z.string()).optional() }),
    ])
    .optional(),
});
export type Plan = z.infer<typeof PlanSchema>;

/** What a plan gives: the spec (the measurement still to resolve from `runArgv`) and the run flags. */
export interface PlannedExperiment {
  spec: Omit<ExperimentSpec, 'measurement'>;
  /** The plan's `run:` flags as argv (`--concurrency 8 …`). */
  runArgv: string[];
}

/** Flag values that change the plan (given on the command line, they win over the plan's). */
export type PlanOverrides = Partial<
  Pick<
    Plan,
    'runs' | 'order' | 'seed' | 'restart' | 'time' | 'baseline' | 'output' | 'grid' | 'serve' | 'cache_reset'
  >
> & {
  cooldownMs?: number;
  /** Run flags given on the command line: hashed with the plan (a resume must measure the same way). */
  runFlags?: Record<string, unknown>;
};

const DEFAULT_RUNS = 3;
const DEFAULT_STARTUP_MS = 10 * 60_000;
const DEFAULT_GRACE_MS = 30_000;

function configError(message: string, hint: string): GoodputError {
  return new GoodputError('E_CONFIG', message, hint);
}

function duration(value: string | 0 | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (value === 0) return 0;
  try {
    return parseDuration(value, field);
  } catch (e) {
    const err = e as GoodputError;
    throw configError(err.message, err.hint);
  }
}

function command(value: string | string[], field: string): string[] {
  return typeof value === 'string' ? splitCommand(value, field) : value;
}

/** A serve template from the plan's `serve:` (string, argv list or object), paths from the plan's folder. */
function serveTemplate(value: z.infer<typeof Serve>, field: string, baseDir: string): ServeTemplate {
  const o = typeof value === 'string' || Array.isArray(value) ? { command: value } : value;
  const argv = command(o.command, `${field}.command`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env ?? {})) env[k] = String(v);
  return {
    argv,
    env,
    cwd: resolvePath(baseDir, o.cwd ?? '.'),
    health: o.health ?? 'http://127.0.0.1:{port}/health',
    url: o.url ?? 'http://127.0.0.1:{port}',
    startupTimeoutMs: duration(o.startup_timeout, `${field}.startup_timeout`, DEFAULT_STARTUP_MS),
    stopSignal: o.stop_signal ?? 'SIGTERM',
    graceMs: duration(o.grace, `${field}.grace`, DEFAULT_GRACE_MS),
  };
}

/** Every `{name}` of the template must be `port` or a parameter of the configuration. */
function checkPlaceholders(t: ServeTemplate, params: Record<string, ServeParamValue>, where: string): void {
  const texts = [...t.argv, t.health, t.url];
  for (const name of texts.flatMap(placeholders)) {
    if (name !== 'port' && params[name] === undefined) {
      throw configError(
        `${where}: the serve command uses {${name}}, which this configuration does not set`,
        `add ${name} to its params: (or to grid:), or write {{${name}}} for literal braces`,
      );
    }
  }
}

/** The cartesian product of a grid, in key order (the last key varies fastest). */
export function gridPoints(grid: Record<string, ServeParamValue[]>): Array<Record<string, ServeParamValue>> {
  let points: Array<Record<string, ServeParamValue>> = [{}];
  for (const [key, values] of Object.entries(grid)) {
    points = points.flatMap((p) => values.map((v) => ({ ...p, [key]: v })));
  }
  return points;
}

/**
 * The run flags as argv: a string (split as a shell would), a list of such strings, or flag →
 * value. In the last form `classes:` is a config file's list of traffic classes (each a
 * `--class` value), given as `--class` flags.
 */
export function runFlagsArgv(run: Plan['run']): string[] {
  if (run === undefined) return [];
  if (typeof run === 'string') return run.trim() === '' ? [] : splitCommand(run, 'run');
  if (Array.isArray(run)) return run.flatMap((s, i) => (s.trim() === '' ? [] : splitCommand(s, `run[${i}]`)));
  const argv: string[] = [];
  for (const [key, value] of Object.entries(run)) {
    const flag = key === 'classes' ? '--class' : key.startsWith('-') ? key : `--${key}`;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v === true) argv.push(flag);
      else if (v === false) argv.push(`--no-${flag.replace(/^-+/, '')}`);
      else argv.push(flag, String(v));
    }
  }
  return argv;
}

/** Parses the YAML text of a plan; throws E_CONFIG naming `file` and the field path. */
export function parsePlanText(text: string, file: string): Plan {
  const parsed = parseYamlBounded(text);
  if (!parsed.ok) throw configError(`${file}: ${parsed.problem}`, 'fix the plan file (YAML)');
  const doc = parsed.documents[0];
  if (parsed.documents.length !== 1 || doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw configError(
      `${file}: a plan is one YAML mapping`,
      'start the plan with name:, configurations: or grid:',
    );
  const configs = (doc as { configurations?: unknown }).configurations;
  if (Array.isArray(configs)) {
    const i = configs.findIndex((c) => c && typeof c === 'object' && 'run' in c);
    if (i >= 0)
      throw configError(
        `${file}: configurations[${i}].run: the workload and load are the experiment's, the same for every configuration`,
        'move the flags to the plan-level run: section; to compare workloads, run one experiment per workload',
      );
  }
  const result = PlanSchema.safeParse(doc);
  if (!result.success) {
    const lines = describeIssues(result.error.issues);
    throw configError(
      `${file}: ${lines.join('; ')}`,
      'fix the plan; `goodput experiment --help` describes its fields',
    );
  }
  return result.data;
}

/** A configuration as the plan names it, before its target is resolved. */
interface PlannedEntry {
  name: string;
  params: Record<string, ServeParamValue>;
  url?: string;
  serve?: ServeTemplate;
  /** Where the plan gives it, for errors: `configurations[1]`, `grid point 3`. */
  where: string;
}

/** The list's configurations, then the grid's points named Exp-k after them; names unique, at least one. */
function configurationEntries(p: Plan, file: string, baseDir: string): PlannedEntry[] {
  const entries: PlannedEntry[] = [];
  (p.configurations ?? []).forEach((c, i) => {
    const where = `configurations[${i}]`;
    if (c.url !== undefined && c.serve !== undefined)
      throw configError(
        `${where}: url: and serve: both given`,
        'a configuration is either a running server (url:) or one goodput starts (serve:)',
      );
    entries.push({
      name: c.name ?? (i === 0 ? 'Baseline' : `Exp-${i}`),
      params: c.params ?? {},
      ...(c.url !== undefined ? { url: c.url } : {}),
      ...(c.serve !== undefined ? { serve: serveTemplate(c.serve, `${where}.serve`, baseDir) } : {}),
      where,
    });
  });
  if (p.grid !== undefined) {
    const taken = new Set(entries.map((e) => e.name));
    let k = 0;
    gridPoints(p.grid).forEach((params, i) => {
      let n: string;
      do n = `Exp-${++k}`;
      while (taken.has(n));
      taken.add(n);
      entries.push({ name: n, params, where: `grid point ${i + 1}` });
    });
  }
  if (entries.length === 0)
    throw configError(
      `${file}: no configuration`,
      'add configurations: (a list) or grid: (parameter: [values…])',
    );
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name))
      throw configError(
        `${e.where}: the name ${e.name} is used twice`,
        'give each configuration its own name:',
      );
    names.add(e.name);
  }
  return entries;
}

/**
 * An experiment from a parsed plan; see the module comment. `baseDir` resolves relative paths
 * (output, serve cwd), `text` is hashed (resume refuses a changed plan).
 */
export function planExperiment(
  plan: Plan,
  opts: { text: string; file: string; baseDir: string; cwd: string; overrides?: PlanOverrides },
): PlannedExperiment {
  const o = opts.overrides ?? {};
  const p: Plan = {
    ...plan,
    ...Object.fromEntries(
      Object.entries(o).filter(([k, v]) => k !== 'cooldownMs' && k !== 'runFlags' && v !== undefined),
    ),
  };
  objectiveOf(p); // a mistaken objective: is refused now, not after every run
  const name = p.name ?? basename(opts.file, extname(opts.file));
  const shared = p.serve !== undefined ? serveTemplate(p.serve, 'serve', opts.baseDir) : undefined;
  const entries = configurationEntries(p, opts.file, opts.baseDir);
  const names = new Set(entries.map((e) => e.name));
  const configurations: ConfigurationSpec[] = entries.map((e) => {
    if (e.url !== undefined) return { name: e.name, params: e.params, target: { kind: 'url', url: e.url } };
    const serve = e.serve ?? shared;
    if (serve) {
      checkPlaceholders(serve, e.params, e.where);
      return { name: e.name, params: e.params, target: { kind: 'serve', serve } };
    }
    return embeddedConfiguration(e.name, e.params, {
      where: e.where,
      ...(p.profile !== undefined ? { profile: p.profile } : {}),
    });
  });
  const allEmbedded = configurations.every((c) => c.target.kind === 'embedded');
  const time = p.time ?? (allEmbedded ? 'virtual' : 'live');
  if (time === 'virtual' && !allEmbedded)
    throw configError(
      `${opts.file}: time: virtual needs every configuration on the embedded engine`,
      'drop time: virtual, or drop url:/serve: (virtual time simulates the engine)',
    );
  if (p.baseline !== undefined && !names.has(p.baseline))
    throw configError(
      `baseline: ${p.baseline} is not a configuration`,
      `name one of ${[...names].join(', ')}`,
    );
  const order = p.order ?? 'interleaved';
  const cacheReset: CacheResetSpec =
    p.cache_reset === undefined
      ? { kind: 'auto' }
      : typeof p.cache_reset === 'string'
        ? ({ kind: p.cache_reset } as CacheResetSpec)
        : { kind: 'command', argv: command(p.cache_reset.command, 'cache_reset.command') };
  if (cacheReset.kind === 'command') {
    const unknown = cacheReset.argv.flatMap(placeholders).find((n) => n !== 'url' && n !== 'port');
    if (unknown !== undefined)
      throw configError(
        `cache_reset.command: {${unknown}} has no value`,
        'the reset command may use {url} (the server) and {port}',
      );
  }
  const hash = createHash('sha256').update(opts.text);
  if (Object.keys(o).length > 0) hash.update(`\n${JSON.stringify(o)}`);
  return {
    spec: {
      name,
      dir: resolvePath(
        p.output === o.output ? opts.cwd : opts.baseDir,
        p.output ?? `goodput-experiments/${name.replace(/[^A-Za-z0-9._-]+/g, '-')}`,
      ),
      configurations,
      ...(p.baseline !== undefined ? { baseline: p.baseline } : {}),
      runs: p.runs ?? DEFAULT_RUNS,
      order:
        order === 'random-blocks'
          ? { mode: order, seed: p.seed ?? Math.floor(Math.random() * 2 ** 31) }
          : { mode: order },
      cooldownMs: o.cooldownMs ?? duration(p.cooldown, 'cooldown', 0),
      restart: p.restart ?? 'per-config',
      virtual: time === 'virtual',
      cacheReset,
      plan,
      planSha256: hash.digest('hex'),
    },
    runArgv: runFlagsArgv(p.run),
  };
}
