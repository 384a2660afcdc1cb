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

/** Unix milliseconds of the instant `text` names; `nowMs` anchors `+DURATION`. */
export function parseStartAt(text: string, nowMs: number, flag = '--start-at'): number {
  const t = text.trim();
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
