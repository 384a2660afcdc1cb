/**
 * Parsing of small value grammars given on the command line: SLOs
 * (`ttft=500,tpot=100,e2el=5s`) and durations (`60s`, `5m`, `1m30s`; always with a unit).
 * Errors are GoodputError 'E_USAGE' naming the part that could not be read, with a hint.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { Slo } from '../types.js';
import { suggest } from './issues.js';

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION_HINT = 'write a number with a unit: 500ms, 60s, 5m, 2h, 30d, or 1m30s';

/**
 * What a bare number was probably meant as: seconds for small numbers (`--duration 5`,
 * `--timeout 30`), and for 100 and more milliseconds too (`--scrape-interval 500`).
 */
export function unitGuess(bare: string): string {
  const n = Number(bare);
  return n >= 100 ? `${bare}ms or ${bare}s` : `${bare}s`;
}

/**
 * Milliseconds of a duration: `500ms`, `60s`, `1.5m`, `2h`, `30d` or a sum such as `1m30s`.
 * A bare number is refused (was `--duration 5` five seconds or five milliseconds?), with
 * the hint "did you mean 5s?"; only `0` needs no unit. `flag` names the option in errors.
 *
 * @example
 * parseDuration('1m30s'); // 90000
 */
export function parseDuration(text: string, flag = '--duration'): number {
  const trimmed = text.trim();
  if (trimmed === '') throw new GoodputError('E_USAGE', `${flag}: empty duration`, DURATION_HINT);
  if (/^0*(\.0*)?$/.test(trimmed)) return 0;
  if (/^(\d+(\.\d*)?|\.\d+)$/.test(trimmed)) {
    throw new GoodputError(
      'E_USAGE',
      `${flag}: '${trimmed}' has no unit`,
      `did you mean ${unitGuess(trimmed)}? A duration needs a unit: ms, s, m, h or d (e.g. 500ms, 30s, 5m)`,
    );
  }
  const part = /(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Zµ]*)\s*/y;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    part.lastIndex = at;
    const m = part.exec(trimmed);
    if (!m) {
      throw new GoodputError(
        'E_USAGE',
        `${flag}: cannot read '${trimmed.slice(at)}' in '${trimmed}'${trimmed[at] === '-' ? ' (durations cannot be negative)' : ''}`,
        DURATION_HINT,
      );
    }
    const unit = m[2]!.toLowerCase();
    const factor = DURATION_UNITS[unit];
    if (factor === undefined) {
      const what =
        unit === ''
          ? `a number without a unit ('${m[1]}') inside '${trimmed}'`
          : `unknown unit '${m[2]}' in '${trimmed}'`;
      throw new GoodputError('E_USAGE', `${flag}: ${what}`, DURATION_HINT);
    }
    total += Number(m[1]) * factor;
    at = part.lastIndex;
  }
  return total;
}

const SLO_KEYS = { ttft: 'ttftMs', tpot: 'tpotMs', e2el: 'e2elMs', user_tps: 'userTps' } as const;
type SloName = keyof typeof SLO_KEYS;
const SLO_HINT =
  'write e.g. --slo ttft=500,tpot=100,e2el=5000 (milliseconds; 500ms and 5s also work), user_tps=20 (output tokens/s each user sees, at least)';

/** A rate bound: a positive number of tokens/s (a `tok/s` suffix is accepted). */
function parseRate(value: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(tok\/s)?$/i.exec(value.trim());
  if (!m) return undefined;
  const v = Number(m[1]);
  return v > 0 && Number.isFinite(v) ? v : undefined;
}

/** A latency bound: a number of ms, or with an `ms` / `s` suffix. Returns undefined when unreadable. */
function parseLatency(value: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)?$/i.exec(value.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * ((m[2] ?? 'ms').toLowerCase() === 's' ? 1000 : 1);
  return ms > 0 && Number.isFinite(ms) ? ms : undefined;
}

/**
 * Parses an SLO list into milliseconds: `ttft=500,tpot=100,e2el=5000`. Names are ttft,
 * tpot and e2el (a `_ms` suffix is accepted); values are ms, or take an `ms` / `s` suffix.
 *
 * @example
 * parseSlo('ttft=0.5s,tpot=100'); // { ttftMs: 500, tpotMs: 100 }
 */
export function parseSlo(text: string, flag = '--slo'): Slo {
  const slo: Slo = {};
  const parts = text.split(',').map((p) => p.trim());
  if (parts.every((p) => p === '')) throw new GoodputError('E_USAGE', `${flag}: empty SLO`, SLO_HINT);
  for (const part of parts) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) {
      throw new GoodputError('E_USAGE', `${flag}: '${part}' is not NAME=VALUE`, SLO_HINT);
    }
    const rawName = part.slice(0, eq).trim().toLowerCase();
    const name = rawName === 'user_tps' ? rawName : rawName.replace(/_ms$/, '');
    if (!(name in SLO_KEYS)) {
      const guess = suggest(name, Object.keys(SLO_KEYS));
      throw new GoodputError(
        'E_USAGE',
        `${flag}: unknown objective '${rawName}' in '${part}'${guess ? ` (did you mean '${guess}'?)` : ''}`,
        `objectives are ttft, tpot, e2el and user_tps; ${SLO_HINT}`,
      );
    }
    const key = SLO_KEYS[name as SloName];
    if (slo[key] !== undefined) {
      throw new GoodputError('E_USAGE', `${flag}: '${name}' is given twice`, SLO_HINT);
    }
    if (key === 'userTps') {
      const rate = parseRate(part.slice(eq + 1));
      if (rate === undefined) {
        throw new GoodputError(
          'E_USAGE',
          `${flag}: bad value '${part.slice(eq + 1).trim()}' for user_tps in '${part}': expected a positive number of output tokens/s`,
          SLO_HINT,
        );
      }
      slo.userTps = rate;
      continue;
    }
    const ms = parseLatency(part.slice(eq + 1));
    if (ms === undefined) {
      throw new GoodputError(
        'E_USAGE',
        `${flag}: bad value '${part.slice(eq + 1).trim()}' for ${name} in '${part}': expected a positive number of ms`,
        SLO_HINT,
      );
    }
    slo[key] = ms;
  }
  return slo;
}

/** The canonical text of an SLO, e.g. "ttft=500,tpot=100" (inverse of parseSlo). */
export function formatSlo(slo: Slo): string {
  return (Object.entries(SLO_KEYS) as [SloName, keyof Slo][])
    .filter(([, key]) => slo[key] !== undefined)
    .map(([name, key]) => `${name}=${slo[key]}`)
    .join(',');
}
