/**
 * How a response ended: what a finished event stream lacked (no events, no content, no end
 * marker), and the whole JSON body of a server that ignored `stream: true` (or of an
 * embeddings request), read into the attempt's output. Each returns the error that ends the
 * attempt, or undefined when the response was complete.
 *
 * @module
 */

import type { ApiKind, RequestError, RequestErrorCode } from '../types.js';
import { messageIn } from './classify.js';
import {
  chatParts,
  embeddingsProblem,
  impossibleUsage,
  type OutputParts,
  responsesBodyParts,
  responsesUsage,
  serverTimings,
  type Usage,
} from './events.js';
import type { SseParser } from './sse.js';
import { choiceProblem } from './stream-events.js';
import type { StreamOutput } from './stream-output.js';

function endError(code: RequestErrorCode, message: string): RequestError {
  return { code, message };
}

/** What an event stream that ended (parser.end() done) lacked, or undefined when it was complete. */
export function sseEndError(
  out: StreamOutput,
  parser: SseParser,
  bodyBytes: number,
): RequestError | undefined {
  if (parser.error !== undefined) return endError('BAD_SSE', parser.error);
  if (out.streamError !== undefined) return endError('STREAM_ERROR_OBJECT', out.streamError);
  if (out.dataEvents === 0 && !out.sawDone) {
    if (bodyBytes === 0) return endError('EMPTY_STREAM', 'the response body was empty');
    if (parser.dataLines === 0) {
      return endError('BAD_SSE', `no server-sent events in a ${bodyBytes}-byte body`);
    }
    return endError('EMPTY_STREAM', 'the stream carried no events');
  }
  const terminated = out.sawDone || out.finishReason !== undefined;
  if (out.chunkMs.length === 0) {
    if (out.emptyChoiceEvents > 0 && out.emptyChoiceEvents === out.dataEvents) {
      return endError('EMPTY_CHOICES', 'every stream event had an empty choices list');
    }
    if (!terminated) return endError('STREAM_TRUNCATED', 'the stream ended before any content');
    if (!out.usage?.completion_tokens)
      return endError('EMPTY_STREAM', 'the stream ended without any content');
    return undefined;
  }
  if (!terminated) return endError('STREAM_TRUNCATED', 'the stream ended without [DONE] or a finish_reason');
  return undefined;
}

/**
 * A whole JSON body (the server ignored stream: true and answered one document): its output is
 * one chunk, stamped when it was read (`now()` after the parse).
 */
export function readJsonBody(
  out: StreamOutput,
  text: string,
  api: ApiKind,
  now: () => number,
): RequestError | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch {
    return endError('BAD_JSON', `response is not JSON: ${out.excerpt(text)}`);
  }
  if (doc === null || typeof doc !== 'object') return endError('BAD_JSON', 'response is not an object');
  if (doc.error !== undefined && doc.error !== null) {
    return endError('STREAM_ERROR_OBJECT', out.cut(messageIn(doc) ?? text));
  }
  out.timings = serverTimings(doc);
  if (doc.usage && typeof doc.usage === 'object') {
    const raw = doc.usage as Record<string, unknown>;
    const usage = api === 'responses' ? responsesUsage(raw) : raw;
    // Embeddings produce no output tokens: a count of 0 from the server's own answer.
    if (api === 'embeddings') usage.completion_tokens = 0;
    const why = impossibleUsage(usage);
    if (why !== undefined) return endError('IMPOSSIBLE_VALUE', why);
    out.usage = usage as Usage;
  }
  if (api === 'embeddings') {
    const problem = embeddingsProblem(doc);
    if (problem !== undefined) return endError('EMPTY_CHOICES', problem);
    out.usage ??= { completion_tokens: 0 };
    out.finishReason = 'stop';
    return undefined;
  }
  out.stampRead(now());
  if (api === 'responses') {
    if (out.output(responsesBodyParts(doc)) === 0)
      return endError('EMPTY_STREAM', 'the response carried no output');
    const status = doc.status;
    if (typeof status === 'string') out.finishReason = status === 'completed' ? 'stop' : out.cut(status, 64);
    return undefined;
  }
  const choices = doc.choices as Record<string, unknown>[] | undefined;
  if (!Array.isArray(choices) || choices.length === 0) {
    return endError('EMPTY_CHOICES', 'the response carried no choices');
  }
  const choice = choices[0];
  if (choice === null || typeof choice !== 'object' || Array.isArray(choice)) {
    return endError('IMPOSSIBLE_VALUE', choiceProblem(choice));
  }
  if (typeof choice.finish_reason === 'string') out.finishReason = out.cut(choice.finish_reason, 64);
  const message = (choice.message ?? {}) as Record<string, unknown>;
  const parts: OutputParts =
    api === 'chat'
      ? chatParts(message)
      : { answer: typeof choice.text === 'string' ? [choice.text] : [], reasoning: [] };
  if (out.output(parts) === 0) return endError('EMPTY_STREAM', 'the response carried no content');
  return undefined;
}
