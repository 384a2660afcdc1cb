/**
 * A validating JSON scanner that builds nothing: it walks a text by JSON's grammar (RFC 8259:
 * strings with whole escapes and no control characters, numbers, literals, whitespace) and
 * says whether it is valid, calling a subclass for the keys it cares about. The subclass
 * (chunk-scan.ts) says, per object context, which keys matter (`interest`) and scans their
 * values itself (`scanInteresting`); every other value is only checked.
 *
 * Its state is in fields, not module-level `let`s (those cost a check on every access in the
 * loops).
 *
 * @module
 */

export const QUOTE = 34;
const BACKSLASH = 92;
/** Deeper nesting is declined (JSON.parse would take it; the scan need not). */
export const MAX_DEPTH = 64;
/** An object context with no keys of interest. */
export const IN_OTHER = 0;

function isHexCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isSimpleEscape(e: number): boolean {
  return (
    e === QUOTE ||
    e === BACKSLASH ||
    e === 47 /* / */ ||
    e === 98 /* b */ ||
    e === 102 /* f */ ||
    e === 110 /* n */ ||
    e === 114 /* r */ ||
    e === 116 /* t */
  );
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

export abstract class JsonScanner {
  protected src = '';
  protected pos = 0;
  /** Set by scanString and stringBody: the string just scanned held a backslash escape. */
  protected escaped = false;

  /**
   * The bit of a key of interest in object context `ctx` (a distinct bit per key, so a key
   * written twice is seen), 0 for any other key, -1 for a key that makes the scan decline.
   */
  protected abstract interest(ctx: number, keyStart: number, keyEnd: number): number;

  /** Scan the value of a key of interest (pos at its first character). */
  protected abstract scanInteresting(ctx: number, bit: number, depth: number): boolean;

  protected skipWhitespace(): void {
    const src = this.src;
    let pos = this.pos;
    while (isSpace(src.charCodeAt(pos))) pos++;
    this.pos = pos;
  }

  /** A string at pos (its opening quote): pos moves past it; false when it is not a valid one. */
  protected scanString(): boolean {
    const src = this.src;
    const n = src.length;
    let i = this.pos + 1;
    this.escaped = false;
    while (i < n) {
      const c = src.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        return true;
      }
      if (c === BACKSLASH) {
        this.escaped = true;
        const e = src.charCodeAt(i + 1);
        if (e === 117 /* u */) {
          if (!this.hex4(i + 2)) return false;
          i += 6;
        } else if (isSimpleEscape(e)) {
          i += 2;
        } else {
          return false;
        }
      } else if (c < 32) {
        return false;
      } else {
        i++;
      }
    }
    return false;
  }

  /** src[from, to) is the body of a JSON string (no bare quote or control character, whole escapes). */
  protected stringBody(from: number, to: number): boolean {
    const src = this.src;
    this.escaped = false;
    let i = from;
    while (i < to) {
      const c = src.charCodeAt(i);
      if (c === BACKSLASH) {
        this.escaped = true;
        const e = src.charCodeAt(i + 1);
        const width = e === 117 ? 6 : isSimpleEscape(e) ? 2 : 0;
        if (width === 0 || i + width > to || (width === 6 && !this.hex4(i + 2))) return false;
        i += width;
      } else if (c === QUOTE || c < 32) {
        return false;
      } else {
        i++;
      }
    }
    return true;
  }

  protected hex4(i: number): boolean {
    const src = this.src;
    return (
      isHexCode(src.charCodeAt(i)) &&
      isHexCode(src.charCodeAt(i + 1)) &&
      isHexCode(src.charCodeAt(i + 2)) &&
      isHexCode(src.charCodeAt(i + 3))
    );
  }

  protected digits(): boolean {
    const src = this.src;
    const start = this.pos;
    let pos = start;
    for (let c = src.charCodeAt(pos); c >= 48 && c <= 57; c = src.charCodeAt(pos)) pos++;
    this.pos = pos;
    return pos > start;
  }

  /** A number at pos, by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  protected scanNumber(): boolean {
    const src = this.src;
    if (src.charCodeAt(this.pos) === 45 /* - */) this.pos++;
    const first = src.charCodeAt(this.pos);
    if (first === 48 /* 0 */) this.pos++;
    else if (first < 49 || first > 57 || !this.digits()) return false;
    if (src.charCodeAt(this.pos) === 46 /* . */) {
      this.pos++;
      if (!this.digits()) return false;
    }
    const e = src.charCodeAt(this.pos);
    if (e === 101 || e === 69) {
      this.pos++;
      const sign = src.charCodeAt(this.pos);
      if (sign === 43 || sign === 45) this.pos++;
      if (!this.digits()) return false;
    }
    return true;
  }

  protected literal(word: string): boolean {
    if (!this.src.startsWith(word, this.pos)) return false;
    this.pos += word.length;
    return true;
  }

  /** Any value at pos, whose keys (if an object) mean `ctx`. */
  protected scanValue(ctx: number, depth: number): boolean {
    const c = this.src.charCodeAt(this.pos);
    if (c === QUOTE) return this.scanString();
    if (c === 123) return depth < MAX_DEPTH && this.scanObject(ctx, depth + 1);
    if (c === 91) return depth < MAX_DEPTH && this.scanArray(IN_OTHER, depth + 1);
    if (c === 116) return this.literal('true');
    if (c === 102) return this.literal('false');
    if (c === 110) return this.literal('null');
    return this.scanNumber();
  }

  /** An array at pos (its `[`); its first element's keys mean `firstCtx`, the others' nothing. */
  protected scanArray(firstCtx: number, depth: number): boolean {
    const src = this.src;
    this.pos++;
    this.skipWhitespace();
    if (src.charCodeAt(this.pos) === 93 /* ] */) {
      this.pos++;
      return true;
    }
    let ctx = firstCtx;
    for (;;) {
      this.skipWhitespace();
      if (!this.scanValue(ctx, depth)) return false;
      ctx = IN_OTHER;
      this.skipWhitespace();
      const c = src.charCodeAt(this.pos++);
      if (c === 93) return true;
      if (c !== 44 /* , */) return false;
    }
  }

  /** An object at pos (its `{`). */
  protected scanObject(ctx: number, depth: number): boolean {
    const src = this.src;
    this.pos++;
    this.skipWhitespace();
    if (src.charCodeAt(this.pos) === 125 /* } */) {
      this.pos++;
      return true;
    }
    let seen = 0;
    for (;;) {
      this.skipWhitespace();
      if (src.charCodeAt(this.pos) !== QUOTE) return false;
      const keyStart = this.pos + 1;
      if (!this.scanString()) return false;
      const keyEnd = this.pos - 1;
      // A key of interest could hide behind an escape: decline rather than decode keys.
      if (this.escaped && ctx !== IN_OTHER) return false;
      this.skipWhitespace();
      if (src.charCodeAt(this.pos) !== 58 /* : */) return false;
      this.pos++;
      this.skipWhitespace();
      const bit = ctx === IN_OTHER ? 0 : this.interest(ctx, keyStart, keyEnd);
      if (bit < 0) return false;
      if (bit > 0) {
        if ((seen & bit) !== 0) return false; // a key of interest twice: JSON.parse keeps the last
        seen |= bit;
        if (!this.scanInteresting(ctx, bit, depth)) return false;
      } else if (!this.scanValue(IN_OTHER, depth)) {
        return false;
      }
      this.skipWhitespace();
      const c = src.charCodeAt(this.pos++);
      if (c === 125) return true;
      if (c !== 44) return false;
    }
  }

  /** The key at [start, end) (quotes excluded) is `word`. */
  protected keyIs(start: number, end: number, word: string): boolean {
    return end - start === word.length && this.src.slice(start, end) === word;
  }
}
