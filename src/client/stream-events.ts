/**
 * One parsed stream event read into the attempt's output: chat and completions chunks
 * (choices[0]: its delta or text, its finish_reason; the usage; llama.cpp's timings) and
 * Responses API events. A bad value is returned as a problem for the attempt to fail with,
 * never thrown.
 *
 * Hot path (once per chunk): the common chat delta — content only, no tool calls, no
 * reasoning — is read without building the OutputParts lists, and the timings reader runs
 * only for an event that carries `timings`.
 *
 * @module
 */

import type { ApiKind, RequestErrorCode } from '../types.js';
import type { ScannedChunk } from './chunk-scan.js';
import { messageIn } from './classify.js';
import {
  chatParts,
  impossibleUsage,
  responsesStep,
  responsesUsage,
  serverTimings,
  type Usage,
} from './events.js';
import type { StreamOutput } from './stream-output.js';

/** Why an event ends the attempt. */
export interface EventProblem {
  code: RequestErrorCode;
  message: string;
}

/** Why choices[0] is not an object. */
export function choiceProblem(choice: unknown): string {
  return `choices[0] is ${choice === null ? 'null' : typeof choice}, not an object`;
}

/**
 * Read one stream event (a parsed JSON object; `data` is its text, for messages) into `out`.
 * Returns the problem that ends the attempt, if any.
 */
export function readStreamEvent(
  out: StreamOutput,
  event: Record<string, unknown>,
  eventType: string,
  api: ApiKind,
  data: string,
): EventProblem | undefined {
  out.dataEvents++;
  if ((event.error !== undefined && event.error !== null) || eventType === 'error') {
    out.streamError ??= out.cut(messageIn(event) ?? data);
    return undefined;
  }
  if (out.streamError !== undefined) return undefined;
  if (api === 'responses') return readResponsesEvent(out, event, eventType);
  const usage = event.usage;
  const hasUsage = usage !== null && typeof usage === 'object';
  if (hasUsage) {
    const why = impossibleUsage(usage as Record<string, unknown>);
    if (why !== undefined) return { code: 'IMPOSSIBLE_VALUE', message: why };
    out.usage = usage as Usage;
  }
  if (event.timings !== undefined) out.timings = serverTimings(event) ?? out.timings;
  const choices = event.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    if (!hasUsage) out.emptyChoiceEvents++;
    return undefined;
  }
  const choice = choices[0] as Record<string, unknown>;
  if (choice === null || typeof choice !== 'object' || Array.isArray(choice)) {
    return { code: 'IMPOSSIBLE_VALUE', message: choiceProblem(choice) };
  }
  const finish = choice.finish_reason;
  if (typeof finish === 'string' && finish) out.finishReason = out.cut(finish, 64);
  if (api !== 'chat') {
    out.answer(choice.text);
    return undefined;
  }
  const delta = (choice.delta ?? choice.message) as Record<string, unknown> | undefined;
  if (!delta || typeof delta !== 'object') return undefined;
  if (
    delta.tool_calls === undefined &&
    delta.reasoning_content === undefined &&
    delta.reasoning === undefined
  ) {
    out.answer(delta.content);
  } else {
    out.output(chatParts(delta));
  }
  return undefined;
}

/**
 * A common chunk found by the scan (chunk-scan.ts) read into `out`, as readStreamEvent reads
 * the same event once parsed: no error, usage or timings; choices[0] an object, if any.
 */
export function readScannedChunk(out: StreamOutput, chunk: ScannedChunk): void {
  out.dataEvents++;
  if (out.streamError !== undefined) return;
  if (!chunk.hasChoice) {
    out.emptyChoiceEvents++;
    return;
  }
  if (chunk.finish) out.finishReason = out.cut(chunk.finish, 64);
  out.answer(chunk.text);
}

/** One Responses API event: output deltas are chunks; completed/incomplete end the stream with usage. */
function readResponsesEvent(
  out: StreamOutput,
  event: Record<string, unknown>,
  eventType: string,
): EventProblem | undefined {
  const step = responsesStep(event, eventType);
  if (step.kind === 'output') {
    out.output(step.parts);
  } else if (step.kind === 'failed') {
    out.streamError ??= out.cut(step.message);
  } else if (step.kind === 'end') {
    out.finishReason = out.cut(step.finishReason, 64);
    out.sawDone = true;
    if (step.usage) {
      const usage = responsesUsage(step.usage);
      const why = impossibleUsage(usage);
      if (why !== undefined) {
        return {
          code: 'IMPOSSIBLE_VALUE',
          message: why.replace('usage.completion_tokens', 'usage.output_tokens'),
        };
      }
      out.usage = usage as Usage;
    }
  }
  return undefined;
}
