/**
 * What a server says of itself: its engine, version, models and settings, read from the
 * endpoints each engine exposes (vLLM `/version` and `vllm:cache_config_info` in `/metrics`,
 * SGLang `/get_server_info`, llama.cpp `/props`, every engine's `/v1/models`), plus the GPU
 * model from a DCGM exporter when one is given. `goodput experiment` records it per
 * configuration, and every run records it in its summary (`meta.target.selfDescription`).
 *
 * Every read is bounded in bytes and time, an endpoint that fails is named in `sources` (never
 * an error), and settings whose name looks like a credential (SGLang's server args carry
 * `api_key`) are left out.
 *
 * @module
 */

import type { ServerSelfDescription } from '../types.js';
import { makeRedactor, readBounded } from '../util/index.js';
import { request } from '../util/undici.js';
import { scrapeGpuOnce } from './dcgm-scrape.js';
import { parsePrometheusTextYielding } from './parse.js';

export interface DescribeServerOptions {
  /** DCGM exporter metrics URL: the GPU model and count. */
  gpuMetricsUrl?: string;
  /** Per endpoint, body included (default 3 s). */
  timeoutMs?: number;
  /** Extra headers (an API key for /v1/models); in memory only. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Largest JSON answer read from one endpoint. */
const MAX_JSON_BYTES = 256 * 1024;
/** Largest /metrics page read for the cache config line. */
const MAX_METRICS_BYTES = 4 * 1024 * 1024;
/** Most settings kept from one engine (SGLang lists a few hundred server args). */
const MAX_SETTINGS = 300;
/** Longest setting value kept. */
const MAX_VALUE_CHARS = 200;
/** Setting names never kept: they may hold a credential. */
const SECRET_NAME = /key|token|secret|password|passwd|credential|auth/i;

type Fetched = { ok: true; status: number; text: string } | { ok: false; reason: string };

async function getText(url: string, maxBytes: number, opts: DescribeServerOptions): Promise<Fetched> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  try {
    const res = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...opts.headers },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal,
    });
    const body = await readBounded(res.body, { maxBytes, timeoutMs, signal });
    if (body.stopped) return { ok: false, reason: `answer not read whole (${body.stopped})` };
    if (res.statusCode !== 200) return { ok: false, reason: `HTTP ${res.statusCode}` };
    return { ok: true, status: res.statusCode, text: body.text };
  } catch (e) {
    // undici names its errors by a string code; an abort or timeout is a DOMException whose
    // `code` is a number (23), so its name says it
    const err = e as Error & { code?: unknown };
    return { ok: false, reason: typeof err.code === 'string' ? err.code : err.name || 'error' };
  }
}

function parseJson(f: Fetched): unknown {
  if (!f.ok) return undefined;
  try {
    return JSON.parse(f.text);
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Scalar leaves of an object as `a.b` → string, credentials and long values left out, bounded. */
export function flattenSettings(
  value: unknown,
  into: Record<string, string> = {},
  prefix = '',
  depth = 0,
): Record<string, string> {
  if (!isObject(value) || depth > 3) return into;
  for (const [key, v] of Object.entries(value)) {
    if (Object.keys(into).length >= MAX_SETTINGS) break;
    if (SECRET_NAME.test(key)) continue;
    const name = prefix ? `${prefix}.${key}` : key;
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      const text = String(v);
      into[name] = text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
    } else if (isObject(v)) flattenSettings(v, into, name, depth + 1);
  }
  return into;
}

/** The engine a `/v1/models` list names as owner (vLLM "vllm", SGLang "sglang", llama.cpp "llamacpp"). */
function engineFromOwner(models: unknown): string | undefined {
  if (!isObject(models) || !Array.isArray(models.data)) return undefined;
  const owner = (models.data[0] as { owned_by?: unknown } | undefined)?.owned_by;
  if (typeof owner !== 'string') return undefined;
  const o = owner.toLowerCase();
  if (o === 'vllm') return 'vllm';
  if (o === 'sglang') return 'sglang';
  if (o === 'llamacpp' || o === 'llama.cpp') return 'llama.cpp';
  if (o === 'goodput-sim') return 'goodput-sim';
  return undefined;
}

/**
 * Asks the server at `baseUrl` (no `/v1`) what it is; see the module comment.
 *
 * @example
 * const d = await describeServer('http://127.0.0.1:8000');
 * d.engine; // 'vllm'
 */
export async function describeServer(
  baseUrl: string,
  opts: DescribeServerOptions = {},
): Promise<ServerSelfDescription> {
  // The server's root: a base URL given with its /v1 (as the client takes it) must not double it.
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  // One request at a time, all within one time budget: a client that asks five things at once
  // is not what the server will see during the load, and a server that answers none of them
  // costs the run the budget once, not once per endpoint.
  const budgetMs = opts.timeoutMs ?? 3000;
  const started = performance.now();
  const get = (path: string, maxBytes: number) =>
    getText(`${root}${path}`, maxBytes, {
      ...opts,
      timeoutMs: Math.max(1, Math.round(budgetMs - (performance.now() - started))),
    });
  const models = await get('/v1/models', MAX_JSON_BYTES);
  const version = await get('/version', MAX_JSON_BYTES);
  const metrics = await get('/metrics', MAX_METRICS_BYTES);
  const sglang = await get('/get_server_info', MAX_JSON_BYTES);
  const props = await get('/props', MAX_JSON_BYTES);
  const sources: Record<string, string> = {};
  const note = (name: string, f: Fetched, usable: boolean) => {
    sources[name] = f.ok ? (usable ? 'ok' : 'not understood') : f.reason;
  };
  const out: ServerSelfDescription = { engine: 'unknown', sources };
  const settings: Record<string, string> = {};

  const modelList = parseJson(models);
  const ids =
    isObject(modelList) && Array.isArray(modelList.data)
      ? modelList.data.flatMap((m) => (isObject(m) && typeof m.id === 'string' ? [m.id] : [])).slice(0, 50)
      : undefined;
  note('/v1/models', models, ids !== undefined);
  if (ids && ids.length > 0) out.models = ids;
  let engine = engineFromOwner(modelList);

  const versionJson = parseJson(version);
  const versionText =
    isObject(versionJson) && typeof versionJson.version === 'string' ? versionJson.version : undefined;
  note('/version', version, versionText !== undefined);

  let metricsEngine: string | undefined;
  if (metrics.ok) {
    const parsed = await parsePrometheusTextYielding(metrics.text);
    const names = parsed.samples.map((s) => s.name);
    if (names.some((n) => n.startsWith('vllm:'))) metricsEngine = 'vllm';
    else if (names.some((n) => n.startsWith('sglang:'))) metricsEngine = 'sglang';
    else if (names.some((n) => n.startsWith('llamacpp:'))) metricsEngine = 'llama.cpp';
    const cacheInfo = parsed.samples.find((s) => s.name === 'vllm:cache_config_info');
    if (cacheInfo) {
      for (const [k, v] of Object.entries(cacheInfo.labels)) {
        if (!SECRET_NAME.test(k)) settings[`cache_config.${k}`] = v.slice(0, MAX_VALUE_CHARS);
      }
    }
    sources['/metrics'] = parsed.samples.length > 0 ? 'ok' : 'not understood';
  } else sources['/metrics'] = metrics.reason;

  const sglangJson = parseJson(sglang);
  note('/get_server_info', sglang, isObject(sglangJson));
  if (isObject(sglangJson)) {
    engine ??= 'sglang';
    if (typeof sglangJson.version === 'string') out.version ??= sglangJson.version;
    flattenSettings(sglangJson, settings);
  }
  const propsJson = parseJson(props);
  note('/props', props, isObject(propsJson));
  if (isObject(propsJson)) {
    engine ??= 'llama.cpp';
    // llama.cpp names its build (`b6123-abc1234`) in /props; it has no /version.
    if (typeof propsJson.build_info === 'string')
      out.version ??= propsJson.build_info.slice(0, MAX_VALUE_CHARS);
    flattenSettings(propsJson, settings);
  }
  engine ??= metricsEngine ?? (versionText !== undefined ? 'vllm' : undefined);
  out.engine = engine ?? 'unknown';
  if (versionText !== undefined) out.version = versionText;
  if (Object.keys(settings).length > 0) out.settings = settings;

  if (opts.gpuMetricsUrl !== undefined) {
    try {
      const { gpus } = await scrapeGpuOnce(opts.gpuMetricsUrl, {
        timeoutMs: opts.timeoutMs ?? 3000,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      const model = gpus.find((g) => g.modelName)?.modelName;
      out.gpu = { model: model ?? 'unknown', count: gpus.length };
      sources.dcgm = 'ok';
    } catch (e) {
      sources.dcgm = (e as Error).message.slice(0, MAX_VALUE_CHARS);
    }
  }
  return out;
}

/** A description with every string a server sent run through the redactor of `secrets` (keys, secret header values). */
export function redactDescription(
  d: ServerSelfDescription,
  secrets: ReadonlyArray<string | undefined>,
): ServerSelfDescription {
  const r = makeRedactor(secrets);
  const settings = d.settings && Object.fromEntries(Object.entries(d.settings).map(([k, v]) => [r(k), r(v)]));
  const sources = Object.fromEntries(Object.entries(d.sources).map(([k, v]) => [k, r(v)]));
  return {
    ...d,
    engine: r(d.engine),
    ...(d.version !== undefined ? { version: r(d.version) } : {}),
    ...(settings ? { settings } : {}),
    ...(d.models ? { models: d.models.map(r) } : {}),
    ...(d.gpu ? { gpu: { ...d.gpu, model: r(d.gpu.model) } } : {}),
    sources,
  };
}
