/**
 * The traffic-class flags: `--class` (repeatable; else a config file's `classes:`), each parsed
 * by the workload's parser into BenchmarkWorkload.classes, what a class names in a file read
 * here (`tools=FILE` as `--tools FILE` is, `prompt-tokens-dist=empirical:FILE` as
 * `--prompt-tokens-dist` is) into BenchmarkWorkload.classInputs, and, for the embedded engine,
 * `--scheduling-policy` (priority scheduling, which the classes' `priority=` asks for) and the
 * classes' `model=` names served as LoRA adapters (`--max-loras` slots; sim/lora.ts).
 *
 * @module
 */

import { isAbsolute, resolve as resolvePath } from 'node:path';
import { GoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/config.js';
import type { EngineOptions } from '../sim/index.js';
import type { TrafficClassSpec } from '../types.js';
import {
  type ClassInputs,
  checkClasses,
  classToolChoice,
  lengthDistSpec,
  loadLengthDist,
  parseTrafficClass,
} from '../workload/index.js';
import { readTools } from './agents.js';

/** Reads what class `cls` names in files, filling in its spec (a file's count, sha256, a histogram's mean). */
async function classInputs(
  cls: TrafficClassSpec,
  where: string,
  cwd: string,
): Promise<ClassInputs | undefined> {
  const input: ClassInputs = {};
  const file = cls.tools?.file;
  if (file) {
    const read = await readTools(file.path, cwd, `${where} class ${cls.name}: tools=`);
    const names = read.definitions.map((t) => t.name);
    const choice = cls.tools!.choice;
    cls.tools = {
      count: names.length,
      ...(choice !== undefined
        ? {
            choice:
              typeof choice === 'string' ? choice : classToolChoice(where, cls.name, choice.name, names),
          }
        : {}),
      ...(read.file ? { file: read.file } : {}),
    };
    input.tools = read.definitions;
  }
  for (const [field, which, column, key] of [
    ['promptTokensDist', 'prompt', 'input', 'prompt-tokens-dist'],
    ['maxTokensDist', 'output', 'output', 'max-tokens-dist'],
  ] as const) {
    const dist = cls[field];
    if (dist?.kind !== 'empirical') continue;
    const path = dist.text.slice('empirical:'.length);
    const text = `empirical:${isAbsolute(path) ? path : resolvePath(cwd, path)}`;
    const loaded = await loadLengthDist(text, `${where} class ${cls.name}: ${key}`, column);
    cls[field] = lengthDistSpec(loaded);
    input.lengths = { ...input.lengths, [which]: loaded };
  }
  return input.tools || input.lengths ? input : undefined;
}

/**
 * Applies `--class` (over the config file's classes), `--scheduling-policy` and `--max-loras`
 * to a config whose target is resolved, reading the files the classes name from `cwd`. Throws
 * E_USAGE naming the class or flag at fault.
 */
export async function applyClassFlags(
  o: {
    class?: readonly string[] | undefined;
    schedulingPolicy?: string | undefined;
    maxLoras?: number | undefined;
  },
  fileClasses: readonly string[] | undefined,
  config: BenchmarkConfig,
  cwd: string,
): Promise<void> {
  const flagged = o.class && o.class.length > 0;
  const texts = flagged ? o.class! : (fileClasses ?? []);
  if (texts.length > 0) {
    const where = flagged ? '--class' : 'config file classes';
    const classes = texts.map((t) => parseTrafficClass(t, where));
    checkClasses(classes);
    const inputs = await Promise.all(classes.map((c) => classInputs(c, where, cwd)));
    config.workload.classes = classes;
    if (inputs.some((i) => i !== undefined)) config.workload.classInputs = inputs;
  }
  const engine: EngineOptions = {};
  const policy = o.schedulingPolicy;
  if (policy !== undefined) {
    embeddedOnly(
      config,
      '--scheduling-policy',
      "drop it: a vLLM server's policy is its own --scheduling-policy; goodput sends each class's priority either way",
    );
    if (policy === 'priority') engine.schedulingPolicy = 'priority';
  }
  if (o.maxLoras !== undefined) {
    embeddedOnly(config, '--max-loras', "drop it: a vLLM server's slots are its own --max-loras");
    engine.maxLoras = o.maxLoras;
  }
  // Without --url, the models the classes name are the embedded engine's LoRA adapters (an
  // adapter with the base model's name is the base model: the engine drops it).
  const models = [...new Set((config.workload.classes ?? []).flatMap((c) => c.model ?? []))];
  if (config.url === undefined && models.length > 0) {
    const given = config.sim?.engine?.loraModules ?? [];
    engine.loraModules = [...given, ...models.filter((m) => !given.includes(m))];
  }
  if (Object.keys(engine).length > 0)
    config.sim = { ...config.sim, engine: { ...config.sim?.engine, ...engine } };
}

function embeddedOnly(config: BenchmarkConfig, flag: string, hint: string): void {
  if (config.url !== undefined)
    throw new GoodputError('E_USAGE', `${flag} applies to the embedded engine only`, hint);
}
