/**
 * Traffic classes as an experiment's variable: a configuration's `class.NAME.KEY` parameter
 * (`class.batch.priority: 0`, `class.chat.share: 0.5`, `class.chat.slo-ttft: 300`) sets one
 * field of the measurement's class NAME (the plan's `run:` classes) for that configuration's
 * runs, in `--class`'s words and parsed by its parser. A share set on some classes rescales the
 * others' shares to fill what is left, so `class.chat.share: [0.5, 0.7]` is a grid axis of its
 * own. Pure.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ServeParamValue, TrafficClassSpec } from '../types.js';
import { CLASS_KEYS, checkClasses, parseTrafficClass } from '../workload/index.js';

const PREFIX = 'class.';

/** True for a `class.NAME.KEY` parameter name. */
export function isClassParam(param: string): boolean {
  return param.startsWith(PREFIX);
}

function bad(where: string, message: string, hint: string): GoodputError {
  return new GoodputError('E_CONFIG', `${where}: ${message}`, hint);
}

/** The fields a `--class` key sets (both of a length's forms: setting one drops the other). */
const FIELDS_OF: Partial<Record<string, Array<keyof TrafficClassSpec>>> = {
  'prompt-tokens': ['promptTokens', 'promptTokensDist'],
  'prompt-tokens-dist': ['promptTokens', 'promptTokensDist'],
  'max-tokens': ['maxTokens', 'maxTokensDist'],
  'max-tokens-dist': ['maxTokens', 'maxTokensDist'],
};

/** One `class.NAME.KEY` parameter applied to its class (share aside). */
function setField(
  cls: TrafficClassSpec,
  key: string,
  value: ServeParamValue,
  where: string,
): TrafficClassSpec {
  const parsed = parseTrafficClass(`name=${cls.name},share=1,${key}=${String(value)}`, where);
  const out: TrafficClassSpec = { ...cls };
  for (const field of FIELDS_OF[key] ?? []) delete out[field];
  const { name: _name, share: _share, slo, ...fields } = parsed;
  Object.assign(out, fields);
  if (slo) out.slo = { ...cls.slo, ...slo };
  return out;
}

/**
 * The measurement's classes with a configuration's `class.*` parameters applied; the classes
 * as given when it has none. Throws E_CONFIG naming `where.params.PARAM` for a class the run
 * does not define, a key `--class` does not take, a bad value, or shares that cannot add up to 1.
 *
 * @example
 * applyClassParams(classes, { 'class.batch.priority': 0 }, 'configuration fcfs');
 */
export function applyClassParams(
  classes: readonly TrafficClassSpec[] | undefined,
  params: Readonly<Record<string, ServeParamValue>>,
  where: string,
): TrafficClassSpec[] | undefined {
  const entries = Object.entries(params).filter(([p]) => isClassParam(p));
  if (entries.length === 0) return classes ? [...classes] : undefined;
  let out = [...(classes ?? [])];
  const names = out.map((c) => c.name);
  const shares = new Map<string, number>();
  for (const [param, value] of entries) {
    const at = `${where}.params.${param}`;
    const rest = param.slice(PREFIX.length);
    const dot = rest.lastIndexOf('.');
    const name = rest.slice(0, Math.max(0, dot));
    const key = rest.slice(dot + 1);
    const k = out.findIndex((c) => c.name === name);
    if (k < 0)
      throw bad(
        at,
        names.length === 0
          ? 'the run has no traffic classes'
          : `no class '${name}' in the run (${names.join(', ')})`,
        names.length === 0
          ? 'define the classes in the plan’s run: section (classes: ["name=chat,share=0.7,…", …])'
          : `write class.${names[0]}.KEY`,
      );
    if (key === 'name' || !(CLASS_KEYS as readonly string[]).includes(key))
      throw bad(
        at,
        `'${key}' is not a field of a class`,
        `use one of ${CLASS_KEYS.filter((c) => c !== 'name').join(', ')}`,
      );
    if (key === 'share') shares.set(name, parseTrafficClass(`name=${name},share=${String(value)}`, at).share);
    else out[k] = setField(out[k]!, key, value, at);
  }
  out = rescaleShares(out, shares, where);
  try {
    checkClasses(out);
  } catch (e) {
    if (!(e instanceof GoodputError)) throw e;
    throw bad(where, e.message, 'give the classes’ share parameters values that add up to 1');
  }
  return out;
}

/** The shares set, and the others scaled to fill what is left of 1. */
function rescaleShares(
  classes: TrafficClassSpec[],
  set: ReadonlyMap<string, number>,
  where: string,
): TrafficClassSpec[] {
  if (set.size === 0) return classes;
  const taken = [...set.values()].reduce((a, b) => a + b, 0);
  const others = classes.filter((c) => !set.has(c.name));
  const othersTotal = others.reduce((a, c) => a + c.share, 0);
  if (others.length > 0 && !(taken < 1))
    throw bad(
      where,
      `the shares set (${[...set].map(([n, s]) => `${n}=${s}`).join(', ')}) leave nothing for ${others.map((c) => c.name).join(', ')}`,
      'set shares below 1 in all, or set every class’s share',
    );
  const scale = others.length > 0 ? (1 - taken) / othersTotal : 1;
  return classes.map((c) => {
    const s = set.get(c.name);
    return { ...c, share: s ?? Number((c.share * scale).toPrecision(12)) };
  });
}
