/**
 * Several watch targets from one file (`--targets FILE`, YAML or JSON):
 *
 * ```yaml
 * targets:
 *   - name: prod-eu            # optional; default: the URL's host:port
 *     url: https://llm.eu.example.com
 *     model: meta-llama/Llama-3.1-8B-Instruct   # optional; default: first of /v1/models
 *     key_env: PROD_EU_KEY     # NAME of the environment variable holding the key (never the key)
 *     slo: ttft=500,tpot=50    # or { ttft_ms: 500, tpot_ms: 50, e2el_ms: 5000 }
 *     gpu_metrics_url: http://gpu-node-7:9400/metrics   # optional; its DCGM exporter (default: --gpu-metrics-url)
 * ```
 *
 * The file names variables, never keys: a key written into it is refused, and so is a URL
 * that carries credentials.
 *
 * @module
 */

import { z } from 'zod';
import { hasBearerPrefix, normalizeMetricsUrl, parseSlo, redactUrl } from '../config/index.js';
import { GoodputError } from '../errors.js';
import type { Slo } from '../types.js';
import { parseYamlBounded, readTextFileBounded } from '../util/index.js';

/** One target as watch uses it. The key is resolved from the environment, in memory only. */
export interface WatchTarget {
  name: string;
  /** Undefined: the embedded simulated engine. */
  url?: string;
  model?: string;
  /** Name of the environment variable that held the key, if any. */
  keyEnv?: string;
  apiKey?: string;
  slo: Slo;
  /** The NVIDIA DCGM exporter of the target's GPUs (`gpu_metrics_url`, or --gpu-metrics-url). */
  gpuMetricsUrl?: string;
}

const SloObject = z
  .object({
    ttft_ms: z.number().positive(),
    tpot_ms: z.number().positive(),
    e2el_ms: z.number().positive(),
    user_tps: z.number().positive(),
  })
  .partial()
  .strict();

const TargetSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
      .optional(),
    url: z.url(),
    model: z.string().min(1).optional(),
    key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable NAME such as PROD_KEY')
      .optional(),
    slo: z.union([z.string(), SloObject]).optional(),
    gpu_metrics_url: z.string().optional(),
  })
  .strict();

const FileSchema = z.object({ targets: z.array(TargetSchema).min(1) }).strict();

function fileError(path: string, problem: string): GoodputError {
  return new GoodputError(
    'E_CONFIG',
    `${path}: ${problem}`,
    'write targets: [{ name, url, model, key_env: VAR_NAME, slo: "ttft=500,tpot=50" }] (YAML or JSON)',
  );
}

/** A target's `gpu_metrics_url`, checked as --gpu-metrics-url is (a bare host gets /metrics); no credentials. */
function gpuMetricsUrl(raw: string, path: string, i: number): string {
  const where = `targets[${i}].gpu_metrics_url`;
  // Credentials first, so that no message below can show them.
  if (redactUrl(raw.trim()) !== raw.trim())
    throw fileError(path, `${where} holds credentials: the file must not carry any`);
  try {
    return normalizeMetricsUrl(raw, where, 'http://gpu-node:9400/metrics').url;
  } catch (e) {
    throw fileError(path, (e as Error).message);
  }
}

/** Parses a targets file's text; `env` resolves each key_env. Throws E_CONFIG naming the field. */
export function parseTargetsText(
  text: string,
  path: string,
  env: Record<string, string | undefined>,
): WatchTarget[] {
  const yaml = parseYamlBounded(text);
  if (!yaml.ok) throw fileError(path, `not YAML or JSON (${yaml.problem})`);
  const raw: unknown = yaml.documents.length === 1 ? yaml.documents[0] : yaml.documents;
  if (
    raw &&
    typeof raw === 'object' &&
    'targets' in raw &&
    Array.isArray((raw as { targets: unknown }).targets)
  ) {
    for (const [i, t] of ((raw as { targets: unknown[] }).targets ?? []).entries()) {
      if (t && typeof t === 'object' && ('api_key' in t || 'apiKey' in t || 'key' in t)) {
        throw fileError(
          path,
          `targets[${i}] holds a key: name its environment variable with key_env instead`,
        );
      }
    }
  }
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
      .join('')
      .replace(/^\./, '');
    throw fileError(path, `${where || '(root)'}: ${issue.message}`);
  }
  const seen = new Set<string>();
  return parsed.data.targets.map((t, i) => {
    const name = t.name ?? defaultTargetName(t.url);
    if (seen.has(name)) throw fileError(path, `targets[${i}].name '${name}' is used twice`);
    seen.add(name);
    const out: WatchTarget = { name, url: t.url, slo: {} };
    if (redactUrl(t.url) !== t.url) throw fileError(path, `targets[${i}].url holds credentials: use key_env`);
    if (t.model !== undefined) out.model = t.model;
    if (t.gpu_metrics_url !== undefined) out.gpuMetricsUrl = gpuMetricsUrl(t.gpu_metrics_url, path, i);
    if (typeof t.slo === 'string') out.slo = parseSlo(t.slo, `targets[${i}].slo`);
    else if (t.slo) {
      if (t.slo.ttft_ms !== undefined) out.slo.ttftMs = t.slo.ttft_ms;
      if (t.slo.tpot_ms !== undefined) out.slo.tpotMs = t.slo.tpot_ms;
      if (t.slo.e2el_ms !== undefined) out.slo.e2elMs = t.slo.e2el_ms;
      if (t.slo.user_tps !== undefined) out.slo.userTps = t.slo.user_tps;
    }
    if (t.key_env !== undefined) {
      out.keyEnv = t.key_env;
      const key = env[t.key_env];
      if (key === undefined || key === '') {
        throw new GoodputError(
          'E_KEY',
          `targets[${i}] (${name}): environment variable ${t.key_env} is not set`,
          `export ${t.key_env}=<key> before starting goodput watch`,
        );
      }
      if (hasBearerPrefix(key)) {
        throw new GoodputError(
          'E_KEY',
          `targets[${i}] (${name}): environment variable ${t.key_env} starts with "Bearer ": goodput sends "Authorization: Bearer <key>" itself, so the server would get "Bearer Bearer …"`,
          `keep only the key itself in ${t.key_env} (drop the "Bearer " prefix)`,
        );
      }
      out.apiKey = key.trim();
    }
    return out;
  });
}

/**
 * A target's name when none is given: the URL's host and path (without a trailing `/` or
 * `/v1`), so that two deployments behind one gateway (http://gw/llama, http://gw/qwen) are two
 * targets; keyed by host:port alone, their rounds went into one history.
 *
 * @example
 * defaultTargetName('http://gw:8000/llama/v1/'); // 'gw:8000/llama'
 */
export function defaultTargetName(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${u.host}${path}`;
}

/** Reads and parses a targets file. */
export async function readTargetsFile(
  path: string,
  env: Record<string, string | undefined>,
): Promise<WatchTarget[]> {
  const file = await readTextFileBounded(path);
  if (!file.ok) {
    throw new GoodputError(
      'E_CONFIG',
      `cannot read the targets file ${path}: ${file.problem}`,
      'check the path given to --targets',
    );
  }
  return parseTargetsText(file.text, path, env);
}
