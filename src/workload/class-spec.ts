/**
 * A traffic class as written (`--class name=chat,share=0.7,prompt-tokens=200,slo-ttft=500`, a
 * config file's `classes:`), parsed into a TrafficClassSpec, and the checks of a run's classes
 * together. What a class names in a file (`tools=FILE`, `prompt-tokens-dist=empirical:FILE`) is
 * recorded here and read before the run (flags/classes.ts), into the class's ClassInputs.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { LengthDistSpec, Slo, ToolChoice, ToolDefinition, TrafficClassSpec } from '../types.js';
import { type LengthDist, lengthDistSpec, parseLengthDist } from './length-dist.js';

const HINT =
  'e.g. --class name=chat,share=0.7,prompt-tokens=200,max-tokens=100,slo-ttft=500,priority=0 --class name=batch,share=0.3,prompt-tokens=4000';

function usage(message: string, hint = HINT): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** The keys of a class, as written in `--class` (and in a config file's `classes:`). */
export const CLASS_KEYS = [
  'name',
  'share',
  'prompt-tokens',
  'prompt-tokens-dist',
  'max-tokens',
  'max-tokens-dist',
  'system-prompt-tokens',
  'slo-ttft',
  'slo-tpot',
  'slo-e2el',
  'slo-user-tps',
  'priority',
  'model',
  'tools',
  'tool-choice',
  'turns',
  'turn-tokens',
  'think-time',
] as const;
type ClassKey = (typeof CLASS_KEYS)[number];

/** Most tools a class offers (as `--tools`). */
const MAX_CLASS_TOOLS = 1000;

/**
 * What a class's spec names and the run reads before it starts: the definitions of its tools
 * and its length distributions with an empirical histogram loaded. Absent: built from the spec
 * alone (synthetic tools, parametric distributions).
 */
export interface ClassInputs {
  tools?: readonly ToolDefinition[];
  lengths?: { prompt?: LengthDist; output?: LengthDist };
}

/** Splits `k=v,k=v` where a value may hold commas of its own (`prompt-tokens-dist=lognormal:mean=512,sigma=0.6`). */
function keyValues(text: string, flag: string): Map<ClassKey, string> {
  const out = new Map<ClassKey, string>();
  let last: ClassKey | undefined;
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const key = (eq > 0 ? part.slice(0, eq).trim().toLowerCase() : '') as ClassKey;
    if (CLASS_KEYS.includes(key)) {
      if (out.has(key)) throw usage(`${flag}: '${key}' is given twice in '${text}'`);
      out.set(key, part.slice(eq + 1).trim());
      last = key;
    } else if (last?.endsWith('-dist')) {
      out.set(last, `${out.get(last)},${part}`);
    } else {
      throw usage(
        `${flag}: '${part.trim()}' in '${text}' is not one of ${CLASS_KEYS.map((k) => `${k}=`).join(', ')}`,
      );
    }
  }
  return out;
}

function wholeNumber(flag: string, key: string, text: string, min: number): number {
  const n = Number(text);
  if (text === '' || !Number.isInteger(n) || n < min)
    throw usage(`${flag}: ${key}=${text} must be a whole number ≥ ${min}`);
  return n;
}

/** `500`, `500ms` or `2s` in ms; `zero` allows 0. */
function durationMs(flag: string, key: string, text: string, zero = false): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/i.exec(text);
  const ms = m ? Number(m[1]) * (m[2]?.toLowerCase() === 's' ? 1000 : 1) : Number.NaN;
  if (!(ms > 0 || (zero && ms === 0)))
    throw usage(
      `${flag}: ${key}=${text} must be ${zero ? 'a time ≥ 0' : 'a positive latency'} in ms (or with s)`,
    );
  return ms;
}

/**
 * A class's distribution as recorded. `empirical:FILE` records its text only until the file is
 * read (flags/classes.ts fills in its mean and source; createClassWorkload refuses it unread).
 */
function distOf(flag: string, key: string, text: string): LengthDistSpec {
  const dist = parseLengthDist(text, `${flag} ${key}`);
  if (dist.kind === 'empirical') return { kind: 'empirical', text: dist.text, mean: 0 };
  return lengthDistSpec(dist);
}

/**
 * `tools=N` (synthetic tool_0 …; 0: none, whatever the run's `--tools`) or `tools=FILE` (read
 * later: its count and sha256 filled in then).
 */
function toolsOf(
  flag: string,
  name: string,
  text: string,
  choice: string | undefined,
): TrafficClassSpec['tools'] {
  if (text === '') throw usage(`${flag}: class ${name} has tools= with nothing after it`, 'e.g. tools=4');
  const spec: NonNullable<TrafficClassSpec['tools']> = /^\d+$/.test(text)
    ? { count: wholeNumber(flag, 'tools', text, 0) }
    : { count: 0, file: { path: text, sha256: '' } };
  if (spec.count > MAX_CLASS_TOOLS)
    throw usage(`${flag}: class ${name}: tools=${text} is more than ${MAX_CLASS_TOOLS}`, 'e.g. tools=4');
  if (choice !== undefined) {
    if (spec.count === 0 && !spec.file)
      throw usage(
        `${flag}: class ${name} has tool-choice= with tools=0`,
        'drop tool-choice=, or offer tools',
      );
    const names = spec.file ? undefined : Array.from({ length: spec.count }, (_, i) => `tool_${i}`);
    spec.choice = classToolChoice(flag, name, choice, names);
  }
  return spec;
}

/** `tool-choice=auto|required|none|NAME`; NAME checked against the tools' names when known. */
export function classToolChoice(
  flag: string,
  name: string,
  text: string,
  names: readonly string[] | undefined,
): ToolChoice {
  if (text === 'auto' || text === 'required' || text === 'none') return text;
  if (text === '' || (names && !names.includes(text)))
    throw usage(
      `${flag}: class ${name}: tool-choice=${text} names no tool it offers`,
      `use auto, required, none${names ? ` or one of: ${names.slice(0, 8).join(', ')}` : ''}`,
    );
  return { name: text };
}

/** `turns=`, `turn-tokens=`, `think-time=`: the class's session shape, over the run's. */
function sessionsOf(flag: string, kv: Map<ClassKey, string>): TrafficClassSpec['sessions'] {
  const sessions: NonNullable<TrafficClassSpec['sessions']> = {};
  const turns = kv.get('turns');
  if (turns !== undefined) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(turns);
    const min = m ? Number(m[1]) : Number.NaN;
    const max = m?.[2] !== undefined ? Number(m[2]) : min;
    if (!(min >= 1 && max >= min))
      throw usage(
        `${flag}: turns=${turns} must be N or MIN-MAX with 1 ≤ MIN ≤ MAX`,
        'e.g. turns=3 or turns=2-6',
      );
    sessions.turns = { min, max };
  }
  const turnTokens = kv.get('turn-tokens');
  if (turnTokens !== undefined) sessions.turnTokens = wholeNumber(flag, 'turn-tokens', turnTokens, 1);
  const think = kv.get('think-time');
  if (think !== undefined) {
    const exp = /^exp(?:onential)?:/i.exec(think);
    const meanMs = durationMs(flag, 'think-time', exp ? think.slice(exp[0].length) : think, true);
    sessions.thinkTime = { meanMs, dist: exp ? 'exponential' : 'fixed' };
  }
  return Object.keys(sessions).length > 0 ? sessions : undefined;
}

function sloOf(flag: string, kv: Map<ClassKey, string>): Slo | undefined {
  const slo: Slo = {};
  for (const [key, field] of [
    ['slo-ttft', 'ttftMs'],
    ['slo-tpot', 'tpotMs'],
    ['slo-e2el', 'e2elMs'],
  ] as const) {
    const v = kv.get(key);
    if (v !== undefined) slo[field] = durationMs(flag, key, v);
  }
  const tps = kv.get('slo-user-tps');
  if (tps !== undefined) {
    const n = Number(tps);
    if (!(n > 0)) throw usage(`${flag}: slo-user-tps=${tps} must be a positive number of tokens/s`);
    slo.userTps = n;
  }
  return Object.keys(slo).length > 0 ? slo : undefined;
}

/** The lengths of a class: `prompt-tokens`, `max-tokens`, `system-prompt-tokens` and the distributions. */
function lengthsOf(flag: string, name: string, kv: Map<ClassKey, string>, cls: TrafficClassSpec): void {
  const int = (key: ClassKey, min: number) => {
    const v = kv.get(key);
    return v === undefined ? undefined : wholeNumber(flag, key, v, min);
  };
  const promptTokens = int('prompt-tokens', 1);
  if (promptTokens !== undefined) cls.promptTokens = promptTokens;
  const maxTokens = int('max-tokens', 1);
  if (maxTokens !== undefined) cls.maxTokens = maxTokens;
  const system = int('system-prompt-tokens', 0);
  if (system !== undefined) cls.systemPromptTokens = system;
  for (const [key, field, fixed] of [
    ['prompt-tokens-dist', 'promptTokensDist', 'prompt-tokens'],
    ['max-tokens-dist', 'maxTokensDist', 'max-tokens'],
  ] as const) {
    const v = kv.get(key);
    if (v === undefined) continue;
    if (kv.has(fixed)) throw usage(`${flag}: class ${name} has both ${key} and ${fixed}: keep one`);
    cls[field] = distOf(flag, key, v);
  }
}

/**
 * Parses one `--class` value.
 *
 * @example
 * parseTrafficClass('name=chat,share=0.7,prompt-tokens=200,slo-ttft=500,priority=0');
 * // { name: 'chat', share: 0.7, promptTokens: 200, slo: { ttftMs: 500 }, priority: 0 }
 */
export function parseTrafficClass(text: string, flag = '--class'): TrafficClassSpec {
  const kv = keyValues(text, flag);
  const name = kv.get('name');
  if (!name || !/^[A-Za-z0-9_.-]{1,64}$/.test(name))
    throw usage(`${flag}: '${text}' needs name=NAME (letters, digits, _ . -)`);
  const shareText = kv.get('share');
  const share = Number(shareText);
  if (shareText === undefined || !(share > 0 && share <= 1))
    throw usage(`${flag}: class ${name} needs share=S with 0 < S ≤ 1 (its share of the requests)`);
  const cls: TrafficClassSpec = { name, share };
  lengthsOf(flag, name, kv, cls);
  const slo = sloOf(flag, kv);
  if (slo) cls.slo = slo;
  const priority = kv.get('priority');
  if (priority !== undefined) {
    const p = Number(priority);
    if (priority === '' || !Number.isSafeInteger(p))
      throw usage(`${flag}: priority=${priority} must be a whole number (lower is served first)`);
    cls.priority = p;
  }
  const model = kv.get('model');
  if (model !== undefined) {
    if (model === '') throw usage(`${flag}: model= is empty`);
    cls.model = model;
  }
  const tools = kv.get('tools');
  const choice = kv.get('tool-choice');
  if (tools !== undefined) cls.tools = toolsOf(flag, name, tools, choice);
  else if (choice !== undefined)
    throw usage(
      `${flag}: class ${name} has tool-choice= without tools=`,
      'e.g. tools=4,tool-choice=required',
    );
  const sessions = sessionsOf(flag, kv);
  if (sessions) cls.sessions = sessions;
  return cls;
}

/** Checks a run's classes together: unique names, shares summing to 1. */
export function checkClasses(classes: readonly TrafficClassSpec[]): void {
  const seen = new Set<string>();
  for (const c of classes) {
    if (seen.has(c.name)) throw usage(`class ${c.name} is defined twice`, 'give each --class its own name=');
    seen.add(c.name);
    if (!(c.share > 0 && c.share <= 1))
      throw usage(
        `class ${c.name}: share ${c.share} is not in (0, 1]`,
        'shares are parts of 1, e.g. 0.7 and 0.3',
      );
  }
  const total = classes.reduce((sum, c) => sum + c.share, 0);
  if (Math.abs(total - 1) > 1e-6)
    throw usage(
      `the shares of the classes add up to ${Number(total.toFixed(6))}, not 1 (${classes.map((c) => `${c.name}=${c.share}`).join(', ')})`,
      'make the shares parts of 1, e.g. share=0.7 and share=0.3',
    );
}
