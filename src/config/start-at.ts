/**
 * `--start-at TIME`: the shared wall-clock instant at which every shard of a run starts its
 * measured load. An ISO 8601 time with a zone (`2026-03-14T09:15:00Z`, `…+01:00`), Unix
 * milliseconds, or `+DURATION` from now (`+2s`, `+1m`), resolved once, when read.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { parseDuration } from './parse.js';

const HINT =
  'give an ISO time with its zone (2026-03-14T09:15:00Z), Unix milliseconds, or +DURATION from now (+2s, +1m); every shard must get the same instant';

/**
 * How far in the past an instant may be: a shard started a little late still runs (it says
 * by how much), but an instant minutes or years ago is a typo (2001 for 2026) that would
 * merge into one run of decades.
 */
export const START_AT_PAST_LIMIT_MS = 5 * 60_000;

/**
 * Unix milliseconds of the instant `text` names; `nowMs` anchors `+DURATION`. With `past:
 * 'refuse'` (a run told when to start), an instant more than START_AT_PAST_LIMIT_MS ago is a
 * usage error; a manifest written for later (emit) takes any instant.
 */
export function parseStartAt(
  text: string,
  nowMs: number,
  flag = '--start-at',
  past: 'refuse' | 'accept' = 'refuse',
): number {
  const ms = readInstant(text.trim(), nowMs, flag);
  if (past === 'refuse' && ms < nowMs - START_AT_PAST_LIMIT_MS) {
    throw new GoodputError(
      'E_USAGE',
      `${flag} ${text.trim()} is ${new Date(ms).toISOString()}, ${describeAgo(nowMs - ms)} ago`,
      `give an instant in the future (or at most ${START_AT_PAST_LIMIT_MS / 60_000} minutes ago), e.g. +30s; ${HINT}`,
    );
  }
  return ms;
}

function describeAgo(ms: number): string {
  const days = ms / 86_400_000;
  if (days >= 365) return `${(days / 365.25).toFixed(1)} years`;
  if (days >= 1) return `${days.toFixed(1)} days`;
  return `${(ms / 60_000).toFixed(1)} minutes`;
}

function readInstant(t: string, nowMs: number, flag: string): number {
  if (t.startsWith('+')) return nowMs + parseDuration(t.slice(1), flag);
  if (/^\d{12,}$/.test(t)) return Number(t);
  // A time without a zone would mean a different instant on each machine: refused.
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(t);
  const ms = zoned ? Date.parse(t) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new GoodputError(
      'E_USAGE',
      `${flag}: cannot read '${t}' as an instant${/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(t) ? ' (no time zone: add Z or an offset)' : ''}`,
      HINT,
    );
  }
  return ms;
}
