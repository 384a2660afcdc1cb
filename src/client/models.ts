/**
 * `GET /v1/models`: the ids a server offers (the runner takes the first when --model is absent;
 * doctor checks the model against it).
 *
 * @module
 */

import { ExitCode, GoodputError, REQUEST_ERRORS } from '../errors.js';
import type { RequestError } from '../types.js';
import { makeRedactor, readBounded } from '../util/index.js';
import { ProxyAgent, request } from '../util/undici.js';
import { classifyNetworkError, serverErrorMessage } from './classify.js';
import { resolveProxy } from './proxy.js';
import { modelsUrl } from './request.js';

export interface ListModelsOptions {
  /** Whole-call timeout, body included (a server that trickles its answer is cut). Default 10 s. */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** More secrets than the key (credential header values): redacted from messages like the key. */
  secrets?: string[];
  /** As in ClientConfig: undefined = from the environment, null = never. */
  proxyUrl?: string | null;
  /** Stops the call (Ctrl-C). */
  signal?: AbortSignal;
}

/** The largest model list read (hosted gateways list a few hundred models in well under 1 MiB). */
export const MAX_MODELS_BODY_BYTES = 8 * 1024 * 1024;
/** How much of an error body is read: enough for any error object. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * List the model ids of an OpenAI-compatible server.
 *
 * Throws GoodputError on failure: `E_UNREACHABLE` (network, 5xx, no whole answer within the
 * timeout; `cause` is the classified RequestError), `E_KEY` (401/403), `E_NO_MODEL` (404, a
 * body without a model list, or one over {@link MAX_MODELS_BODY_BYTES}). Stopped by the signal,
 * it throws `E_UNREACHABLE` with exit code 130. Every read is bounded in bytes and time, and
 * the key is removed (whole or in part) from anything the server said.
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
  const redact = makeRedactor([apiKey, ...(opts.secrets ?? [])]);
  const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const proxy = opts.proxyUrl === null ? undefined : (opts.proxyUrl ?? resolveProxy(new URL(url)));
  const dispatcher = proxy ? new ProxyAgent(proxy) : undefined;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  const t0 = performance.now();
  const interrupted = () =>
    new GoodputError('E_UNREACHABLE', `GET ${url} was stopped`, 'nothing was measured; run again', {
      exitCode: ExitCode.INTERRUPTED,
    });
  const tooSlow = () => {
    const cause: RequestError = {
      code: 'TIMEOUT',
      message: `no whole answer within ${timeoutMs / 1000} s`,
    };
    return new GoodputError(
      'E_UNREACHABLE',
      `GET ${url} failed: ${REQUEST_ERRORS.TIMEOUT.cause} (${cause.message})`,
      `${REQUEST_ERRORS.TIMEOUT.hint}; or pass --model so that the model list is not needed`,
      { cause },
    );
  };
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: 'GET',
      headers,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal,
      // One call: its connection closes with it, not parked idle in a server with few threads.
      reset: true,
    });
    status = res.statusCode;
    const ok = status >= 200 && status < 300;
    const body = await readBounded(res.body, {
      maxBytes: ok ? MAX_MODELS_BODY_BYTES : MAX_ERROR_BODY_BYTES,
      timeoutMs: Math.max(1, timeoutMs - (performance.now() - t0)),
      signal,
    });
    if (body.stopped === 'aborted') throw opts.signal?.aborted ? interrupted() : tooSlow();
    if (body.stopped === 'timeout') throw tooSlow();
    if (body.stopped === 'limit' && ok) {
      throw new GoodputError(
        'E_NO_MODEL',
        `GET ${url} answered with more than ${MAX_MODELS_BODY_BYTES / 1024 / 1024} MiB; that is not a model list`,
        'pass --model with the id the server serves, and check that --url is the base URL',
      );
    }
    text = body.text;
  } catch (err) {
    if (err instanceof GoodputError) throw err;
    if (opts.signal?.aborted) throw interrupted();
    if (deadline.aborted) throw tooSlow();
    const cause = classifyNetworkError(err);
    cause.message = redact(cause.message);
    const info = REQUEST_ERRORS[cause.code];
    throw new GoodputError(
      'E_UNREACHABLE',
      `GET ${url} failed: ${info.cause} (${cause.message})`,
      info.hint,
      {
        cause,
      },
    );
  } finally {
    void dispatcher?.close().catch(() => {});
  }
  if (status < 200 || status >= 300) {
    const cause: RequestError = {
      code: status === 401 ? 'HTTP_UNAUTHORIZED' : status === 403 ? 'HTTP_FORBIDDEN' : 'HTTP_CLIENT_ERROR',
      message: `HTTP ${status}${serverSaid(redact(text))}`,
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
