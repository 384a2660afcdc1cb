/**
 * A Prometheus server as the source of server metrics (`--metrics-prometheus URL
 * --metrics-selector '{job="vllm"}'`): the engines' series over the run window read with one
 * range query (`/api/v1/query_range`), each step of each instance turned back into a scrape
 * and normalised by the same dialect tables as a direct scrape (normalize.ts). Several
 * instances are several replicas (replicas.ts).
 *
 * Hostile or wrong input: every reply is bounded in bytes and time; an error reply (`status:
 * "error"`, its `errorType`) is named; a selector that is not label matchers, or that matches
 * no series of an engine goodput reads, is refused before the run (exit 2) with a hint. The
 * Authorization header (from GOODPUT_PROMETHEUS_AUTH) is never printed.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ServerSample } from '../types.js';
import { readBounded } from '../util/index.js';
import { request } from '../util/undici.js';
import { detectEngine, normalizeExposition } from './normalize.js';
import type { PromSample } from './parse.js';

/** Where the series are, and how to ask for them. */
export interface PrometheusSource {
  /** The server's base URL, e.g. http://prometheus:9090 (a trailing /api/v1 is accepted). */
  url: string;
  /** Label matchers in braces, e.g. `{job="vllm"}` (parseSelector's form). */
  selector: string;
  /** Sent with every query (Authorization). Never printed. */
  headers?: Record<string, string>;
  /**
   * One metric of the selector that every instance exposes (checkPrometheusSource picks it):
   * its sample times say how far Prometheus has scraped.
   */
  clockMetric?: string;
}

/** The largest API reply read (a long run's range of a few hundred series). */
export const MAX_PROMETHEUS_BYTES = 32 * 1024 * 1024;
/** Steps per series at most: the step grows on long runs (Prometheus itself refuses 11,000). */
export const MAX_RANGE_POINTS = 5000;

const SELECTOR_HINT =
  'give label matchers in braces, e.g. --metrics-selector \'{job="vllm"}\' or \'{namespace="llm",pod=~"vllm-.*"}\'';

/**
 * A `--metrics-selector` checked and put in braces: label matchers only (`name="v"`, `!=`,
 * `=~`, `!~`), at least one. A metric name in front, or anything else, is a usage error.
 */
export function parseSelector(raw: string): string {
  const text = raw.trim();
  const inner = text.startsWith('{') && text.endsWith('}') ? text.slice(1, -1).trim() : text;
  const matcher = /^\s*[A-Za-z_][A-Za-z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*$/;
  // Commas inside quoted values are not separators.
  const parts = inner.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  if (text === '' || parts.length === 0 || !parts.every((p) => matcher.test(p))) {
    throw new GoodputError(
      'E_USAGE',
      `--metrics-selector '${text}' is not a set of label matchers (the engines' metric names are goodput's to choose)`,
      SELECTOR_HINT,
    );
  }
  return `{${parts.map((p) => p.trim()).join(',')}}`;
}

/** `http://prom:9090/` or `http://prom:9090/api/v1` → the API endpoint `path` under it. */
function apiUrl(base: string, path: string, params: Record<string, string>): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1/${path}`;
  u.search = new URLSearchParams(params).toString();
  return u.toString();
}

interface ApiReply<T> {
  status?: string;
  data?: T;
  errorType?: string;
  error?: string;
}

/**
 * One API GET, bounded in bytes and time. An error reply (status "error") throws: E_USAGE for
 * `bad_data` (the query goodput built from the selector was refused), else E_UNREACHABLE.
 */
export async function prometheusApi<T>(
  source: Pick<PrometheusSource, 'url' | 'headers'>,
  path: string,
  params: Record<string, string>,
  opts: { timeoutMs?: number; signal?: AbortSignal; maxBytes?: number } = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxBytes = opts.maxBytes ?? MAX_PROMETHEUS_BYTES;
  const where = `Prometheus at ${source.url}`;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  let text: string;
  let status: number;
  try {
    const res = await request(apiUrl(source.url, path, params), {
      method: 'GET',
      headers: { accept: 'application/json', ...source.headers },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal,
    });
    status = res.statusCode;
    const body = await readBounded(res.body, { maxBytes, timeoutMs, signal });
    if (body.stopped === 'limit')
      throw new Error(`sent more than ${(maxBytes / 1024 / 1024).toFixed(0)} MiB: not read further`);
    if (body.stopped) throw new Error(`did not finish its answer within ${timeoutMs} ms`);
    text = body.text;
  } catch (e) {
    throw new GoodputError(
      'E_UNREACHABLE',
      `${where}: ${(e as Error).message}`,
      'check --metrics-prometheus (the server, not an exporter: http://HOST:9090)',
    );
  }
  let reply: ApiReply<T> | undefined;
  try {
    reply = JSON.parse(text) as ApiReply<T>;
  } catch {
    reply = undefined;
  }
  if (reply?.status === 'error') {
    const why = `${where} answered ${reply.errorType ?? 'an error'}: ${String(reply.error ?? '').slice(0, 300)}`;
    if (reply.errorType === 'bad_data')
      throw new GoodputError('E_USAGE', why, `check --metrics-selector; ${SELECTOR_HINT}`);
    throw new GoodputError(
      'E_UNREACHABLE',
      why,
      'check that the Prometheus server is healthy, then run again',
    );
  }
  if (status === 401 || status === 403)
    throw new GoodputError(
      'E_USAGE',
      `${where} answered HTTP ${status}`,
      'set GOODPUT_PROMETHEUS_AUTH to its Authorization header value, e.g. "Bearer <token>"',
    );
  if (status !== 200 || reply?.status !== 'success' || reply.data === undefined || reply.data === null)
    throw new GoodputError(
      'E_UNREACHABLE',
      `${where} did not answer as Prometheus's HTTP API does (HTTP ${status})`,
      'give --metrics-prometheus the Prometheus server itself, e.g. http://prometheus:9090',
    );
  return reply.data;
}

interface VectorResult {
  resultType: string;
  result: Array<{ metric: Record<string, string>; value: [number, string] }>;
}
export interface MatrixResult {
  resultType: string;
  result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;
}

/**
 * Checks, before the run, that the selector finds an engine goodput reads: its metric names
 * (one small query) normalise to a known dialect. Returns the engine and the instances seen.
 */
export async function checkPrometheusSource(
  source: PrometheusSource,
  opts: { signal?: AbortSignal } = {},
): Promise<{ engine: ServerSample['engine']; instances: string[]; clockMetric: string }> {
  const data = await prometheusApi<VectorResult>(
    source,
    'query',
    { query: `count by (__name__, instance) (${source.selector})` },
    opts,
  );
  const names = data.result.map((r) => ({ name: r.metric.__name__ ?? '', labels: {}, value: 0 }));
  if (names.length === 0)
    throw new GoodputError(
      'E_USAGE',
      `Prometheus at ${source.url} has no series matching ${source.selector} now`,
      `check the labels with ${apiUrl(source.url, 'series', { 'match[]': source.selector })}, or that Prometheus scrapes the engine`,
    );
  const engine = detectEngine(names);
  if (engine === 'unknown') {
    const seen = [...new Set(names.map((n) => n.name))].slice(0, 5).join(', ');
    throw new GoodputError(
      'E_USAGE',
      `${source.selector} in Prometheus at ${source.url} matches no engine series goodput reads (seen: ${seen})`,
      "narrow or change --metrics-selector to the engine's own job (vLLM, SGLang, llama.cpp or TGI series)",
    );
  }
  const instances = [...new Set(data.result.map((r) => r.metric.instance ?? ''))].sort();
  const perName = new Map<string, number>();
  for (const r of data.result)
    perName.set(r.metric.__name__ ?? '', (perName.get(r.metric.__name__ ?? '') ?? 0) + 1);
  const clockMetric = [...perName].sort(([a, x], [b, y]) => y - x || a.localeCompare(b))[0]![0];
  return { engine, instances, clockMetric };
}

/**
 * How far Prometheus has scraped every instance (Unix s): the oldest of the clock metric's last
 * sample times (one metric, since `timestamp()` drops the names that tell series apart).
 */
export async function lastScrapedAt(
  source: PrometheusSource,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const series = source.clockMetric
    ? `${source.selector.slice(0, -1)},__name__=${JSON.stringify(source.clockMetric)}}`
    : `up${source.selector}`;
  const data = await prometheusApi<VectorResult>(
    source,
    'query',
    { query: `min(timestamp(${series}))` },
    { signal },
  );
  const v = Number(data.result[0]?.value[1]);
  return Number.isFinite(v) ? v : undefined;
}

/** The selector without histogram buckets: many series that no figure reads. */
export function rangeQuery(selector: string): string {
  return `${selector.slice(0, -1)},__name__!~".*_bucket"}`;
}

/**
 * A range query's series turned into scrapes: per instance (its `instance` label) and step,
 * the series' values as one exposition, normalised. One instance gives unnamed samples (a
 * single endpoint); several, samples naming their replica. `toRunMs` maps a step's Unix
 * seconds to the run's clock.
 */
export function matrixToSamples(matrix: MatrixResult, toRunMs: (unixS: number) => number): ServerSample[] {
  const byInstance = new Map<string, Map<number, PromSample[]>>();
  for (const series of matrix.result) {
    const { __name__: name, ...labels } = series.metric;
    if (!name) continue;
    const instance = labels.instance ?? '';
    let steps = byInstance.get(instance);
    if (!steps) {
      steps = new Map();
      byInstance.set(instance, steps);
    }
    for (const [t, v] of series.values) {
      const value = Number(v);
      if (!Number.isFinite(t)) continue;
      let list = steps.get(t);
      if (!list) {
        list = [];
        steps.set(t, list);
      }
      list.push({ name, labels, value });
    }
  }
  const several = byInstance.size > 1;
  const out: ServerSample[] = [];
  for (const [instance, steps] of [...byInstance].sort(([a], [b]) => a.localeCompare(b))) {
    for (const [t, samples] of [...steps].sort(([a], [b]) => a - b)) {
      const scrape = normalizeExposition({ samples });
      const sample: ServerSample = { tMs: toRunMs(t), ...scrape };
      if (several) sample.replica = instance || 'no instance label';
      out.push(sample);
    }
  }
  return out.sort((a, b) => a.tMs - b.tMs);
}
