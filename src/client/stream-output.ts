/**
 * What one attempt's stream carried so far: the time and characters of each content chunk,
 * the text kept to count tokens, the usage, llama.cpp's timings, the finish reason, and the
 * stream's own state (`[DONE]` seen, events read, the first error object). `StreamAttempt`
 * (attempt.ts) is this plus the HTTP handler; the readers of events and bodies
 * (stream-events.ts, stream-end.ts) fill it.
 *
 * Hot path: a read is stamped once (`stampRead`, one clock call); its time is rounded only
 * when the read carried a chunk, once for all the chunks of that read.
 *
 * @module
 */

import type { Ms, ServerTimings } from '../types.js';
import type { Redactor } from '../util/index.js';
import { truncate } from './classify.js';
import type { OutputParts, Usage } from './events.js';

/** Round to microseconds (3 decimals of a millisecond). */
export function roundMs(ms: number): Ms {
  return Math.round(ms * 1000) / 1000;
}

/**
 * The most output text (characters) one attempt keeps to count its tokens: 4 Mi characters,
 * some million tokens, beyond any max_tokens. A reply longer than that is counted from the
 * kept part, scaled by the characters received (an estimate, stated in the README).
 */
export const MAX_KEPT_TEXT_CHARS = 4 * 1024 * 1024;

/** Characters of a non-JSON stream event or body kept in a message. */
const EVENT_EXCERPT_CHARS = 120;

export class StreamOutput {
  firstTokenMs: Ms | undefined;
  readonly chunkMs: Ms[] = [];
  readonly chunkChars: number[] = [];
  /** Reasoning characters of each chunk; created at the first chunk that carries reasoning. */
  chunkReasoningChars: number[] | undefined;
  /** Output text (answer and reasoning), kept to count tokens. */
  readonly texts: string[] | undefined;
  /** Reasoning text alone, kept to count reasoning tokens. */
  readonly reasoningTexts: string[] | undefined;
  /**
   * Characters of output text received, kept or not: past MAX_KEPT_TEXT_CHARS the text is no
   * longer kept (a server streaming 64 KiB deltas forever ran the heap out within the timeout),
   * and the count becomes an estimate (see record.ts).
   */
  textChars = 0;
  /** Characters of output text kept in `texts`. */
  keptChars = 0;
  /** The same two for reasoning text. */
  reasoningTextChars = 0;
  reasoningKeptChars = 0;
  /** Chunks that carried reasoning (the count of reasoning tokens without a tokenizer). */
  reasoningChunks = 0;
  usage: Usage | undefined;
  /** llama.cpp's per-request timings, when the server sent them (the last ones win). */
  timings: ServerTimings | undefined;
  finishReason: string | undefined;
  /** Tool calls the reply opened (events.ts counts them). */
  toolCalls = 0;
  /** `[DONE]` (or a Responses end event) was seen. */
  sawDone = false;
  /** Stream events that were JSON objects. */
  dataEvents = 0;
  /** Events with an empty choices list and no usage. */
  emptyChoiceEvents = 0;
  /** The message of the first error object the stream carried. */
  streamError: string | undefined;

  private readonly redact: Redactor;
  private readAt = 0;
  private readAtRounded = -1;

  constructor(keepText: boolean, redact: Redactor) {
    this.redact = redact;
    this.texts = keepText ? [] : undefined;
    this.reasoningTexts = keepText ? [] : undefined;
  }

  /** The time of the socket read being parsed now (every chunk it carries gets this time). */
  stampRead(now: number): void {
    this.readAt = now;
    this.readAtRounded = -1;
  }

  /** Server text for a message: the key removed first, then cut to one bounded line. */
  cut(text: string, max?: number): string {
    return truncate(this.redact(text), max);
  }

  /** A bounded excerpt of a body or event that was not what it should be. */
  excerpt(text: string): string {
    return this.cut(text, EVENT_EXCERPT_CHARS);
  }

  /** An event's answer text alone (the common case: one content delta): a chunk when it is not empty. */
  answer(value: unknown): void {
    const chars = this.take(value);
    if (chars > 0) this.chunk(chars, 0);
  }

  /** Output text of one event: a chunk when it carries any, with its reasoning characters apart. */
  output(parts: OutputParts): number {
    if (parts.toolCalls !== undefined) this.toolCalls += parts.toolCalls;
    let answer = 0;
    let reasoning = 0;
    for (const t of parts.answer) answer += this.take(t);
    for (const t of parts.reasoning) {
      reasoning += this.take(t);
      if (this.reasoningTexts && typeof t === 'string') {
        this.reasoningTextChars += t.length;
        if (this.reasoningKeptChars + t.length <= MAX_KEPT_TEXT_CHARS) {
          this.reasoningTexts.push(t);
          this.reasoningKeptChars += t.length;
        }
      }
    }
    if (answer + reasoning > 0) this.chunk(answer + reasoning, reasoning);
    return answer + reasoning;
  }

  private take(value: unknown): number {
    if (typeof value !== 'string' || value.length === 0) return 0;
    if (this.texts) {
      this.textChars += value.length;
      if (this.keptChars + value.length <= MAX_KEPT_TEXT_CHARS) {
        this.texts.push(value);
        this.keptChars += value.length;
      }
    }
    return value.length;
  }

  private chunk(chars: number, reasoningChars: number): void {
    if (this.readAtRounded < 0) this.readAtRounded = roundMs(this.readAt);
    if (this.firstTokenMs === undefined) this.firstTokenMs = this.readAtRounded;
    if (reasoningChars > 0) {
      this.reasoningChunks++;
      this.chunkReasoningChars ??= new Array<number>(this.chunkMs.length).fill(0);
    }
    this.chunkReasoningChars?.push(reasoningChars);
    this.chunkMs.push(this.readAtRounded);
    this.chunkChars.push(chars);
  }
}
