/**
 * What goes on the wire: endpoint URLs and the JSON body of a streamed completion request.
 *
 * @module
 */

import type { ApiKind, ChatMessage, Sampling, ToolChoice, ToolDefinition, WorkItem } from '../types.js';

/** Base URL without trailing slashes and without a trailing `/v1` (so `/v1` is never doubled). */
function apiRoot(baseUrl: string): string {
  let base = baseUrl.trim();
  while (base.endsWith('/')) base = base.slice(0, -1);
  if (base.endsWith('/v1')) base = base.slice(0, -3);
  return base;
}

/** The path under `/v1` of each API. */
const API_PATHS: Record<ApiKind, string> = {
  chat: 'chat/completions',
  completions: 'completions',
  responses: 'responses',
  embeddings: 'embeddings',
};

/**
 * The URL a request goes to: `{base}/v1/chat/completions` (api 'chat'), `{base}/v1/completions`
 * ('completions'), `{base}/v1/responses` ('responses') or `{base}/v1/embeddings`
 * ('embeddings'). A base that already ends in `/v1` is not doubled.
 *
 * @example
 * ```ts
 * endpointUrl('http://localhost:8000', 'chat');      // 'http://localhost:8000/v1/chat/completions'
 * endpointUrl('https://gw.example/api/v1/', 'completions'); // 'https://gw.example/api/v1/completions'
 * ```
 */
export function endpointUrl(baseUrl: string, api: ApiKind): string {
  return `${apiRoot(baseUrl)}/v1/${API_PATHS[api]}`;
}

/** The URL of the model list: `{base}/v1/models`, `/v1` not doubled. */
export function modelsUrl(baseUrl: string): string {
  return `${apiRoot(baseUrl)}/v1/models`;
}

/**
 * The headers of one request: the client's own (`base`), plus the item's session-affinity id
 * under `sessionHeader` (`X-Session-ID` by default) when both are set; `base` itself otherwise.
 * The name was checked against the credential and `--header` names when the run was set up.
 */
export function requestHeaders(
  base: Readonly<Record<string, string>>,
  item: WorkItem,
  sessionHeader: string | undefined,
): Record<string, string> {
  if (sessionHeader === undefined || item.affinityId === undefined) return base as Record<string, string>;
  return { ...base, [sessionHeader]: item.affinityId };
}

/** The prompt as one text (completions, embeddings): the item's prompt, else its messages joined. */
function promptText(item: WorkItem): string {
  return item.prompt ?? (item.messages ?? []).map((m) => m.content).join('\n');
}

/**
 * The JSON body of a request. Chat and completions: streamed, both `max_tokens` and
 * `max_completion_tokens` sent, because some servers honour only one of them. Responses:
 * streamed, `input` (the messages) and `max_output_tokens`. Embeddings: not streamed, `input`
 * (the prompt text). `extraBody` is merged last.
 */
export function requestBody(
  api: ApiKind,
  model: string,
  item: WorkItem,
  sampling: Sampling,
  extraBody?: Record<string, unknown>,
): string {
  const maxTokens = item.maxTokens > 0 ? item.maxTokens : sampling.maxTokens;
  // A traffic class may name its own model or LoRA adapter.
  const body: Record<string, unknown> = { model: item.model ?? model };
  if (api === 'embeddings') {
    body.input = promptText(item);
    body.encoding_format = 'float';
    if (extraBody) Object.assign(body, extraBody);
    return JSON.stringify(body);
  }
  if (api === 'responses') {
    body.input = withImages(item.messages ?? [{ role: 'user', content: item.prompt ?? '' }], item, api);
    body.stream = true;
    body.max_output_tokens = maxTokens;
    withTools(body, item, api);
    return withSampling(body, item, sampling, extraBody);
  }
  if (api === 'chat') {
    body.messages = withImages(item.messages ?? [{ role: 'user', content: item.prompt ?? '' }], item, api);
  } else {
    body.prompt = promptText(item);
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  body.max_tokens = maxTokens;
  body.max_completion_tokens = maxTokens;
  if (api === 'chat') withTools(body, item, api);
  return withSampling(body, item, sampling, extraBody);
}

/** A tool as each API spells it: chat nests the function, the Responses API does not. */
function toolBody(t: ToolDefinition, api: 'chat' | 'responses'): Record<string, unknown> {
  const fn: Record<string, unknown> = { name: t.name };
  if (t.description !== undefined) fn.description = t.description;
  if (t.parameters !== undefined) fn.parameters = t.parameters;
  return api === 'chat' ? { type: 'function', function: fn } : { type: 'function', ...fn };
}

function toolChoiceBody(c: ToolChoice, api: 'chat' | 'responses'): unknown {
  if (typeof c === 'string') return c;
  return api === 'chat'
    ? { type: 'function', function: { name: c.name } }
    : { type: 'function', name: c.name };
}

/** The item's tools and tool_choice on the body (chat and Responses), when it offers any. */
function withTools(body: Record<string, unknown>, item: WorkItem, api: 'chat' | 'responses'): void {
  if (item.tools && item.tools.length > 0) body.tools = item.tools.map((t) => toolBody(t, api));
  if (item.toolChoice !== undefined) body.tool_choice = toolChoiceBody(item.toolChoice, api);
}

/**
 * An agent conversation's tool messages as each API carries them: chat's assistant message
 * with `tool_calls` (content null) and `{role: "tool", tool_call_id}`; the Responses API's
 * `function_call` and `function_call_output` input items. Other messages pass unchanged.
 */
function toolMessages(messages: readonly ChatMessage[], api: 'chat' | 'responses'): unknown[] {
  const out: unknown[] = [];
  for (const m of messages) {
    if (m.toolCalls && m.toolCalls.length > 0) {
      if (api === 'chat') {
        out.push({
          role: 'assistant',
          content: null,
          tool_calls: m.toolCalls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        });
      } else {
        for (const c of m.toolCalls)
          out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments });
      }
    } else if (m.role === 'tool') {
      out.push(
        api === 'chat'
          ? { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content }
          : { type: 'function_call_output', call_id: m.toolCallId ?? '', output: m.content },
      );
    } else out.push(m);
  }
  return out;
}

/**
 * The messages with the item's images (`--images`) after the text of the last user message, as
 * content parts: chat's `{"type": "image_url", "image_url": {"url"}}`, the Responses API's
 * `{"type": "input_image", "image_url"}`.
 */
function withImages(
  messages: readonly ChatMessage[],
  item: WorkItem,
  api: 'chat' | 'responses',
): readonly unknown[] {
  const images = item.images;
  if (item.agentRun !== undefined) return toolMessages(messages, api);
  if (!images || images.length === 0) return messages;
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') last = i;
  });
  return messages.map((m, i) => {
    if (i !== last) return m;
    const text = api === 'chat' ? { type: 'text', text: m.content } : { type: 'input_text', text: m.content };
    const parts = images.map((im) =>
      api === 'chat'
        ? { type: 'image_url', image_url: { url: im.url } }
        : { type: 'input_image', image_url: im.url },
    );
    return { role: m.role, content: [text, ...parts] };
  });
}

/** The body as JSON with the sampling fields of a generating request after it (and vLLM's `priority`, a traffic class's), then `extraBody`. */
function withSampling(
  body: Record<string, unknown>,
  item: WorkItem,
  sampling: Sampling,
  extraBody: Record<string, unknown> | undefined,
): string {
  body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (sampling.ignoreEos) body.ignore_eos = true;
  if (item.priority !== undefined) body.priority = item.priority;
  if (extraBody) Object.assign(body, extraBody);
  return JSON.stringify(body);
}
