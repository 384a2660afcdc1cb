/**
 * A byte-level server-sent-events parser.
 *
 * Fed raw socket reads, it survives a split at any byte: inside a multi-byte UTF-8
 * character (lines are decoded only once complete, and CR/LF never occur inside a UTF-8
 * sequence), between the CR and the LF of a CRLF, inside a field name. It handles CR, LF
 * and CRLF line ends, comments (`: ping`), multi-line `data:`, several events in one read
 * and an event spread over many reads, and enforces a maximum event size.
 *
 * Hot path: the complete lines of a read are found with `Buffer#lastIndexOf` (native) and
 * decoded with one UTF-8 decode per read; lines are then cut from that string with
 * `indexOf`/`slice` (no copy). Only an incomplete trailing line is kept as bytes (copied).
 * No regex, no per-byte JavaScript loop.
 *
 * @module
 */

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/** Called once per complete event with its data (multi-line data joined by "\n") and its type ("message" by default). */
export type SseEventHandler = (data: string, eventType: string) => void;

export interface SseParserOptions {
  /** Largest event (all its lines, bytes) accepted; beyond it the parser stops with an error. Default 4 MiB. */
  maxEventBytes?: number;
}

/**
 * Incremental SSE parser over bytes.
 *
 * @example
 * ```ts
 * const parser = new SseParser((data) => console.log(JSON.parse(data)));
 * parser.push(Buffer.from('data: {"a":1}\r\n\r'));
 * parser.push(Buffer.from('\n: ping\n\n'));
 * parser.end();
 * if (parser.error) console.error(parser.error);
 * ```
 */
export class SseParser {
  /** Set when the stream broke a rule (oversize event); the parser ignores further input. */
  error: string | undefined;
  /** Lines seen that are not comments and not blank (a body with none is not SSE). */
  fieldLines = 0;
  /** `data:` lines seen. */
  dataLines = 0;

  private readonly onEvent: SseEventHandler;
  private readonly maxEventBytes: number;
  private partial: Buffer | null = null;
  private skipLeadingLf = false;
  private atStart = true;
  private stopped = false;
  private data: string | null = null;
  private eventType = '';
  private eventBytes = 0;

  constructor(onEvent: SseEventHandler, options: SseParserOptions = {}) {
    this.onEvent = onEvent;
    this.maxEventBytes = options.maxEventBytes ?? 4 * 1024 * 1024;
  }

  /** Stop parsing: later input is ignored (the consumer found what it needed, or gave up). */
  stop(): void {
    this.stopped = true;
  }

  /** Feed one read of the stream. */
  push(input: Uint8Array): void {
    if (this.stopped) return;
    const chunk = Buffer.isBuffer(input)
      ? input
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    const len = chunk.length;
    if (len === 0) return;
    let pos = 0;
    if (this.skipLeadingLf) {
      this.skipLeadingLf = false;
      if (chunk[0] === LF) pos = 1;
    }
    if (this.partial !== null && pos < len) {
      // Finish the line begun in an earlier read (bytes: it may end inside a UTF-8 character).
      const end = firstLineEnd(chunk, pos);
      if (end === -1) {
        this.keepPartial(chunk, pos, len);
        return;
      }
      const bytes = Buffer.concat([this.partial, chunk.subarray(pos, end)]);
      this.partial = null;
      const text = bytes.toString('utf8');
      this.line(text, 0, text.length);
      if (this.stopped) return;
      pos = this.afterLineEnd(chunk, end);
    }
    if (pos >= len) return;
    // Every complete line of this read, decoded at once (line ends are ASCII, never inside a
    // UTF-8 sequence); the incomplete tail is kept as bytes.
    const lastLf = chunk.lastIndexOf(LF);
    const lastCr = chunk.lastIndexOf(CR);
    const last = Math.max(lastLf, lastCr);
    if (last < pos) {
      this.keepPartial(chunk, pos, len);
      return;
    }
    const text = chunk.toString('utf8', pos, last + 1);
    if (lastCr < pos) this.linesLf(text);
    else this.linesAny(text);
    if (this.stopped) return;
    if (last + 1 < len) this.keepPartial(chunk, last + 1, len);
    else if (chunk[last] === CR) this.skipLeadingLf = true;
  }

  /** Lines of a decoded text that ends with a line end and holds no CR. */
  private linesLf(text: string): void {
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl !== -1) {
      this.line(text, start, nl);
      if (this.stopped) return;
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
  }

  /** Lines of a decoded text that ends with a line end, with CR, LF or CRLF line ends. */
  private linesAny(text: string): void {
    const n = text.length;
    let start = 0;
    let nextLf = -2;
    let nextCr = -2;
    while (start < n) {
      if (nextLf !== -1 && nextLf < start) nextLf = text.indexOf('\n', start);
      if (nextCr !== -1 && nextCr < start) nextCr = text.indexOf('\r', start);
      const end = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextLf, nextCr);
      if (end === -1) return;
      this.line(text, start, end);
      if (this.stopped) return;
      start = end + 1;
      if (end === nextCr && start < n && text.charCodeAt(start) === LF) start++;
    }
  }

  /** Position after the line end at `end` (a CRLF pair counts as one; a CR at the end of the read may pair with the next). */
  private afterLineEnd(chunk: Buffer, end: number): number {
    let pos = end + 1;
    if (chunk[end] === CR) {
      if (pos < chunk.length) {
        if (chunk[pos] === LF) pos++;
      } else {
        this.skipLeadingLf = true;
      }
    }
    return pos;
  }

  /**
   * The stream ended. A final line without a line end and data not yet closed by a blank
   * line are still delivered (lenient: some servers omit the last blank line); a consumer
   * that needs to know can treat events delivered from here as possibly cut.
   */
  end(): void {
    if (this.stopped) return;
    if (this.partial !== null) {
      const text = this.partial.toString('utf8');
      this.partial = null;
      this.line(text, 0, text.length);
    }
    if (!this.stopped) this.dispatch();
    this.stopped = true;
  }

  private keepPartial(chunk: Buffer, pos: number, len: number): void {
    const pending = this.partial === null ? 0 : this.partial.length;
    if (this.eventBytes + pending + (len - pos) > this.maxEventBytes) {
      this.fail(`an event exceeded ${this.maxEventBytes} bytes`);
      return;
    }
    const rest = chunk.subarray(pos, len);
    this.partial = this.partial === null ? Buffer.from(rest) : Buffer.concat([this.partial, rest]);
  }

  private fail(message: string): void {
    this.error = message;
    this.stopped = true;
    this.partial = null;
    this.data = null;
  }

  private line(text: string, start: number, end: number): void {
    if (this.atStart) {
      // A byte-order mark may open the stream.
      this.atStart = false;
      if (start < end && text.charCodeAt(start) === 0xfeff) start++;
    }
    if (start === end) {
      this.dispatch();
      return;
    }
    this.eventBytes += end - start + 1;
    if (this.eventBytes > this.maxEventBytes) {
      this.fail(`an event exceeded ${this.maxEventBytes} bytes`);
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) return; // comment, e.g. ": ping"
    this.fieldLines++;
    // Fast path for the line that matters: "data:".
    if (first === 100 && text.startsWith('data:', start) && start + 5 <= end) {
      let from = start + 5;
      if (from < end && text.charCodeAt(from) === SPACE) from++;
      this.appendData(text.slice(from, end));
      return;
    }
    let colon = text.indexOf(':', start);
    if (colon === -1 || colon > end) colon = end;
    const field = text.slice(start, colon);
    let from = colon + 1;
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const value = from < end ? text.slice(from, end) : '';
    if (field === 'data') this.appendData(value);
    else if (field === 'event') this.eventType = value;
    // "id", "retry" and unknown fields are ignored, as the SSE spec says.
  }

  private appendData(value: string): void {
    this.dataLines++;
    this.data = this.data === null ? value : `${this.data}\n${value}`;
  }

  private dispatch(): void {
    this.eventBytes = 0;
    const data = this.data;
    if (data === null) {
      this.eventType = '';
      return;
    }
    const type = this.eventType === '' ? 'message' : this.eventType;
    this.data = null;
    this.eventType = '';
    this.onEvent(data, type);
  }
}

/** Index of the first CR or LF at or after `from`, or -1. */
function firstLineEnd(chunk: Buffer, from: number): number {
  const lf = chunk.indexOf(LF, from);
  const cr = chunk.indexOf(CR, from);
  return cr === -1 ? lf : lf === -1 ? cr : Math.min(lf, cr);
}
