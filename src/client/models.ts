/**
 * `GET /v1/models`: the ids a server offers (the runner takes the first when --model is absent;
 * doctor checks the model against it).
 *
 * @module
 */

import { ProxyAgent, request } from 'undici';
import { GoodputError, REQUEST_ERRORS } from '../errors.js';
import type { RequestError } from '../types.js';
import { classifyNetworkError, redactKey, serverErrorMessage } from './classify.js';
import { resolveProxy } from './proxy.js';
import { modelsUrl } from './request.js';

export interface ListModelsOptions {
  /** Whole-call timeout. Default 10 s. */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** As in ClientConfig: undefined = from the environment, null = never. */
  proxyUrl?: string | null;
}

/**
 * List the model ids of an OpenAI-compatible server.
 *
 * Throws GoodputError on failure: `E_UNREACHABLE` (network, 5xx; `cause` is the classified
 * RequestError), `E_KEY` (401/403), `E_NO_MODEL` (404 or a body without a model list).
 *
 * @example
 * ```ts
 * const [model] = await listModels('http://localhost:8000', process.env.GOODPUT_API_KEY);
 * ```
 */
export async function listModels(
  baseUrl: string,
  apiKey?: string,
  opts: ListModelsOptions = {},
): Promise<string[]> {
  const url = modelsUrl(baseUrl);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const proxy = opts.proxyUrl === null ? undefined : (opts.proxyUrl ?? resolveProxy(new URL(url)));
  const dispatcher = proxy ? new ProxyAgent(proxy) : undefined;
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: 'GET',
      headers,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    const cause = classifyNetworkError(err);
    cause.message = redactKey(cause.message, apiKey);
    const info = REQUEST_ERRORS[cause.code];
    throw new GoodputError(
      'E_UNREACHABLE',
      `GET ${url} failed: ${info.cause} (${cause.message})`,
      info.hint,
      {
        cause,
      },
    );
  }
  if (status < 200 || status >= 300) {
    const cause: RequestError = {
      code: status === 401 ? 'HTTP_UNAUTHORIZED' : status === 403 ? 'HTTP_FORBIDDEN' : 'HTTP_CLIENT_ERROR',
      message: redactKey(`HTTP ${status}${serverSaid(text)}`, apiKey),
      httpStatus: status,
    };
    if (status === 404) cause.code = 'HTTP_NOT_FOUND';
    else if (status === 429) cause.code = 'HTTP_RATE_LIMITED';
    else if (status === 503) cause.code = 'HTTP_UNAVAILABLE';
    else if (status >= 500) cause.code = 'HTTP_SERVER_ERROR';
    const message = `GET ${url} answered ${cause.message}`;
    if (status === 401 || status === 403) {
      throw new GoodputError('E_KEY', message, REQUEST_ERRORS[cause.code].hint, { cause });
    }
    if (status === 404) {
      throw new GoodputError(
        'E_NO_MODEL',
        message,
        'the server does not list its models: pass --model, and check that --url is the base URL',
        { cause },
      );
    }
    throw new GoodputError('E_UNREACHABLE', message, REQUEST_ERRORS[cause.code].hint, { cause });
  }
  const ids = modelIds(text);
  if (ids === undefined) {
    throw new GoodputError(
      'E_NO_MODEL',
      `GET ${url} did not return an OpenAI model list ({"data":[{"id":...}]})`,
      'pass --model explicitly, and check that --url points at an OpenAI-compatible server',
    );
  }
  return ids;
}

function serverSaid(text: string): string {
  const said = serverErrorMessage(text);
  return said ? `: ${said}` : '';
}

/** Model ids from `{"data":[{"id"}]}` (OpenAI) or `{"models":[{"id"|"name"|"model"}]}` (some gateways). */
function modelIds(text: string): string[] | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== 'object') return undefined;
  const list = (doc as { data?: unknown; models?: unknown }).data ?? (doc as { models?: unknown }).models;
  if (!Array.isArray(list)) return undefined;
  const ids: string[] = [];
  for (const entry of list) {
    if (typeof entry === 'string') ids.push(entry);
    else if (entry && typeof entry === 'object') {
      const e = entry as { id?: unknown; name?: unknown; model?: unknown };
      const id = e.id ?? e.model ?? e.name;
      if (typeof id === 'string') ids.push(id);
    }
  }
  return ids;
}
