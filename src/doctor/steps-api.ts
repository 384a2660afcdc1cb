/**
 * Models and non-streaming smoke: the first two exchanges with the server.
 *
 * @module
 */

import { performance } from 'node:perf_hooks';
import { classifyNetworkError, endpointUrl, modelsUrl } from '../client/index.js';
import { REQUEST_ERRORS } from '../errors.js';
import type { ApiKind } from '../types.js';
import { redactAndCut } from '../util/index.js';
import { type Channel, closestIds, explainStatus, httpCall, MAX_REPLY_BYTES } from './http.js';
import type { StepResult } from './types.js';

function networkFailure(stage: StepResult['stage'], title: string, t0: number, e: unknown): StepResult {
  const err = classifyNetworkError(e);
  const info = REQUEST_ERRORS[err.code];
  return {
    stage,
    title,
    status: 'fail',
    ms: performance.now() - t0,
    details: [],
    cause: `${info.cause} (${err.message})`,
    fix: info.hint,
    data: { code: err.code },
  };
}

function tooLargeFailure(what: string): { cause: string; fix: string } {
  return {
    cause: `${what} answered with more than ${MAX_REPLY_BYTES / 1024 / 1024} MiB (not read further)`,
    fix: 'check that --url points at an OpenAI-compatible server (the base, without /chat/completions)',
  };
}

/** GET /v1/models; the model asked for must be there (else the closest ids). Returns the model to use. */
export async function checkModels(
  channel: Channel,
  wanted: string | undefined,
): Promise<{ step: StepResult; model?: string }> {
  const title = 'Models (GET /v1/models)';
  const t0 = performance.now();
  const url = modelsUrl(channel.baseUrl);
  let reply: Awaited<ReturnType<typeof httpCall>>;
  try {
    reply = await httpCall(channel, 'GET', url);
  } catch (e) {
    return { step: networkFailure('models', title, t0, e) };
  }
  const details = [`GET ${url} → ${reply.status} in ${reply.ms.toFixed(1)} ms`];
  const step = (status: StepResult['status'], extra: Partial<StepResult>): StepResult => ({
    stage: 'models',
    title,
    status,
    ms: performance.now() - t0,
    details,
    ...extra,
  });
  if (reply.status !== 200) {
    const { cause, fix } = explainStatus(reply, channel, 'GET /v1/models');
    // Some gateways have no model list: not fatal when the user named the model.
    if (reply.status === 404 && wanted) {
      return {
        step: step('warn', {
          cause,
          fix: `the gateway may not list models; continuing with --model ${wanted}`,
        }),
        model: wanted,
      };
    }
    return { step: step('fail', { cause, fix, data: { httpStatus: reply.status } }) };
  }
  if (reply.tooLarge) return { step: step('fail', tooLargeFailure('GET /v1/models')) };
  let ids: string[];
  try {
    const body = JSON.parse(reply.text) as { data?: Array<{ id?: unknown }> };
    if (!Array.isArray(body.data)) throw new Error('no data array');
    ids = body.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
  } catch (e) {
    return {
      step: step('fail', {
        cause: `GET /v1/models did not return an OpenAI model list (${(e as Error).message})`,
        fix: 'check that --url points at an OpenAI-compatible server (the base, without /chat/completions)',
      }),
    };
  }
  details.push(`${ids.length} model(s): ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`);
  if (ids.length === 0 && !wanted) {
    return {
      step: step('fail', { cause: 'the server lists no models', fix: 'name the model with --model' }),
    };
  }
  if (!wanted) {
    details.push(`no --model given: using the first, ${ids[0]}`);
    return { step: step('pass', { data: { ids } }), model: ids[0] };
  }
  if (ids.includes(wanted)) return { step: step('pass', { data: { ids } }), model: wanted };
  const close = closestIds(wanted, ids);
  const caseOnly = close.find((id) => id.toLowerCase() === wanted.toLowerCase());
  return {
    step: step('fail', {
      cause: caseOnly
        ? `model '${wanted}' is not served; '${caseOnly}' is (model ids are case-sensitive)`
        : `model '${wanted}' is not among the ${ids.length} served`,
      fix:
        close.length > 0
          ? `use --model ${close[0]}${close.length > 1 ? ` (or: ${close.slice(1).join(', ')})` : ''}`
          : `use one of: ${ids.slice(0, 5).join(', ')}`,
      data: { ids, closest: close },
    }),
  };
}

export function smokeBody(
  api: ApiKind,
  model: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const base =
    api === 'chat'
      ? { model, messages: [{ role: 'user', content: 'Reply with one short sentence about the sea.' }] }
      : { model, prompt: 'The sea is' };
  return { ...base, max_tokens: 16, max_completion_tokens: 16, temperature: 0, ...extra };
}

/** A short non-streamed completion: the answer must carry choices[0].message (or .text). */
export async function checkNonStreaming(channel: Channel, api: ApiKind, model: string): Promise<StepResult> {
  const title = 'Non-streaming completion';
  const t0 = performance.now();
  const url = endpointUrl(channel.baseUrl, api);
  let reply: Awaited<ReturnType<typeof httpCall>>;
  try {
    reply = await httpCall(channel, 'POST', url, smokeBody(api, model, { stream: false }));
  } catch (e) {
    return networkFailure('non-streaming', title, t0, e);
  }
  const details = [`POST ${url} → ${reply.status} in ${reply.ms.toFixed(1)} ms`];
  const step = (status: StepResult['status'], extra: Partial<StepResult> = {}): StepResult => ({
    stage: 'non-streaming',
    title,
    status,
    ms: performance.now() - t0,
    details,
    ...extra,
  });
  if (reply.status !== 200) {
    return step('fail', {
      ...explainStatus(reply, channel, `POST ${new URL(url).pathname}`),
      data: { httpStatus: reply.status },
    });
  }
  if (reply.tooLarge) return step('fail', tooLargeFailure(`POST ${new URL(url).pathname}`));
  let body: {
    model?: string;
    choices?: Array<{ message?: { content?: unknown; reasoning_content?: unknown }; text?: unknown }>;
    usage?: { completion_tokens?: number };
    error?: unknown;
  };
  try {
    body = JSON.parse(reply.text);
  } catch {
    return step('fail', { cause: REQUEST_ERRORS.BAD_JSON.cause, fix: REQUEST_ERRORS.BAD_JSON.hint });
  }
  if (body.error) {
    return step('fail', {
      cause: `the server answered 200 with an error object: ${redactAndCut(JSON.stringify(body.error), 200, channel.redact)}`,
      fix: REQUEST_ERRORS.STREAM_ERROR_OBJECT.hint,
    });
  }
  const choice = body.choices?.[0];
  const hasOutput = api === 'chat' ? choice?.message !== undefined : typeof choice?.text === 'string';
  if (!hasOutput) {
    return step('fail', {
      cause: `the answer has no choices[0].${api === 'chat' ? 'message' : 'text'}`,
      fix:
        api === 'chat'
          ? 'the server may only support /v1/completions: try --api completions'
          : 'try --api chat',
    });
  }
  if (body.model && body.model !== model) {
    details.push(
      `asked for model '${model}', the answer names '${body.model}' (the server may map or ignore the model id)`,
    );
  }
  details.push(
    body.usage?.completion_tokens !== undefined
      ? `${body.usage.completion_tokens} completion tokens reported`
      : 'no usage in the answer',
  );
  return step('pass');
}
