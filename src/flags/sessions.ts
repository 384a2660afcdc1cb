/**
 * The multi-turn session flags: `--sessions N` / `--session-rate R` (how sessions start),
 * `--user-rate R`, `--turns N|MIN-MAX`, `--turn-tokens N`, `--think-time DUR|exp:DUR`, turned
 * into the session parts of a BenchmarkConfig (LoadSpec.sessions, BenchmarkWorkload.sessions).
 *
 * @module
 */

import { parseDuration } from '../config/index.js';
import { GoodputError } from '../errors.js';
import { type BenchmarkConfig, DEFAULT_LOAD } from '../runner/config.js';
import type { SessionLoadSpec, SessionWorkloadSpec } from '../types.js';
import type { BenchmarkFlags } from './options/index.js';

/** Turns per synthetic session when --turns is not given. */
export const DEFAULT_TURNS = 3;

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** `--turns 3` or `--turns 2-6`. */
export function parseTurns(text: string): { min: number; max: number } {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  const min = m ? Number(m[1]) : Number.NaN;
  const max = m?.[2] !== undefined ? Number(m[2]) : min;
  if (!(min >= 1 && max >= min)) {
    throw usage(
      `--turns expects N or MIN-MAX with 1 ≤ MIN ≤ MAX, got '${text}'`,
      'e.g. --turns 3 or --turns 2-6',
    );
  }
  return { min, max };
}

/** `--think-time 2s` (fixed) or `--think-time exp:2s` (exponential with that mean). */
export function parseThinkTime(text: string): NonNullable<SessionWorkloadSpec['thinkTime']> {
  const exp = /^\s*exp(?:onential)?:/i.exec(text);
  const meanMs = parseDuration(exp ? text.slice(exp[0].length) : text, '--think-time');
  return { meanMs, dist: exp ? 'exponential' : 'fixed' };
}

/**
 * Applies the session flags to a config whose load and workload are already resolved.
 * Throws E_USAGE for combinations that mean nothing (a session flag without sessions, both
 * ways of starting sessions, sessions with --concurrency or --rate, ...).
 */
export function applySessionFlags(
  o: Pick<BenchmarkFlags, 'sessions' | 'sessionRate' | 'userRate' | 'turns' | 'turnTokens' | 'thinkTime'>,
  given: ReadonlySet<string>,
  config: BenchmarkConfig,
): void {
  const { sessions, sessionRate, userRate, turns, turnTokens, thinkTime: think } = o;
  if (sessions === undefined && sessionRate === undefined) {
    const stray = [
      userRate !== undefined && '--user-rate',
      turns !== undefined && '--turns',
      turnTokens !== undefined && '--turn-tokens',
      think !== undefined && '--think-time',
    ].filter(Boolean);
    if (stray.length > 0) {
      throw usage(
        `${stray.join(', ')} shape${stray.length === 1 ? 's' : ''} multi-turn sessions, but none were asked for`,
        'add --sessions N (N conversations at once) or --session-rate R (new conversations per second)',
      );
    }
    return;
  }
  if (sessions !== undefined && sessionRate !== undefined) {
    throw usage(
      '--sessions (closed loop over sessions) and --session-rate (open loop) cannot be used together',
      'choose one: --sessions N conversations at once, or --session-rate R new ones per second',
    );
  }
  const flag = sessions !== undefined ? '--sessions' : '--session-rate';
  for (const [key, name] of [
    ['concurrency', '--concurrency'],
    ['rate', '--rate'],
  ] as const) {
    if (given.has(key)) {
      throw usage(
        `${flag} and ${name} cannot be used together`,
        `sessions set the load themselves; cap requests in flight with --max-concurrency`,
      );
    }
  }
  if (userRate !== undefined && think !== undefined) {
    throw usage(
      '--user-rate and --think-time cannot be used together',
      "choose one: a fixed gap between a user's turns (--user-rate), or a pause after each reply (--think-time)",
    );
  }
  if (config.workload.trace !== undefined) {
    throw usage(
      `${flag} and --trace cannot be used together`,
      'a trace replays its own requests at its own times; a conversation file replays with --dataset FILE --sessions N',
    );
  }
  if (config.workload.cancelAfterMs !== undefined) {
    throw usage(
      '--cancel-after-ms does not apply to sessions',
      'a cancelled turn has no reply to carry on with; drop --cancel-after-ms',
    );
  }
  const dataset = config.workload.datasetPath !== undefined;
  if (dataset && (turns !== undefined || turnTokens !== undefined)) {
    throw usage(
      `${turns !== undefined ? '--turns' : '--turn-tokens'} applies to synthetic sessions only`,
      'a dataset gives each conversation its own turns; drop the flag or the --dataset',
    );
  }

  const workload: SessionWorkloadSpec = {};
  const range = turns !== undefined ? parseTurns(turns) : { min: DEFAULT_TURNS, max: DEFAULT_TURNS };
  if (!dataset) workload.turns = range;
  if (turnTokens !== undefined) workload.turnTokens = turnTokens;
  if (think !== undefined) workload.thinkTime = parseThinkTime(think);
  config.workload.sessions = workload;

  const load = config.load;
  const spec: SessionLoadSpec = {};
  delete load.rate;
  delete load.concurrency;
  if (sessions !== undefined) {
    spec.concurrency = sessions;
    load.mode = 'closed';
    load.concurrency = sessions;
    delete load.burstiness;
  } else {
    spec.rate = sessionRate!;
    load.mode = 'open';
    load.burstiness ??= 1;
  }
  if (userRate !== undefined) spec.userRate = userRate;
  load.sessions = spec;
  if (!given.has('requests') && !given.has('duration')) {
    // About ten seconds' worth of sessions, as for single-turn runs.
    load.requests =
      sessions !== undefined
        ? Math.max(DEFAULT_LOAD.requests, sessions * range.max * 2)
        : Math.max(DEFAULT_LOAD.requests, Math.ceil(sessionRate! * 10 * range.max));
  }
}
