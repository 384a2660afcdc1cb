/**
 * The traffic-class flags: `--class` (repeatable; else a config file's `classes:`), each parsed
 * by the workload's parser into BenchmarkWorkload.classes, and `--scheduling-policy` for the
 * embedded engine (priority scheduling, which the classes' `priority=` asks for).
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/config.js';
import { checkClasses, parseTrafficClass } from '../workload/index.js';

/**
 * Applies `--class` (over the config file's classes) and `--scheduling-policy` to a config
 * whose target is resolved. Throws E_USAGE naming the class at fault.
 */
export function applyClassFlags(
  o: { class?: readonly string[] | undefined; schedulingPolicy?: string | undefined },
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
  const policy = o.schedulingPolicy;
  if (policy === undefined) return;
  if (config.url !== undefined)
    throw new GoodputError(
      'E_USAGE',
      '--scheduling-policy applies to the embedded engine only',
      "drop it: a vLLM server's policy is its own --scheduling-policy; goodput sends each class's priority either way",
    );
  if (policy === 'priority')
    config.sim = { ...config.sim, engine: { ...config.sim?.engine, schedulingPolicy: 'priority' } };
}
