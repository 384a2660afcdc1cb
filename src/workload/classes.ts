/**
 * Traffic classes (`--class name=chat,share=0.7,prompt-tokens=200,slo-ttft=500,priority=0`):
 * several named workloads in one run, each with its share of the requests, its own lengths
 * and system prompt, its SLO, and the priority and model its requests are sent with.
 *
 * Which class request i belongs to depends only on the seed and i: positions are dealt in
 * blocks of CLASS_BLOCK, each block holding every class's share of them (largest remainders,
 * so shares of 0.7/0.3 are exact in every block of 100) in a seeded order. Each class is a
 * workload of its own (its own seed, so classes share no prompt text), asked for item i; the
 * open-loop send times come from one schedule of the run's rate, so a class's arrivals are
 * its share of the run's.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { Slo, TrafficClassSpec, WorkItem, WorkloadSpec } from '../types.js';
import { ArrivalSchedule } from './arrivals.js';
import { type LengthDist, lengthDistSpec, parseLengthDist } from './length-dist.js';
import { createRng, type Rng } from './rng.js';
import { StagedArrivals } from './stages.js';
import type { Workload, WorkloadOptions } from './workload.js';

/** Positions dealt at a time: every class gets its share of each block. */
export const CLASS_BLOCK = 100;

const HINT =
  'e.g. --class name=chat,share=0.7,prompt-tokens=200,max-tokens=100,slo-ttft=500,priority=0 --class name=batch,share=0.3,prompt-tokens=4000';

function usage(message: string, hint = HINT): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** The keys of a class, as written in `--class` (and in a config file's `classes:`, camelCase there). */
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
] as const;
type ClassKey = (typeof CLASS_KEYS)[number];

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

function latencyMs(flag: string, key: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/i.exec(text);
  const ms = m ? Number(m[1]) * (m[2]?.toLowerCase() === 's' ? 1000 : 1) : Number.NaN;
  if (!(ms > 0)) throw usage(`${flag}: ${key}=${text} must be a positive latency in ms (or with s)`);
  return ms;
}

function distOf(flag: string, key: string, text: string): TrafficClassSpec['promptTokensDist'] {
  const dist = parseLengthDist(text, `${flag} ${key}`);
  if (dist.kind === 'empirical')
    throw usage(
      `${flag}: ${key}=${text}: a class takes no empirical histogram`,
      'use fixed, uniform, normal or lognormal in a class, or --prompt-tokens-dist empirical:FILE for the whole run',
    );
  return lengthDistSpec(dist);
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
  const slo: Slo = {};
  for (const [key, field] of [
    ['slo-ttft', 'ttftMs'],
    ['slo-tpot', 'tpotMs'],
    ['slo-e2el', 'e2elMs'],
  ] as const) {
    const v = kv.get(key);
    if (v !== undefined) slo[field] = latencyMs(flag, key, v);
  }
  const tps = kv.get('slo-user-tps');
  if (tps !== undefined) {
    const n = Number(tps);
    if (!(n > 0)) throw usage(`${flag}: slo-user-tps=${tps} must be a positive number of tokens/s`);
    slo.userTps = n;
  }
  if (Object.keys(slo).length > 0) cls.slo = slo;
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

/**
 * Which class each position of a block holds: every class's share of CLASS_BLOCK positions
 * (largest remainders), in a seeded order of the block.
 */
function dealBlock(shares: readonly number[], rng: Rng): Uint8Array {
  const exact = shares.map((s) => s * CLASS_BLOCK);
  const counts = exact.map(Math.floor);
  let left = CLASS_BLOCK - counts.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((x, k) => [x - Math.floor(x), k] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let j = 0; left > 0; j = (j + 1) % byRemainder.length, left--) counts[byRemainder[j]![1]]!++;
  const block = new Uint8Array(CLASS_BLOCK);
  let p = 0;
  counts.forEach((n, k) => {
    block.fill(k, p, p + n);
    p += n;
  });
  for (let i = CLASS_BLOCK - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = block[i]!;
    block[i] = block[j]!;
    block[j] = t;
  }
  return block;
}

/** The class of every position (warmup included), from the seed and the shares alone. */
export function classDealer(seed: number, shares: readonly number[]): (index: number) => number {
  const streams = createRng(seed).fork('class');
  let blockIndex = -1;
  let block: Uint8Array = new Uint8Array(0);
  return (index) => {
    const b = Math.floor(index / CLASS_BLOCK);
    if (b !== blockIndex) {
      block = dealBlock(shares, streams.fork(b));
      blockIndex = b;
    }
    return block[index - b * CLASS_BLOCK]!;
  };
}

/** A class's own seed: classes share no prompt text, system prompt included. */
function classSeed(seed: number, k: number): number {
  return createRng(seed)
    .fork('class-seed')
    .fork(k)
    .int(2 ** 31);
}

/**
 * The workload of a run with traffic classes: one workload per class (`create` is
 * createWorkload; each class's lengths and system prompt over the run's), request i taken from
 * the workload of its class, tagged with the class, its priority and model, and sent at the
 * run's i-th arrival time.
 */
export function createClassWorkload(
  spec: WorkloadSpec,
  options: WorkloadOptions,
  create: (spec: WorkloadSpec, options: WorkloadOptions) => Workload,
): Workload {
  const classes = spec.classes!;
  checkClasses(classes);
  if (spec.sessions !== undefined || spec.kind === 'trace')
    throw usage(
      `--class cannot be used with ${spec.sessions !== undefined ? 'sessions' : '--trace'} yet`,
      'classes split single requests (synthetic or a dataset); drop --class or the session/trace flags',
    );
  const { classes: _, ...base } = spec;
  const { rate, stages, lengths, ...rest } = options;
  const workloads = classes.map((c, k) => {
    if (spec.kind !== 'synthetic' && (c.promptTokens !== undefined || c.promptTokensDist))
      throw usage(
        `class ${c.name}: prompt-tokens needs synthetic prompts, not --dataset`,
        "drop the class's prompt-tokens, or drop --dataset",
      );
    const own: WorkloadSpec = { ...base };
    const classLengths: { prompt?: LengthDist; output?: LengthDist } = { ...lengths };
    if (c.promptTokens !== undefined || c.promptTokensDist) {
      delete classLengths.prompt;
      delete own.promptTokensRange;
    }
    if (c.promptTokens !== undefined) own.promptTokens = c.promptTokens;
    if (c.promptTokensDist) classLengths.prompt = parseLengthDist(c.promptTokensDist.text, '--class');
    if (c.maxTokens !== undefined || c.maxTokensDist) delete classLengths.output;
    if (c.maxTokens !== undefined) {
      own.maxTokens = c.maxTokens;
      delete own.maxTokensFrom;
    }
    if (c.maxTokensDist) classLengths.output = parseLengthDist(c.maxTokensDist.text, '--class');
    if (c.systemPromptTokens !== undefined) own.systemPromptTokens = c.systemPromptTokens;
    return create(own, {
      ...rest,
      seed: classSeed(options.seed, k),
      ...(c.maxTokens !== undefined ? { outputFromDataset: false } : {}),
      ...(classLengths.prompt || classLengths.output ? { lengths: classLengths } : {}),
    });
  });
  const root = createRng(options.seed);
  const schedule = stages
    ? new StagedArrivals(stages, options.burstiness ?? 1, root.fork('arrivals'))
    : rate === undefined
      ? undefined
      : new ArrivalSchedule(rate, options.burstiness ?? 1, root.fork('arrivals'));
  const classOf = classDealer(
    options.seed,
    classes.map((c) => c.share),
  );
  const first = workloads[0]!.spec;
  const resolved: WorkloadSpec = {
    ...spec,
    tokenizer: first.tokenizer,
    ...(first.tokenizerFile ? { tokenizerFile: first.tokenizerFile } : {}),
    ...(first.dataset ? { dataset: first.dataset } : {}),
    ...(first.cancelRate !== undefined ? { cancelRate: first.cancelRate } : {}),
    ...(first.cancelAfterMs !== undefined ? { cancelAfterMs: first.cancelAfterMs } : {}),
    ...(lengths?.prompt ? { promptTokensDist: lengthDistSpec(lengths.prompt) } : {}),
    ...(lengths?.output ? { maxTokensDist: lengthDistSpec(lengths.output) } : {}),
  };
  return {
    spec: resolved,
    total: workloads[0]!.total,
    item(i: number): WorkItem {
      const k = classOf(i);
      const c = classes[k]!;
      const item = workloads[k]!.item(i);
      item.class = c.name;
      if (c.priority !== undefined) item.priority = c.priority;
      if (c.model !== undefined) item.model = c.model;
      if (schedule && !item.warmup) item.scheduledMs = schedule.offsetAt(i - options.warmup);
      return item;
    },
  };
}
