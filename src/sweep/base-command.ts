/**
 * What a sweep's points share, from its flags: the base run configuration (resolved as for
 * `goodput run`, less the load the sweep sets per point), whether the loads are multi-turn
 * sessions, and for a trace its mean rate; refuses the combinations no sweep can run right.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import {
  type BenchmarkFlags,
  flagReplacedByTrace,
  type ParsedArgs,
  resolveBenchmarkConfig,
} from '../flags/index.js';
import type { BenchmarkConfig } from '../runner/index.js';
import { loadTrace } from '../workload/index.js';
import { type SweepBase, traceMeanRate } from './point-load.js';
import type { SweepPlan } from './run.js';

/** Turns of a dataset's conversations are not known before the run: the default request count assumes this many. */
const DATASET_TURNS = 3;

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Flags that shape sessions: in a sweep they ask for sessions without a number the points replace anyway. */
const SESSION_SHAPE = [
  ['turns', '--turns'],
  ['turnTokens', '--turn-tokens'],
  ['thinkTime', '--think-time'],
  ['userRate', '--user-rate'],
] as const;

/** A sweep's parsed flags as far as its base reads them: the benchmark's, with its list of concurrencies. */
type SweepBaseFlags = Omit<BenchmarkFlags, 'concurrency'> & { concurrency?: string[] };

/**
 * The benchmark flags without the sweep's own (so resolveBenchmarkConfig sees a plain run);
 * a session-shaping flag alone stands for `--sessions 1` (each point sets the number).
 */
function benchmarkArgs(args: ParsedArgs<SweepBaseFlags>): {
  args: ParsedArgs<BenchmarkFlags>;
  impliedBy?: string;
} {
  // The sweep sets concurrency or rate per point; --max-concurrency caps its points.
  const { concurrency: _list, maxConcurrency: _cap, ...options }: SweepBaseFlags = args.options;
  const given = new Set([...args.given].filter((k) => k !== 'concurrency' && k !== 'maxConcurrency'));
  const shape = SESSION_SHAPE.find(([key]) => given.has(key));
  if (shape && !given.has('sessions') && !given.has('sessionRate') && !given.has('trace')) {
    options.sessions = 1;
    given.add('sessions');
    return { args: { options, positionals: args.positionals, given }, impliedBy: shape[1] };
  }
  return { args: { options, positionals: args.positionals, given } };
}

export interface ResolvedSweepBase {
  config: BenchmarkConfig;
  sweep: SweepBase;
  /** What the user should know about how the flags were read. */
  notes: string[];
  /** A trace sweep: the trace and its mean rate, for sweep.json. */
  trace?: { path: string; meanRate?: number };
}

/** The base of every point (see module doc); throws E_USAGE naming the flag at fault. */
export async function resolveSweepBase(
  args: ParsedArgs<SweepBaseFlags>,
  plan: SweepPlan,
  env: Record<string, string | undefined>,
  cwd: string,
  signal?: AbortSignal,
): Promise<ResolvedSweepBase> {
  const given = args.given;
  if (given.has('timeScale')) {
    throw usage(
      '--time-scale cannot be used in a sweep',
      plan.mode === 'rate'
        ? "each rate point sets the trace's time scale (the trace's mean rate ÷ the point's rate): drop --time-scale and choose the rates with --rate-max R"
        : 'a concurrency sweep replays the trace closed loop, without its times: drop --time-scale',
    );
  }
  if (given.has('stages')) {
    throw usage(
      '--stages cannot be used in a sweep',
      "the sweep sets each point's load; run the shape with goodput run --stages",
    );
  }
  const plain = benchmarkArgs(args);
  const replaced = given.has('trace') ? flagReplacedByTrace(plain.args) : undefined;
  if (replaced !== undefined) {
    // As `goodput run` refuses it, with a hint for a sweep (whose points set the replay's pace).
    throw usage(
      `${replaced} cannot be used with --trace`,
      'a trace gives every request its prompt and output lengths, and each point of the sweep sets how fast it is replayed: drop the flag',
    );
  }
  const config = await resolveBenchmarkConfig(plain.args, env, cwd);
  const notes: string[] = [];
  const maxConcurrency = args.options.maxConcurrency;
  const sweep: SweepBase = { requestsGiven: given.has('requests') };
  if (maxConcurrency !== undefined) sweep.maxConcurrency = maxConcurrency;
  plan.sessions = config.load.sessions !== undefined;
  if (plan.sessions) {
    sweep.sessionTurns = config.workload.sessions?.turns?.max ?? DATASET_TURNS;
    const each = plan.mode === 'rate' ? 'the new sessions per second' : 'the sessions at once';
    const flag = given.has('sessions')
      ? '--sessions'
      : given.has('sessionRate')
        ? '--session-rate'
        : undefined;
    notes.push(
      flag
        ? `${flag} makes this a sweep of multi-turn sessions: each point sets ${each}, the ${flag} number is not used`
        : `${plain.impliedBy} makes this a sweep of multi-turn sessions: each point sets ${each}`,
    );
  }
  const t = config.workload.trace;
  if (t === undefined) return { config, sweep, notes };
  if (plan.mode === 'concurrency') {
    sweep.trace = {};
    return { config, sweep, notes, trace: { path: t.path } };
  }
  const trace = await loadTrace(t.path, {
    ...(t.format ? { format: t.format } : {}),
    ...(t.columns ? { columns: t.columns } : {}),
    ...(t.timeUnit ? { timeUnit: t.timeUnit } : {}),
    ...(signal ? { signal } : {}),
  });
  const count = Math.min(
    trace.count,
    (given.has('requests') ? config.load.requests : undefined) ?? trace.count,
  );
  const meanRate = traceMeanRate(trace.offsetMs, count);
  if (meanRate === undefined) {
    throw usage(
      `--trace ${t.path}: its ${count} request(s) have no time span, so it has no rate to scale`,
      'sweep the trace with --concurrency 1,2,4 (closed loop) instead of --rate-max',
    );
  }
  sweep.trace = { meanRate };
  return { config, sweep, notes, trace: { path: t.path, meanRate } };
}
