/**
 * Config files, in either of two shapes, validated with zod (strict: unknown fields are
 * errors, reported with their path and the likely intended name):
 *
 * - settings.json: `{ "base_url", "api_key", "model_id", "slo": { "ttft_ms", "tpot_ms", "e2el_ms", "user_tps" } }`
 * - gateway: `{ "provider": "openai-compatible", "baseUrl", "apiKey", "model", "timeoutMs", "maxRetries" }`
 *
 * Both normalise to FileConfig. Values are never echoed in errors (a value may be a key).
 *
 * @module
 */

import { z } from 'zod';
import { GoodputError } from '../errors.js';
import { type Bounds, describeBounds, TARGET_OPTIONS } from '../flags/options/index.js';
import type { Slo } from '../types.js';
import { readTextFileBounded } from '../util/index.js';
import { describeIssues } from './issues.js';

const httpUrl = z
  .string()
  .regex(/^https?:\/\/[^/\s]/i, { message: 'expected an http:// or https:// URL' })
  .optional();
const positiveMs = z.number().positive().optional();
/** One server-metrics URL, or one per replica (as `--metrics-url` given once or repeated). */
const metricsUrls = z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(64)]).optional();

/** Traffic classes, each written as a `--class` value: "name=chat,share=0.7,slo-ttft=500". */
const classTexts = z.array(z.string().min(1)).min(1).max(32).optional();

const settingsSlo = z.strictObject({
  ttft_ms: positiveMs,
  tpot_ms: positiveMs,
  e2el_ms: positiveMs,
  user_tps: positiveMs,
});

/** The settings.json shape. */
export const SettingsFileSchema = z.strictObject({
  base_url: httpUrl,
  api_key: z.string().optional(),
  model_id: z.string().min(1).optional(),
  slo: settingsSlo.optional(),
  metrics_url: metricsUrls,
  classes: classTexts,
});

/**
 * A whole number within the bounds of the flag the field stands for (the option table's
 * entry: `timeoutMs` is --timeout, `maxRetries` --max-retries), refused in the same words.
 */
function boundedInt(bounds: Bounds, ms: boolean) {
  const message = `must be ${describeBounds(bounds, ms)}`;
  let schema = z.number().int();
  if (bounds.min !== undefined) schema = schema.min(bounds.min, { message });
  if (bounds.max !== undefined) schema = schema.max(bounds.max, { message });
  return schema.optional();
}

/** The gateway shape. */
export const GatewayFileSchema = z.strictObject({
  provider: z.literal('openai-compatible').optional(),
  baseUrl: httpUrl,
  apiKey: z.string().optional(),
  model: z.string().min(1).optional(),
  timeoutMs: boundedInt(TARGET_OPTIONS.timeout, true),
  maxRetries: boundedInt({ min: 0, ...TARGET_OPTIONS.maxRetries }, false),
  metricsUrl: metricsUrls,
  classes: classTexts,
});

export type ConfigFileShape = 'settings' | 'gateway';

/** What a config file sets, whichever shape it had. */
export interface FileConfig {
  /** Absolute or as-given path of the file. */
  path: string;
  shape: ConfigFileShape;
  baseUrl?: string;
  /** Trimmed for use; apiKeyRaw keeps the value as written, for doctor's whitespace warning. */
  apiKey?: string;
  apiKeyRaw?: string;
  model?: string;
  slo?: Slo;
  timeoutMs?: number;
  maxRetries?: number;
  /** `metrics_url` / `metricsUrl`: the server-metrics URL, or one per replica (`--metrics-url` wins). */
  metricsUrls?: string[];
  /** `classes`: traffic classes as `--class` values (`--class` wins). */
  classes?: string[];
}

const SETTINGS_KEYS = ['base_url', 'api_key', 'model_id', 'slo', 'metrics_url', 'classes'];
const GATEWAY_KEYS = [
  'provider',
  'baseUrl',
  'apiKey',
  'model',
  'timeoutMs',
  'maxRetries',
  'metricsUrl',
  'classes',
];
const SLO_KEYS = ['ttft_ms', 'tpot_ms', 'e2el_ms', 'user_tps'];

const HINT =
  'use the settings.json shape {"base_url", "api_key", "model_id", "slo": {"ttft_ms", "tpot_ms", "e2el_ms", "user_tps"}} ' +
  'or the gateway shape {"provider": "openai-compatible", "baseUrl", "apiKey", "model", "timeoutMs", "maxRetries"}';

/** Which shape a parsed object is meant to be: the one sharing more of its keys (gateway when it names a provider). */
export function detectShape(value: Record<string, unknown>): ConfigFileShape {
  const keys = Object.keys(value);
  if ('provider' in value) return 'gateway';
  const gateway = keys.filter((k) => GATEWAY_KEYS.includes(k)).length;
  const settings = keys.filter((k) => SETTINGS_KEYS.includes(k)).length;
  return gateway > settings ? 'gateway' : 'settings';
}

const listOf = (v: string | string[] | undefined): string[] | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? v : [v];

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Validates a parsed config object (pure). `name` (the file's path) is used in errors.
 * Throws GoodputError 'E_CONFIG' listing every problem with its field path.
 */
export function parseConfig(value: unknown, name: string): FileConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GoodputError(
      'E_CONFIG',
      `${name}: expected a JSON object, got ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}`,
      HINT,
    );
  }
  const record = value as Record<string, unknown>;
  const shape = detectShape(record);
  const schema = shape === 'gateway' ? GatewayFileSchema : SettingsFileSchema;
  const result = schema.safeParse(record, { reportInput: true });
  if (!result.success) {
    const known = (path: readonly PropertyKey[]) =>
      path.length === 0
        ? shape === 'gateway'
          ? GATEWAY_KEYS
          : SETTINGS_KEYS
        : path[0] === 'slo'
          ? SLO_KEYS
          : undefined;
    const lines = describeIssues(result.error.issues, known);
    throw new GoodputError(
      'E_CONFIG',
      `${name} (${shape} shape) is invalid:\n  ${lines.join('\n  ')}`,
      shape === 'gateway'
        ? `fix the fields named above; the gateway shape is {"provider": "openai-compatible", "baseUrl", "apiKey", "model", "timeoutMs", "maxRetries"}`
        : `fix the fields named above; the settings.json shape is {"base_url", "api_key", "model_id", "slo": {"ttft_ms", "tpot_ms", "e2el_ms", "user_tps"}}`,
    );
  }
  if (shape === 'gateway') {
    const g = result.data as z.infer<typeof GatewayFileSchema>;
    return definedOnly({
      path: name,
      shape,
      baseUrl: g.baseUrl,
      apiKey: g.apiKey?.trim() || undefined,
      apiKeyRaw: g.apiKey,
      model: g.model,
      timeoutMs: g.timeoutMs,
      maxRetries: g.maxRetries,
      metricsUrls: listOf(g.metricsUrl),
      classes: g.classes,
    });
  }
  const s = result.data as z.infer<typeof SettingsFileSchema>;
  const slo = s.slo
    ? definedOnly<Slo>({
        ttftMs: s.slo.ttft_ms,
        tpotMs: s.slo.tpot_ms,
        e2elMs: s.slo.e2el_ms,
        userTps: s.slo.user_tps,
      })
    : undefined;
  return definedOnly({
    path: name,
    shape,
    baseUrl: s.base_url,
    apiKey: s.api_key?.trim() || undefined,
    apiKeyRaw: s.api_key,
    model: s.model_id,
    slo: slo && Object.keys(slo).length > 0 ? slo : undefined,
    metricsUrls: listOf(s.metrics_url),
    classes: s.classes,
  });
}

/**
 * Where JSON.parse failed, as "at line L, column C", without quoting the text around it
 * (some Node versions quote it in their message, and the text may hold a key).
 */
function jsonErrorLocation(text: string, error: Error): string {
  const position = /position (\d+)/.exec(error.message);
  if (!position) return /"|'/.test(error.message) ? '' : `(${error.message})`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `at line ${line}, column ${column}`;
}

/**
 * Reads and validates a config file.
 *
 * @example
 * const file = await loadConfigFile('settings.json');
 * file.baseUrl; // "http://localhost:8000"
 */
export async function loadConfigFile(path: string): Promise<FileConfig> {
  // Bounded: a config file is a few kilobytes; /dev/zero or a huge file must not be read whole.
  const file = await readTextFileBounded(path);
  if (!file.ok) {
    throw new GoodputError(
      'E_CONFIG',
      `cannot read config file ${path} (${file.problem})`,
      'check the path given to --config',
    );
  }
  const body = file.text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    throw new GoodputError(
      'E_CONFIG',
      `${path}: not valid JSON ${jsonErrorLocation(body, e as Error)}`,
      `fix the JSON syntax; ${HINT}`,
    );
  }
  return parseConfig(value, path);
}
