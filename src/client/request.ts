/**
 * What goes on the wire: endpoint URLs and the JSON body of a streamed completion request.
 *
 * @module
 */

import type { ApiKind, Sampling, WorkItem } from '../types.js';

/** Base URL without trailing slashes and without a trailing `/v1` (so `/v1` is never doubled). */
function apiRoot(baseUrl: string): string {
  let base = baseUrl.trim();
  while (base.endsWith('/')) base = base.slice(0, -1);
  if (base.endsWith('/v1')) base = base.slice(0, -3);
  return base;
}

/**
 * The URL a request goes to: `{base}/v1/chat/completions` (api 'chat') or
 * `{base}/v1/completions` (api 'completions'). A base that already ends in `/v1` is not doubled.
 *
 * @example
 * ```ts
 * endpointUrl('http://localhost:8000', 'chat');      // 'http://localhost:8000/v1/chat/completions'
 * endpointUrl('https://gw.example/api/v1/', 'completions'); // 'https://gw.example/api/v1/completions'
 * ```
 */
export function endpointUrl(baseUrl: string, api: ApiKind): string {
  return `${apiRoot(baseUrl)}/v1/${api === 'chat' ? 'chat/completions' : 'completions'}`;
}

/** The URL of the model list: `{base}/v1/models`, `/v1` not doubled. */
export function modelsUrl(baseUrl: string): string {
  return `${apiRoot(baseUrl)}/v1/models`;
}

/**
 * The JSON body of a streamed request. Both `max_tokens` and `max_completion_tokens` are sent,
 * because some servers honour only one of them; `extraBody` is merged last.
 */
export function requestBody(
  api: ApiKind,
  model: string,
  item: WorkItem,
  sampling: Sampling,
  extraBody?: Record<string, unknown>,
): string {
  const maxTokens = item.maxTokens > 0 ? item.maxTokens : sampling.maxTokens;
  const body: Record<string, unknown> = { model };
  if (api === 'chat') {
    body.messages = item.messages ?? [{ role: 'user', content: item.prompt ?? '' }];
  } else {
    body.prompt = item.prompt ?? (item.messages ?? []).map((m) => m.content).join('\n');
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  body.max_tokens = maxTokens;
  body.max_completion_tokens = maxTokens;
  body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (sampling.ignoreEos) body.ignore_eos = true;
  if (extraBody) Object.assign(body, extraBody);
  return JSON.stringify(body);
}
