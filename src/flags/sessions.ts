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
  o: Record<string, unknown>,
  given: ReadonlySet<string>,
  config: BenchmarkConfig,
): void {
  const num = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  const sessions = num('sessions');
  const sessionRate = num('sessionRate');
  const userRate = num('userRate');
  const turns = str('turns');
  const turnTokens = num('turnTokens');
  const think = str('thinkTime');
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
  if (sessions !== undefined && !(Number.isInteger(sessions) && sessions >= 1))
    throw usage(`--sessions must be at least 1, got ${sessions}`, 'e.g. --sessions 16');
  if (sessionRate !== undefined && !(sessionRate > 0 && Number.isFinite(sessionRate)))
    throw usage(`--session-rate must be a finite number > 0, got ${sessionRate}`, 'e.g. --session-rate 2');
  if (userRate !== undefined && !(userRate > 0 && Number.isFinite(userRate)))
    throw usage(
      `--user-rate must be a finite number > 0, got ${userRate}`,
      'e.g. --user-rate 0.5 (a turn every 2 s)',
    );
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
  if (turnTokens !== undefined && !(turnTokens >= 1))
    throw usage(`--turn-tokens must be at least 1, got ${turnTokens}`, 'e.g. --turn-tokens 128');

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
