/**
 * Keeping the API key out of everything that is printed or written: a safe description for
 * doctor, checks for whitespace pasted around a key, and URL scrubbing (text is redacted by
 * util's one redactor, `makeRedactor`).
 *
 * @module
 */

import { makeRedactor, REDACTED } from '../util/index.js';

/** What doctor may say about a key: never the key itself. */
export interface KeyInspection {
  /** The key as it should be used: surrounding whitespace removed. */
  key: string;
  /** Problems with the raw value, in words (empty when there are none). */
  problems: string[];
}

/**
 * A description of a key safe to print: its length, and its last four characters only when
 * the key is long enough (12+) that they give little away.
 *
 * @example
 * describeKey('key-abcdefghijklmnop1234'); // "23 characters, ending …1234"
 */
export function describeKey(key: string | undefined): string {
  if (key === undefined || key === '') return 'no key';
  const n = key.length;
  const length = `${n} character${n === 1 ? '' : 's'}`;
  return n >= 12 ? `${length}, ending …${key.slice(-4)}` : length;
}

function describeWhitespace(ws: string): string {
  const names: string[] = [];
  if (/\r?\n/.test(ws)) names.push('a newline');
  if (/\r(?!\n)/.test(ws)) names.push('a carriage return');
  if (/\t/.test(ws)) names.push('a tab');
  if (/ /.test(ws)) names.push('spaces');
  if (names.length === 0) names.push('whitespace');
  return names.join(' and ');
}

/**
 * Checks a raw key for the usual paste accidents: surrounding whitespace or a newline,
 * inner whitespace, quotes, a "Bearer " prefix. Returns the trimmed key and the problems.
 */
export function inspectKey(raw: string): KeyInspection {
  const problems: string[] = [];
  const key = raw.trim();
  if (key === '')
    return { key, problems: [raw === '' ? 'the key is empty' : 'the key is empty (only whitespace)'] };
  const leading = raw.slice(0, raw.length - raw.trimStart().length);
  const trailing = raw.slice(raw.trimEnd().length);
  if (leading) problems.push(`the key starts with ${describeWhitespace(leading)} (removed for use)`);
  if (trailing) problems.push(`the key ends with ${describeWhitespace(trailing)} (removed for use)`);
  if (/\s/.test(key)) problems.push('the key contains whitespace inside it');
  if (/^(['"]).*\1$/.test(key)) problems.push('the key is wrapped in quotes');
  if (hasBearerPrefix(key)) problems.push('the key starts with "Bearer ": give the key alone');
  return { key, problems };
}

/** True when a key carries the "Bearer " of the header with it (goodput adds that itself). */
export function hasBearerPrefix(key: string | undefined): boolean {
  return key !== undefined && /^bearer\s/i.test(key.trim());
}

const SECRET_PARAM = /key|token|secret|sig|password|auth/i;

/**
 * A URL safe to print and record: user name and password removed, values of query
 * parameters that look like credentials replaced. Text that is not a URL is returned as is.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (parsed.username || parsed.password) {
    parsed.username = '';
    parsed.password = '';
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      parsed.searchParams.set(name, 'REDACTED');
      changed = true;
    }
  }
  if (!changed) return url;
  const text = parsed.toString();
  // URL adds a trailing slash to a bare origin; keep the caller's form.
  return !url.endsWith('/') && parsed.pathname === '/' && !parsed.search ? text.replace(/\/$/, '') : text;
}

/** Flags whose whole value is a secret. */
const SECRET_FLAGS = new Set(['--api-key']);
/** Flags whose value is `Name: value`: the value is kept out, the name stays. */
const HEADER_FLAGS = new Set(['--header', '-H']);

function redactHeaderValue(text: string): string {
  const colon = text.indexOf(':');
  return colon < 0 ? REDACTED : `${text.slice(0, colon)}: ${REDACTED}`;
}

/**
 * A command line safe to record: the value of `--api-key` replaced, every `--header` value
 * replaced (its name kept), URLs stripped of credentials (`redactUrl`), and every occurrence of
 * `secrets` (the key, secret header values, whatever a config file or the environment gave)
 * removed with the fragment-aware redactor of `util/redact.ts`.
 *
 * @example
 * redactCommandLine(['goodput', 'run', '--api-key', 'sk-1', '--url', 'http://u:p@h:8000'], ['sk-1']);
 * // ['goodput', 'run', '--api-key', '[REDACTED]', '--url', 'http://h:8000']
 */
export function redactCommandLine(
  argv: readonly string[],
  secrets: ReadonlyArray<string | undefined> = [],
): string[] {
  const scrub = makeRedactor(secrets);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    const flag = eq > 0 ? word.slice(0, eq) : word;
    if (SECRET_FLAGS.has(flag) || HEADER_FLAGS.has(flag)) {
      const hide = SECRET_FLAGS.has(flag) ? () => REDACTED : redactHeaderValue;
      if (eq > 0) out.push(`${flag}=${hide(word.slice(eq + 1))}`);
      else {
        out.push(word);
        if (i + 1 < argv.length) out.push(hide(argv[++i]!));
      }
      continue;
    }
    const value = eq > 0 ? word.slice(eq + 1) : word;
    const clean = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? redactUrl(value) : value;
    out.push(scrub(eq > 0 ? `${flag}=${clean}` : clean));
  }
  return out;
}
