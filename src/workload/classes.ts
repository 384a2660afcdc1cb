/**
 * Traffic classes (`--class name=chat,share=0.7,prompt-tokens=200,slo-ttft=500,priority=0`):
 * several named workloads in one run, each with its share of the run, its own lengths, system
 * prompt, tools and session shape, its SLO, and the priority and model its requests are sent
 * with (class-spec.ts parses them).
 *
 * What a share is a share of (`WorkloadSpec.classShareOf`, recorded in the run's meta):
 * - `requests` (open loop, stages): which class request i belongs to depends only on the seed
 *   and i: positions are dealt in blocks of CLASS_BLOCK, each block holding every class's share
 *   of them (largest remainders, so shares of 0.7/0.3 are exact in every block of 100) in a
 *   seeded order. The open-loop send times come from one schedule of the run's rate, so a
 *   class's arrivals are its share of the run's.
 * - `users` (a closed loop, `--concurrency N` or `--sessions N`): each class has its share of
 *   the N users (round(N × share) by largest remainder, in a seeded order of the users), and a
 *   user sends only its class's requests (or sessions), one after another.
 * - `sessions` (`--session-rate R`): session s's class is dealt as request i's is, so a class
 *   has its share of the sessions started, each with as many turns as its class gives it.
 *
 * Each class is a workload of its own (its own seed, so classes share no prompt text), asked
 * for item i or session s.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { TrafficClassSpec, WorkItem, WorkloadSpec } from '../types.js';
import { syntheticTools } from './agents.js';
import { ArrivalSchedule, warmupArrivalsOf } from './arrivals.js';
import { type ClassInputs, checkClasses } from './class-spec.js';
import { type LengthDist, lengthDistSpec, parseLengthDist } from './length-dist.js';
import { createRng, type Rng } from './rng.js';
import type { SessionScript, SessionSource } from './sessions.js';
import { StagedArrivals } from './stages.js';
import type { Workload, WorkloadOptions } from './workload.js';

/** Positions dealt at a time: every class gets its share of each block. */
export const CLASS_BLOCK = 100;

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Each share's part of n whole positions: floors, then the largest remainders (ties: the earlier class). */
export function largestRemainder(shares: readonly number[], n: number): number[] {
  const exact = shares.map((s) => s * n);
  const counts = exact.map(Math.floor);
  let left = n - counts.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((x, k) => [x - Math.floor(x), k] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let j = 0; left > 0; j = (j + 1) % byRemainder.length, left--) counts[byRemainder[j]![1]]!++;
  return counts;
}

/** `counts[k]` positions of class k, in a seeded order (Fisher–Yates). */
function deal(counts: readonly number[], rng: Rng): Uint8Array {
  const n = counts.reduce((a, b) => a + b, 0);
  const out = new Uint8Array(n);
  let p = 0;
  counts.forEach((c, k) => {
    out.fill(k, p, p + c);
    p += c;
  });
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}

/**
 * The class of every position (warmup included), from the seed and the shares alone; `stream`
 * names the dealing (requests and sessions are dealt apart).
 */
export function classDealer(
  seed: number,
  shares: readonly number[],
  stream = 'class',
): (index: number) => number {
  const streams = createRng(seed).fork(stream);
  let blockIndex = -1;
  let block: Uint8Array = new Uint8Array(0);
  return (index) => {
    const b = Math.floor(index / CLASS_BLOCK);
    if (b !== blockIndex) {
      block = deal(largestRemainder(shares, CLASS_BLOCK), streams.fork(b));
      blockIndex = b;
    }
    return block[index - b * CLASS_BLOCK]!;
  };
}

/** The fewest users that give every class at least one (by largest remainder). */
export function fewestUsers(shares: readonly number[]): number {
  for (let n = shares.length; ; n++) if (!largestRemainder(shares, n).includes(0)) return n;
}

/**
 * The class of each of a closed loop's `users` (by the user's position in the run): exactly
 * round(users × share) by largest remainder, in a seeded order. Throws E_USAGE when a class
 * would have no user.
 */
export function dealUsers(seed: number, classes: readonly TrafficClassSpec[], users: number): Uint8Array {
  const shares = classes.map((c) => c.share);
  const counts = largestRemainder(shares, users);
  const empty = counts.indexOf(0);
  if (empty >= 0)
    throw usage(
      `${users} user(s) leave class ${classes[empty]!.name} (share ${classes[empty]!.share}) without a user: in a closed loop each class has its share of the users`,
      `raise --concurrency (or --sessions) to at least ${fewestUsers(shares)}, or use an open loop (--rate), where a share is of the arrivals`,
    );
  return deal(counts, createRng(seed).fork('class-users'));
}

/**
 * The closed loop's users dealt to the classes, or undefined when there are too few to give
 * every class one (a sweep's first points): then, said in a note, the shares are of the requests.
 */
function usersOf(classes: readonly TrafficClassSpec[], options: WorkloadOptions): Uint8Array | undefined {
  const users = options.users;
  if (users === undefined) return undefined;
  const fewest = fewestUsers(classes.map((c) => c.share));
  if (users >= fewest) return dealUsers(options.seed, classes, users);
  options.note?.(
    `${users} user(s) cannot give each of the ${classes.length} classes one: their shares are of the requests in this run (of the users from ${fewest} users on)`,
  );
  return undefined;
}

/** A class's own seed: classes share no prompt text, system prompt included. */
function classSeed(seed: number, k: number): number {
  return createRng(seed)
    .fork('class-seed')
    .fork(k)
    .int(2 ** 31);
}

/** What a class's share is of, for a run of these options (see the module comment). */
function shareOf(spec: WorkloadSpec, byUsers: boolean): NonNullable<WorkloadSpec['classShareOf']> {
  if (byUsers) return 'users';
  return spec.sessions !== undefined ? 'sessions' : 'requests';
}

/** Refuses what classes cannot be combined with. */
function checkClassRun(spec: WorkloadSpec, classes: readonly TrafficClassSpec[]): void {
  checkClasses(classes);
  if (spec.kind === 'trace' || spec.agents)
    throw usage(
      `--class cannot be used with ${spec.kind === 'trace' ? '--trace' : '--agents'}`,
      'classes split single requests and sessions (synthetic or a dataset); drop --class or the other flag',
    );
  for (const c of classes) {
    if (spec.kind !== 'synthetic' && (c.promptTokens !== undefined || c.promptTokensDist))
      throw usage(
        `class ${c.name}: prompt-tokens needs synthetic prompts, not --dataset`,
        "drop the class's prompt-tokens, or drop --dataset",
      );
    if (c.sessions && spec.sessions === undefined)
      throw usage(
        `class ${c.name} sets ${Object.keys(c.sessions).join(', ')} of multi-turn sessions, but the run has none`,
        'add --sessions N (N conversations at once) or --session-rate R; a class with turns=1 is single-turn',
      );
    if ((c.tools?.count || c.tools?.file) && spec.api !== 'chat' && spec.api !== 'responses')
      throw usage(
        `class ${c.name}: tools need --api chat or responses, not ${spec.api}`,
        'drop --api, or use --api responses',
      );
  }
}

/** A class's distribution, loaded: its input's, or parsed from its text (empirical only when read). */
function classDist(c: TrafficClassSpec, which: 'prompt' | 'output', input?: ClassInputs): LengthDist {
  const loaded = input?.lengths?.[which];
  if (loaded) return loaded;
  const text = (which === 'prompt' ? c.promptTokensDist : c.maxTokensDist)!.text;
  const dist = parseLengthDist(text, `class ${c.name}`);
  if (dist.kind === 'empirical')
    throw usage(
      `class ${c.name}: ${text} is read before the run, and was not`,
      'pass its histogram in the class inputs (the CLI reads it: --class …,prompt-tokens-dist=empirical:FILE)',
    );
  return dist;
}

/** The workload spec and options of class k: the run's, with what the class sets over them. */
function classWorkloadOf(
  base: WorkloadSpec,
  options: WorkloadOptions,
  c: TrafficClassSpec,
  k: number,
): [WorkloadSpec, WorkloadOptions] {
  const { rate: _r, stages: _s, users: _u, classInputs, lengths, tools, ...rest } = options;
  const input = classInputs?.[k];
  const own: WorkloadSpec = { ...base };
  const classLengths: { prompt?: LengthDist; output?: LengthDist } = { ...lengths };
  if (c.promptTokens !== undefined || c.promptTokensDist) {
    delete classLengths.prompt;
    delete own.promptTokensRange;
  }
  if (c.promptTokens !== undefined) own.promptTokens = c.promptTokens;
  if (c.promptTokensDist) classLengths.prompt = classDist(c, 'prompt', input);
  if (c.maxTokens !== undefined || c.maxTokensDist) delete classLengths.output;
  if (c.maxTokens !== undefined) {
    own.maxTokens = c.maxTokens;
    delete own.maxTokensFrom;
  }
  if (c.maxTokensDist) classLengths.output = classDist(c, 'output', input);
  if (c.systemPromptTokens !== undefined) own.systemPromptTokens = c.systemPromptTokens;
  if (c.sessions && own.sessions) own.sessions = { ...own.sessions, ...c.sessions };
  let definitions = tools;
  if (c.tools) {
    delete own.tools;
    definitions = undefined;
    if (c.tools.file && !input?.tools)
      throw usage(
        `class ${c.name}: tools=${c.tools.file.path} is read before the run, and was not`,
        'pass its definitions in the class inputs (the CLI reads it: --class …,tools=FILE)',
      );
    if (c.tools.count > 0 || c.tools.file) {
      own.tools = c.tools;
      definitions = input?.tools ?? syntheticTools(c.tools.count);
    }
  }
  return [
    own,
    {
      ...rest,
      seed: classSeed(options.seed, k),
      ...(c.maxTokens !== undefined ? { outputFromDataset: false } : {}),
      ...(classLengths.prompt || classLengths.output ? { lengths: classLengths } : {}),
      ...(definitions ? { tools: definitions } : {}),
    },
  ];
}

/** Request `item` tagged with its class, the class's priority and model. */
function tag(item: WorkItem, c: TrafficClassSpec): WorkItem {
  item.class = c.name;
  if (c.priority !== undefined) item.priority = c.priority;
  if (c.model !== undefined) item.model = c.model;
  return item;
}

/** A session of class `c`: each turn's request tagged with the class. */
function taggedSession(script: SessionScript, c: TrafficClassSpec): SessionScript {
  return { ...script, request: (t, replies, i, warmup) => tag(script.request(t, replies, i, warmup), c) };
}

/**
 * The workload of a run with traffic classes: one workload per class (`create` is
 * createWorkload; each class's lengths, system prompt, tools and session shape over the run's),
 * request i (or session s) taken from the workload of its class (see the module comment for
 * how a class is chosen), tagged with the class, its priority and model, and sent at the run's
 * i-th arrival time (session s at the run's s-th).
 */
export function createClassWorkload(
  spec: WorkloadSpec,
  options: WorkloadOptions,
  create: (spec: WorkloadSpec, options: WorkloadOptions) => Workload,
): Workload {
  const classes = spec.classes!;
  checkClassRun(spec, classes);
  const { classes: _, ...base } = spec;
  const workloads = classes.map((c, k) => create(...classWorkloadOf(base, options, c, k)));
  const root = createRng(options.seed);
  const { rate, stages, lengths } = options;
  const schedule = stages
    ? new StagedArrivals(stages, options.burstiness ?? 1, root.fork('arrivals'))
    : rate === undefined
      ? undefined
      : new ArrivalSchedule(rate, options.burstiness ?? 1, root.fork('arrivals'));
  const warmupSchedule =
    schedule && spec.sessions === undefined ? warmupArrivalsOf(options, root) : undefined;
  const shares = classes.map((c) => c.share);
  const classOf = classDealer(options.seed, shares);
  const users = usersOf(classes, options);
  const sessions =
    spec.sessions === undefined ? undefined : classSessions(classes, workloads, options, schedule);
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
    classShareOf: shareOf(spec, users !== undefined),
  };
  return {
    spec: resolved,
    total: workloads[0]!.total,
    item(i: number, cls?: number): WorkItem {
      if (sessions && i >= options.warmup)
        return sessions.session(i - options.warmup, cls).request(0, [], i, false);
      const k = cls ?? classOf(i);
      const item = tag(workloads[k]!.item(i), classes[k]!);
      if (schedule && !item.warmup && !sessions) item.scheduledMs = schedule.offsetAt(i - options.warmup);
      else if (warmupSchedule && item.warmup) item.scheduledMs = warmupSchedule.offsetAt(i);
      return item;
    },
    ...(users ? { userClass: (user: number) => users[user % users.length]! } : {}),
    ...(sessions ? { sessions } : {}),
  };
}

/**
 * The sessions of a run with classes: session s of its class (the user's, in a closed loop;
 * else dealt by the shares), its turns tagged; warmup session w of request w's class; session s
 * starts at the run's s-th arrival (`--session-rate`).
 */
function classSessions(
  classes: readonly TrafficClassSpec[],
  workloads: readonly Workload[],
  options: WorkloadOptions,
  schedule: Pick<ArrivalSchedule, 'offsetAt'> | undefined,
): SessionSource {
  const shares = classes.map((c) => c.share);
  const sessionClass = classDealer(options.seed, shares, 'session-class');
  const warmupClass = classDealer(options.seed, shares);
  return {
    session(s, cls) {
      const k = cls ?? sessionClass(s);
      return taggedSession(workloads[k]!.sessions!.session(s), classes[k]!);
    },
    warmup(w) {
      const k = warmupClass(w);
      return taggedSession(workloads[k]!.sessions!.warmup(w), classes[k]!);
    },
    ...(schedule ? { startMs: (s: number) => schedule.offsetAt(s) } : {}),
  };
}
