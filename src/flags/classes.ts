/**
 * The traffic-class flags: `--class` (repeatable; else a config file's `classes:`), each parsed
 * by the workload's parser into BenchmarkWorkload.classes, and, for the embedded engine,
 * `--scheduling-policy` (priority scheduling, which the classes' `priority=` asks for) and the
 * classes' `model=` names served as LoRA adapters (`--max-loras` slots; sim/lora.ts).
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/config.js';
import type { EngineOptions } from '../sim/index.js';
import { checkClasses, parseTrafficClass } from '../workload/index.js';

/**
 * Applies `--class` (over the config file's classes), `--scheduling-policy` and `--max-loras`
 * to a config whose target is resolved. Throws E_USAGE naming the class or flag at fault.
 */
export function applyClassFlags(
  o: {
    class?: readonly string[] | undefined;
    schedulingPolicy?: string | undefined;
    maxLoras?: number | undefined;
  },
  fileClasses: readonly string[] | undefined,
  config: BenchmarkConfig,
): void {
  const flagged = o.class && o.class.length > 0;
  const texts = flagged ? o.class! : (fileClasses ?? []);
  if (texts.length > 0) {
    const where = flagged ? '--class' : 'config file classes';
    const classes = texts.map((t) => parseTrafficClass(t, where));
    checkClasses(classes);
    config.workload.classes = classes;
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
