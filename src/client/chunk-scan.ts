/**
 * The common stream chunk read without JSON.parse: one pass over the event's text that
 * checks it is valid JSON and notes where the few fields the metrics need are (choices[0]'s
 * delta content or text, its finish_reason), building no object. JSON.parse of every chunk,
 * and the garbage of the objects it builds, was most of the client's CPU per chunk.
 *
 * The scan answers only for the common shape: a JSON object whose `error`, `usage` and
 * `timings` are absent or null, whose `choices[0]` (when there is one) is an object without
 * `message`, and whose delta has no `tool_calls`, `reasoning_content` or `reasoning`. For
 * anything else — those fields, a key of interest written twice or with an escape, a nesting
 * deeper than 64, or text that is not JSON at all — it declines, and the event takes the full
 * path (JSON.parse, stream-events.ts), which also says what was wrong. It is stricter than
 * JSON, never looser: whatever it accepts, JSON.parse accepts and reads the same
 * (chunk-scan.test.ts checks this against JSON.parse, mutations and cuts of every event
 * included).
 *
 * Most chunks are not even scanned: `ChunkReader` reads each chunk of a stream against the
 * last one scanned, whose text around the content a server repeats chunk after chunk.
 *
 * No allocation per chunk: a scanner's result is one object reused by each of its scans (read
 * it before the next); its state lives in its fields (module-level `let`s cost a check on every
 * access in the loops).
 *
 * @module
 */

import { IN_OTHER, isSpace, JsonScanner, MAX_DEPTH, QUOTE } from './json-scan.js';

/** What a scan found; valid until the next scan. */
export interface ScannedChunk {
  /** There is a choices[0] (an object); else the event carried no choices. */
  hasChoice: boolean;
  /** choices[0]'s delta content (chat) or text (completions), when it is a string. */
  text: string | undefined;
  /** choices[0].finish_reason, when it is a string. */
  finish: string | undefined;
  /** Where the text's string literal is in the event (its opening quote, and after its closing one); -1 when none. */
  textStart: number;
  textEnd: number;
}

// What an object's keys mean where it sits: only these contexts have keys of interest.
const IN_TOP = 1;
const IN_CHOICE = 2;
const IN_DELTA = 3;

// Bits of the keys of interest, per context (a distinct bit per key, so a duplicate is seen).
const K_CHOICES = 1;
const K_ERROR = 2;
const K_FINISH = 4;
const K_DELTA = 8;
const K_TEXT = 16; // delta.content (chat) or choice.text (completions)
const K_USAGE = 32;
const K_TIMINGS = 64;

/** One pass over an event's text (see the module comment). */
class ChunkScanner extends JsonScanner {
  readonly result: ScannedChunk = {
    hasChoice: false,
    text: undefined,
    finish: undefined,
    textStart: -1,
    textEnd: -1,
  };
  private completions = false;
  // Spans (start at the opening quote, end after the closing one) of the strings of interest.
  private textStart = -1;
  private textEnd = -1;
  private textEscaped = false;
  private finishStart = -1;
  private finishEnd = -1;
  private finishEscaped = false;

  /** Scan one event; the result, or undefined when it needs the full parse. */
  scan(data: string, api: 'chat' | 'completions'): ScannedChunk | undefined {
    this.src = data;
    this.pos = 0;
    this.completions = api === 'completions';
    this.textStart = -1;
    this.finishStart = -1;
    const result = this.result;
    result.hasChoice = false;
    this.skipWhitespace();
    let ok = data.charCodeAt(this.pos) === 123 /* { */ && this.scanObject(IN_TOP, 1);
    if (ok) {
      this.skipWhitespace();
      ok = this.pos === data.length;
    }
    if (ok) {
      const start = this.textStart;
      result.textStart = start;
      result.textEnd = start < 0 ? -1 : this.textEnd;
      result.text = start < 0 ? undefined : this.decode(start, this.textEnd, this.textEscaped);
      result.finish =
        this.finishStart < 0 ? undefined : this.decode(this.finishStart, this.finishEnd, this.finishEscaped);
    }
    this.src = '';
    return ok ? result : undefined;
  }

  /**
   * `data` with the string body at [from, to) in place of the text of the event last scanned
   * (the caller checked the text around it is the same): the result, or undefined when that
   * body is not a valid JSON string body.
   */
  withText(data: string, from: number, to: number): ScannedChunk | undefined {
    this.src = data;
    const ok = this.stringBody(from, to);
    this.src = '';
    if (!ok) return undefined;
    const result = this.result;
    result.textStart = from - 1;
    result.textEnd = to + 1;
    result.text = this.escaped ? (JSON.parse(data.slice(from - 1, to + 1)) as string) : data.slice(from, to);
    return result;
  }

  private decode(start: number, end: number, hasEscape: boolean): string {
    const src = this.src;
    return hasEscape ? (JSON.parse(src.slice(start, end)) as string) : src.slice(start + 1, end - 1);
  }

  /** The bit of a key of interest in `ctx`, 0 for others, -1 for a key that sends the event to the full parse. */
  protected interest(ctx: number, s: number, e: number): number {
    if (ctx === IN_TOP) {
      if (this.keyIs(s, e, 'choices')) return K_CHOICES;
      if (this.keyIs(s, e, 'error')) return K_ERROR;
      if (this.keyIs(s, e, 'usage')) return K_USAGE;
      if (this.keyIs(s, e, 'timings')) return K_TIMINGS;
      return 0;
    }
    if (ctx === IN_CHOICE) {
      if (this.keyIs(s, e, 'finish_reason')) return K_FINISH;
      if (this.completions) return this.keyIs(s, e, 'text') ? K_TEXT : 0;
      if (this.keyIs(s, e, 'delta')) return K_DELTA;
      if (this.keyIs(s, e, 'message')) return -1;
      return 0;
    }
    // IN_DELTA
    if (this.keyIs(s, e, 'content')) return K_TEXT;
    if (
      this.keyIs(s, e, 'tool_calls') ||
      this.keyIs(s, e, 'reasoning_content') ||
      this.keyIs(s, e, 'reasoning')
    )
      return -1;
    return 0;
  }

  /** The value of a key of interest. */
  protected scanInteresting(ctx: number, bit: number, depth: number): boolean {
    const src = this.src;
    const c = src.charCodeAt(this.pos);
    if (bit === K_CHOICES) {
      if (c !== 91) return this.scanValue(IN_OTHER, depth); // not a list: no choices
      const at = this.pos;
      if (!this.scanArray(IN_CHOICE, depth + 1)) return false;
      // choices[0] must be an object (else the full path reports it): look at the first element.
      let first = at + 1;
      while (isSpace(src.charCodeAt(first))) first++;
      if (src.charCodeAt(first) === 93) return true;
      if (src.charCodeAt(first) !== 123) return false;
      this.result.hasChoice = true;
      return true;
    }
    if (ctx === IN_TOP) return c === 110 && this.literal('null'); // error, usage, timings: only null here
    if (bit === K_DELTA) {
      // A delta that is not an object carries nothing (null falls back to message, declined above).
      if (c === 123) return depth < MAX_DEPTH && this.scanObject(IN_DELTA, depth + 1);
      if (c === 91) return false;
      return this.scanValue(IN_OTHER, depth);
    }
    // finish_reason, content, text: strings are noted, any other value is scanned and ignored.
    if (c !== QUOTE) return this.scanValue(IN_OTHER, depth);
    const start = this.pos;
    if (!this.scanString()) return false;
    if (bit === K_FINISH) {
      this.finishStart = start;
      this.finishEnd = this.pos;
      this.finishEscaped = this.escaped;
    } else {
      this.textStart = start;
      this.textEnd = this.pos;
      this.textEscaped = this.escaped;
    }
    return true;
  }
}

const shared = new ChunkScanner();

/**
 * Scan one stream event's data (chat or completions). Returns the shared result, or undefined
 * when the event needs the full parse.
 */
export function scanChunk(data: string, api: 'chat' | 'completions'): ScannedChunk | undefined {
  return shared.scan(data, api);
}

/**
 * The chunks of one stream, read against the last one scanned: servers send every content
 * chunk of a stream with the same text around its content (id, model, index, the nulls), so a
 * chunk that starts and ends as the last scanned one did, with a valid JSON string body
 * between, is that chunk with another content — valid JSON, the same fields — and is read
 * with two comparisons and a look at its content (some ten times cheaper than JSON.parse). Any
 * other chunk is scanned, and becomes the template when it has a text.
 */
/** Chunks of a stream scanned (not read against the last one) before the reader gives way to JSON.parse. */
const MAX_MISSES = 4;

export class ChunkReader {
  private readonly scanner = new ChunkScanner();
  private prefix = '';
  private suffix = '';
  private finish: string | undefined;
  private hits = 0;
  private misses = 0;

  constructor(private readonly api: 'chat' | 'completions') {}

  /** What scanChunk returns for this event (this reader's result), or undefined when it needs the full parse. */
  read(data: string): ScannedChunk | undefined {
    const prefix = this.prefix;
    const suffix = this.suffix;
    // slice and === (a memory compare) is several times faster than startsWith on V8.
    if (
      prefix.length > 0 &&
      data.length >= prefix.length + suffix.length &&
      data.slice(0, prefix.length) === prefix &&
      data.slice(data.length - suffix.length) === suffix
    ) {
      const found = this.scanner.withText(data, prefix.length, data.length - suffix.length);
      if (found !== undefined) {
        this.hits++;
        found.hasChoice = true;
        found.finish = this.finish;
        return found;
      }
    }
    // A stream whose chunks differ beyond their content (a field of random padding, a time per
    // chunk) is left to JSON.parse, which is faster than the scan on its own.
    if (this.misses >= MAX_MISSES && this.misses > this.hits) return undefined;
    this.misses++;
    const scanned = this.scanner.scan(data, this.api);
    if (scanned !== undefined && scanned.textStart >= 0) {
      // Kept flat (copies, not slices of the read they came from): compared once per chunk.
      this.prefix = flat(data.slice(0, scanned.textStart + 1));
      this.suffix = flat(data.slice(scanned.textEnd - 1));
      this.finish = scanned.finish;
    }
    return scanned;
  }
}

/** A copy of a string that holds no reference to the one it was cut from (lone surrogates kept). */
function flat(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}
