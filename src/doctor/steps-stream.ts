/**
 * Streaming smoke and conformance: does SSE arrive incrementally, does it end properly, and
 * which of the known differences between servers does this one have.
 *
 * @module
 */

import { performance } from 'node:perf_hooks';
import { classifyNetworkError, serverErrorMessage } from '../client/index.js';
import { codeForHttpStatus, REQUEST_ERRORS } from '../errors.js';
import type { ApiKind } from '../types.js';
import type { Channel } from './http.js';
import { smokeBody } from './steps-api.js';
import { looksBuffered, type StreamTrace, traceStream } from './stream-trace.js';
import type { StepResult } from './types.js';

const STREAM_TOKENS = 32;

function httpFailure(trace: StreamTrace, channel: Channel): { cause: string; fix: string } {
  const code = codeForHttpStatus(trace.status);
  const said = serverErrorMessage(channel.redact(trace.errorBody ?? ''));
  return {
    cause: `the streamed request answered HTTP ${trace.status}: ${REQUEST_ERRORS[code].cause}${said ? ` — the server said: "${said}"` : ''}`,
    fix: REQUEST_ERRORS[code].hint,
  };
}

/** One streamed completion: incremental arrival, [DONE], finish_reason, usage when asked. */
export async function checkStreaming(
  channel: Channel,
  api: ApiKind,
  model: string,
): Promise<{ step: StepResult; trace?: StreamTrace }> {
  const title = 'Streaming completion (SSE)';
  const t0 = performance.now();
  const details: string[] = [];
  const step = (status: StepResult['status'], extra: Partial<StepResult> = {}): StepResult => ({
    stage: 'streaming',
    title,
    status,
    ms: performance.now() - t0,
    details,
    ...extra,
  });
  let trace: StreamTrace;
  try {
    trace = await traceStream(
      channel,
      api,
      smokeBody(api, model, { max_tokens: STREAM_TOKENS, max_completion_tokens: STREAM_TOKENS }),
    );
  } catch (e) {
    const err = classifyNetworkError(e);
    return {
      step: step('fail', {
        cause: `${REQUEST_ERRORS[err.code].cause} (${err.message})`,
        fix: REQUEST_ERRORS[err.code].hint,
      }),
    };
  }
  if (trace.status !== 200) return { step: step('fail', httpFailure(trace, channel)), trace };
  const ct = String(trace.headers['content-type'] ?? '');
  details.push(
    `${trace.events} events in ${trace.readMs.length} reads over ${trace.totalMs.toFixed(1)} ms; content-type ${ct || '(none)'}`,
  );
  const n = trace.contentMs.length;
  if (n > 0) {
    details.push(
      `first content after ${trace.contentMs[0]!.toFixed(1)} ms, ${n} content chunks spread over ${(trace.contentMs[n - 1]! - trace.contentMs[0]!).toFixed(1)} ms`,
    );
  }
  const data = { events: trace.events, reads: trace.readMs.length, contentChunks: n, totalMs: trace.totalMs };
  const fault = streamFault(trace);
  if (fault) return { step: step('fail', { ...fault, data }), trace };
  const warnings = streamWarnings(trace, details);
  if (warnings.length > 0) {
    return {
      step: step('warn', { cause: warnings.join('; '), fix: 'goodput copes; other clients may not', data }),
      trace,
    };
  }
  return { step: step('pass', { data }), trace };
}

/** Why a stream that answered 200 cannot be measured (undefined: it can), in the order checked. */
function streamFault(trace: StreamTrace): { cause: string; fix: string } | undefined {
  const n = trace.contentMs.length;
  if (trace.parserError) {
    return {
      cause: `${REQUEST_ERRORS.BAD_SSE.cause}: ${trace.parserError}`,
      fix: REQUEST_ERRORS.BAD_SSE.hint,
    };
  }
  if (trace.errorObject) {
    return {
      cause: `${REQUEST_ERRORS.STREAM_ERROR_OBJECT.cause}: ${trace.errorObject}`,
      fix: REQUEST_ERRORS.STREAM_ERROR_OBJECT.hint,
    };
  }
  if (trace.badJsonEvents > 0) {
    return {
      cause: `${trace.badJsonEvents} stream event(s) were not valid JSON`,
      fix: REQUEST_ERRORS.BAD_JSON.hint,
    };
  }
  if (trace.events === 0 || n === 0) {
    return { cause: REQUEST_ERRORS.EMPTY_STREAM.cause, fix: REQUEST_ERRORS.EMPTY_STREAM.hint };
  }
  if (!trace.doneSeen && !trace.finishReason) {
    return { cause: REQUEST_ERRORS.STREAM_TRUNCATED.cause, fix: REQUEST_ERRORS.STREAM_TRUNCATED.hint };
  }
  if (looksBuffered(trace)) {
    return {
      cause: `the stream was buffered: ${n} content chunks arrived within ${(trace.contentMs[n - 1]! - trace.contentMs[0]!).toFixed(1)} ms after ${trace.contentMs[0]!.toFixed(0)} ms of silence, so TTFT and ITL would be measured wrong`,
      fix: 'turn off response buffering between client and server (nginx: proxy_buffering off; X-Accel-Buffering: no), or measure closer to the server',
    };
  }
  return undefined;
}

/** What a measurable stream lacks that goodput copes with (no [DONE], no usage); where usage came, in `details`. */
function streamWarnings(trace: StreamTrace, details: string[]): string[] {
  const warnings: string[] = [];
  if (!trace.doneSeen)
    warnings.push('no [DONE] at the end (finish_reason arrived, so goodput can still tell the end)');
  if (!trace.usage)
    warnings.push(
      'no usage chunk although stream_options.include_usage was asked: output tokens will be counted by the client',
    );
  else
    details.push(
      `usage arrived on ${trace.usageWhere === 'separate-chunk' ? 'a separate chunk with empty choices' : 'the chunk with finish_reason'}`,
    );
  return warnings;
}

/** The differences between servers that change measurements: which ones this server has. */
export async function checkConformance(
  channel: Channel,
  api: ApiKind,
  model: string,
  stream: StreamTrace,
  seen429: { retryAfter?: string }[],
): Promise<StepResult> {
  const t0 = performance.now();
  const details: string[] = [];
  const warns: Array<{ cause: string; fix: string }> = [];
  const fails: Array<{ cause: string; fix: string }> = [];
  details.push(
    stream.emptyChoicesChunks > 0
      ? `${stream.emptyChoicesChunks} chunk(s) with empty choices (clients that read choices[0] unguarded crash on them; goodput handles them)`
      : 'no chunks with empty choices',
  );
  details.push(stream.comments > 0 ? `${stream.comments} SSE comment line(s) (: ping)` : 'no SSE comments');
  details.push(
    stream.reasoningField ? `reasoning text in delta.${stream.reasoningField}` : 'no reasoning fields',
  );
  if (stream.finishReason) details.push(`finish_reason '${stream.finishReason}'`);
  else
    warns.push({
      cause: 'no finish_reason in the stream',
      fix: 'goodput relies on [DONE]; truncations cannot be told from normal ends',
    });
  details.push(
    stream.usage ? 'stream_options.include_usage honoured' : 'stream_options.include_usage ignored',
  );

  const limit = 8;
  const probe = async (extra: Record<string, unknown>) =>
    traceStream(
      channel,
      api,
      smokeBody(api, model, { max_tokens: limit, max_completion_tokens: limit, ...extra }),
    );
  const tokensOf = (t: StreamTrace) => t.usage?.completion_tokens ?? t.contentMs.length;
  try {
    const eos = await probe({ ignore_eos: true, max_tokens: 24, max_completion_tokens: 24 });
    if (eos.status === 429) seen429.push({ retryAfter: eos.headers['retry-after'] as string | undefined });
    if (eos.status !== 200) {
      warns.push({
        cause: `ignore_eos is refused (HTTP ${eos.status})`,
        fix: 'run without --ignore-eos; use a dataset whose outputs are long enough',
      });
    } else if (tokensOf(eos) === 24) {
      details.push('ignore_eos honoured (24 of 24 tokens)');
    } else {
      warns.push({
        cause: `ignore_eos not honoured (${tokensOf(eos)} of 24 tokens, finish_reason ${eos.finishReason})`,
        fix: 'output lengths will vary: compare runs by TPOT, not by E2EL',
      });
    }
    const capped = await probe({});
    if (capped.status === 200) {
      const got = tokensOf(capped);
      if (got > limit) {
        fails.push({
          cause: `max_tokens / max_completion_tokens not honoured: asked ${limit}, got ${got} tokens`,
          fix: 'the server ignores the output limit: workloads will not have the lengths asked; check the server version or gateway',
        });
      } else details.push(`max_tokens honoured (${got} ≤ ${limit})`);
    }
    const a = await probe({ seed: 1234, temperature: 1 });
    const b = await probe({ seed: 1234, temperature: 1 });
    if (a.status === 200 && b.status === 200) {
      if (a.text === b.text) details.push('seed honoured (same text twice at temperature 1)');
      else
        warns.push({
          cause: 'seed not honoured: the same seed at temperature 1 gave different texts',
          fix: 'keep --temperature 0 so that runs compare fairly',
        });
    }
  } catch (e) {
    const err = classifyNetworkError(e);
    fails.push({
      cause: `a conformance request failed: ${REQUEST_ERRORS[err.code].cause} (${err.message})`,
      fix: REQUEST_ERRORS[err.code].hint,
    });
  }
  if (seen429.length > 0) {
    const withRa = seen429.filter((s) => s.retryAfter !== undefined).length;
    if (withRa === seen429.length) details.push(`429 seen ${seen429.length}×, always with Retry-After`);
    else
      warns.push({
        cause: `429 seen ${seen429.length}× and ${seen429.length - withRa} without Retry-After`,
        fix: 'goodput backs off exponentially without it; lower --concurrency or --rate',
      });
  } else {
    details.push('no 429 seen');
  }
  const worst = fails[0] ?? warns[0];
  return {
    stage: 'conformance',
    title: 'Conformance (server differences)',
    status: fails.length > 0 ? 'fail' : warns.length > 0 ? 'warn' : 'pass',
    ms: performance.now() - t0,
    details: [...details, ...[...fails, ...warns].slice(1).map((w) => `also: ${w.cause} — ${w.fix}`)],
    ...(worst ? { cause: worst.cause, fix: worst.fix } : {}),
  };
}
