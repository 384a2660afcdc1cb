/**
 * Removing secrets (API keys) from text that came from elsewhere (a server's error body, an
 * echoed header, a stream event) before the text is cut, stored or printed.
 *
 * A key must not survive whole nor in part: a server may echo a key that it truncated, and a
 * cut may fall inside the key. So besides every whole occurrence, any run of text that is a
 * prefix or a suffix of the key and at least {@link MIN_SECRET_FRAGMENT} characters long (or
 * the whole key, when it is shorter) is replaced too.
 *
 * @module
 */

/** What a removed secret (or part of one) is replaced with. */
export const REDACTED = '[REDACTED]';

/** The shortest part of a key that is removed when it appears on its own. */
export const MIN_SECRET_FRAGMENT = 6;

/** A function that removes the given secrets from a text. */
export type Redactor = (text: string) => string;

/** The redactor that removes nothing (no key configured). */
export const noRedaction: Redactor = (text) => text;

function removeFragments(text: string, secret: string): string {
  const anchorLen = Math.min(secret.length, MIN_SECRET_FRAGMENT);
  if (anchorLen === 0 || text.length < anchorLen) return text;
  const head = secret.slice(0, anchorLen);
  const tail = secret.slice(secret.length - anchorLen);
  // Mark ranges [start, end) to remove, then rebuild once.
  const ranges: Array<[number, number]> = [];
  // Prefixes (and whole keys): start at an occurrence of the head and extend while it matches.
  for (let i = text.indexOf(head); i !== -1; i = text.indexOf(head, i + 1)) {
    let n = anchorLen;
    while (n < secret.length && i + n < text.length && text[i + n] === secret[n]) n++;
    ranges.push([i, i + n]);
  }
  // Suffixes: end at an occurrence of the tail and extend backwards while it matches.
  for (let j = text.indexOf(tail); j !== -1; j = text.indexOf(tail, j + 1)) {
    const end = j + anchorLen;
    let n = anchorLen;
    while (n < secret.length && end - n - 1 >= 0 && text[end - n - 1] === secret[secret.length - n - 1]) n++;
    ranges.push([end - n, end]);
  }
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [s, e] of ranges) {
    if (e <= at) continue;
    if (s > at) out += text.slice(at, s);
    if (s >= at) out += REDACTED;
    at = Math.max(at, e);
  }
  return out + text.slice(at);
}

/**
 * A redactor for the given secrets (undefined and empty ones are ignored; each is used raw
 * and trimmed). Apply it to every string that comes from a server *before* cutting it.
 *
 * @example
 * const r = makeRedactor(['my-secret-key-abcdefghij']);
 * r('echo: Bearer my-secret-key'); // "echo: Bearer [REDACTED]" (a 6+ character prefix)
 */
export function makeRedactor(secrets: ReadonlyArray<string | undefined>): Redactor {
  const list = [
    ...new Set(secrets.flatMap((s) => (s ? [s, s.trim()] : [])).filter((s) => s.length > 0)),
  ].sort((a, b) => b.length - a.length);
  if (list.length === 0) return noRedaction;
  return (text) => {
    let out = text;
    for (const s of list) out = removeFragments(out, s);
    return out;
  };
}

/**
 * Redacts, then cuts to at most `max` characters (adding "…" when cut). The order matters:
 * cutting first could leave part of a key that redaction no longer recognises.
 */
export function redactAndCut(text: string, max: number, redactor: Redactor): string {
  const clean = redactor(text);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** Applies a redactor to every string inside a JSON-like value (a copy is returned). */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (redactor === noRedaction) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactor(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[redactor(k)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
