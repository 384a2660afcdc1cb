/**
 * A byte-level server-sent-events parser.
 *
 * Fed raw socket reads, it survives a split at any byte: inside a multi-byte UTF-8
 * character (lines are decoded only once complete, and CR/LF never occur inside a UTF-8
 * sequence), between the CR and the LF of a CRLF, inside a field name. It handles CR, LF
 * and CRLF line ends, comments (`: ping`), multi-line `data:`, several events in one read
 * and an event spread over many reads, and enforces a maximum event size.
 *
 * Hot path: line ends are found with `Buffer#indexOf` (native), each complete line of a
 * read is decoded straight from the read's buffer, and only an incomplete trailing line
 * is copied. No regex, no per-byte JavaScript loop.
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
    let nextLf = -2;
    let nextCr = -2;
    while (pos < len) {
      if (nextLf !== -1 && nextLf < pos) nextLf = chunk.indexOf(LF, pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = chunk.indexOf(CR, pos);
      const end = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextLf, nextCr);
      if (end === -1) {
        this.keepPartial(chunk, pos, len);
        return;
      }
      if (this.partial === null) {
        this.line(chunk, pos, end);
      } else {
        const line = Buffer.concat([this.partial, chunk.subarray(pos, end)]);
        this.partial = null;
        this.line(line, 0, line.length);
      }
      if (this.stopped) return;
      pos = end + 1;
      if (chunk[end] === CR) {
        if (pos < len) {
          if (chunk[pos] === LF) pos++;
        } else {
          this.skipLeadingLf = true;
        }
      }
    }
  }

  /**
   * The stream ended. A final line without a line end and data not yet closed by a blank
   * line are still delivered (lenient: some servers omit the last blank line); a consumer
   * that needs to know can treat events delivered from here as possibly cut.
   */
  end(): void {
    if (this.stopped) return;
    if (this.partial !== null) {
      const line = this.partial;
      this.partial = null;
      this.line(line, 0, line.length);
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

  private line(buf: Buffer, start: number, end: number): void {
    if (this.atStart) {
      // A UTF-8 byte-order mark may open the stream (the line is complete here, so never split).
      this.atStart = false;
      if (end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) {
        start += 3;
      }
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
    if (buf[start] === COLON) return; // comment, e.g. ": ping"
    this.fieldLines++;
    // Fast path for the line that matters: "data:".
    if (
      end - start >= 5 &&
      buf[start] === 100 &&
      buf[start + 1] === 97 &&
      buf[start + 2] === 116 &&
      buf[start + 3] === 97 &&
      buf[start + 4] === COLON
    ) {
      let from = start + 5;
      if (from < end && buf[from] === SPACE) from++;
      this.appendData(buf.toString('utf8', from, end));
      return;
    }
    let colon = buf.indexOf(COLON, start);
    if (colon === -1 || colon > end) colon = end;
    const field = buf.toString('latin1', start, colon);
    let from = colon + 1;
    if (from < end && buf[from] === SPACE) from++;
    const value = from < end ? buf.toString('utf8', from, end) : '';
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
