/**
 * Where the target comes from: flags override the environment, the environment overrides
 * the config file, the file overrides defaults. Records the origin of each value (doctor
 * prints it) and keeps the raw key beside the trimmed one (doctor warns about whitespace).
 *
 * Environment: the base URL from GOODPUT_BASE_URL, else OPENAI_BASE_URL (the OpenAI SDKs'
 * variable, usually ending in /v1), GOODPUT_MODEL, GOODPUT_CONFIG (a config file when no
 * --config), and the key from GOODPUT_API_KEY, else OPENAI_API_KEY. An `--api-key-file`
 * the user names is a flag and wins over both.
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { GoodputError } from '../errors.js';
import type { Slo } from '../types.js';
import { readTextFileBounded } from '../util/index.js';
import type { FileConfig } from './file.js';
import { parseSlo } from './parse.js';
import { hasBearerPrefix, inspectKey } from './secrets.js';
import { normalizeBaseUrl } from './url.js';

export type ValueSource = 'flag' | 'env' | 'file' | 'default';

/** Where one setting came from, e.g. { source: 'env', detail: 'GOODPUT_API_KEY' }. Never holds the value. */
export interface Origin {
  source: ValueSource;
  /** The flag, variable or file field it came from, or what the default means. */
  detail: string;
}

/** The endpoint to measure, resolved from flags, environment and config file. */
export interface TargetConfig {
  /** Without trailing slashes; undefined = the embedded engine. */
  baseUrl?: string;
  /** Trimmed, ready to send. Never print it: use describeKey. */
  apiKey?: string;
  /** The key exactly as found (may carry whitespace); only for doctor's checks. */
  apiKeyRaw?: string;
  /** Undefined = the first id of GET /v1/models. */
  model?: string;
  slo?: Slo;
  timeoutMs?: number;
  maxRetries?: number;
  /** The config file's server-metrics URL(s) (`metrics_url`, `metricsUrl`); `--metrics-url` wins. */
  metricsUrls?: string[];
  /** The config file's traffic classes, as `--class` values (`--class` wins). */
  classes?: string[];
  source: { baseUrl: Origin; apiKey: Origin; model: Origin; slo?: Origin; configFile?: string };
  /** Problems with the raw key (surrounding whitespace, quotes, "Bearer "), without the key. */
  keyProblems: string[];
  /** Things the user should know (an empty variable skipped, a base URL ending in /v1). */
  warnings: string[];
}

export interface TargetFlags {
  url?: string;
  model?: string;
  /** Path to a file holding the key. */
  apiKeyFile?: string;
  /** Path to a config file. */
  config?: string;
  /** SLO text, e.g. "ttft=500,tpot=100". */
  slo?: string;
}

export interface TargetInputs {
  flags?: TargetFlags;
  env?: Record<string, string | undefined>;
  /** Directory that relative paths are resolved against (default process.cwd()). */
  cwd?: string;
  /** An already loaded config file (otherwise --config or GOODPUT_CONFIG is read). */
  file?: FileConfig;
}

const KEY_VARS = ['GOODPUT_API_KEY', 'OPENAI_API_KEY'] as const;

/** A key file holds one key: anything longer is not one (and /dev/zero is never read whole). */
const KEY_FILE_MAX_BYTES = 64 * 1024;

async function readKeyFile(path: string): Promise<string> {
  const file = await readTextFileBounded(path, { maxBytes: KEY_FILE_MAX_BYTES });
  if (!file.ok) {
    throw new GoodputError(
      'E_KEY',
      `cannot read --api-key-file ${path} (${file.problem})`,
      'point --api-key-file at a readable file that holds only the key',
    );
  }
  const raw = file.text;
  if (raw.trim() === '') {
    throw new GoodputError(
      'E_KEY',
      `--api-key-file ${path} is empty`,
      'write the key into the file, or set GOODPUT_API_KEY',
    );
  }
  return raw;
}

/** The key, its raw form and its origin: --api-key-file, GOODPUT_API_KEY, OPENAI_API_KEY, the file. */
async function resolveKey(
  flags: TargetFlags,
  env: Record<string, string | undefined>,
  file: FileConfig | undefined,
  cwd: string,
  warnings: string[],
): Promise<{ raw?: string; origin: Origin }> {
  if (flags.apiKeyFile !== undefined) {
    const path = resolvePath(cwd, flags.apiKeyFile);
    return { raw: await readKeyFile(path), origin: { source: 'flag', detail: `--api-key-file ${path}` } };
  }
  for (const name of KEY_VARS) {
    const value = env[name];
    if (value === undefined) continue;
    if (value.trim() === '') {
      warnings.push(`${name} is set but empty: ignored`);
      continue;
    }
    return { raw: value, origin: { source: 'env', detail: name } };
  }
  if (file?.apiKeyRaw !== undefined && file.apiKeyRaw.trim() !== '') {
    const field = file.shape === 'gateway' ? 'apiKey' : 'api_key';
    return { raw: file.apiKeyRaw, origin: { source: 'file', detail: `${file.path}: ${field}` } };
  }
  return {
    origin: {
      source: 'default',
      detail: 'no key (none of --api-key-file, GOODPUT_API_KEY, OPENAI_API_KEY, config file)',
    },
  };
}

/**
 * Resolves the target settings. Throws E_CONFIG (bad file), E_KEY (unreadable key file) or
 * E_USAGE (bad URL or SLO), never with the key in the message.
 *
 * @example
 * const target = await resolveTarget({ flags: { url: 'http://localhost:8000' }, env: process.env });
 * target.source.apiKey; // { source: 'env', detail: 'OPENAI_API_KEY' }
 */
export async function resolveTarget(inputs: TargetInputs = {}): Promise<TargetConfig> {
  const flags = inputs.flags ?? {};
  const env = inputs.env ?? {};
  const cwd = inputs.cwd ?? process.cwd();
  const warnings: string[] = [];

  let file = inputs.file;
  if (file === undefined) {
    const configPath = flags.config ?? (env.GOODPUT_CONFIG?.trim() || undefined);
    if (configPath !== undefined) {
      // Loaded here: the config file's zod schemas are for the runs that name one.
      const { loadConfigFile } = await import('./file.js');
      file = await loadConfigFile(resolvePath(cwd, configPath));
    }
  }
  const fileField = (settings: string, gateway: string) =>
    file ? `${file.path}: ${file.shape === 'gateway' ? gateway : settings}` : '';

  const pick = <T>(
    flag: T | undefined,
    flagName: string,
    envValue: T | undefined,
    envName: string,
    fileValue: T | undefined,
    fileDetail: string,
  ): { value?: T; origin?: Origin } => {
    if (flag !== undefined) return { value: flag, origin: { source: 'flag', detail: flagName } };
    if (envValue !== undefined) return { value: envValue, origin: { source: 'env', detail: envName } };
    if (fileValue !== undefined) return { value: fileValue, origin: { source: 'file', detail: fileDetail } };
    return {};
  };
  const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

  const urlVar = nonEmpty(env.GOODPUT_BASE_URL) !== undefined ? 'GOODPUT_BASE_URL' : 'OPENAI_BASE_URL';
  const url = pick(
    nonEmpty(flags.url),
    '--url',
    nonEmpty(env[urlVar]),
    urlVar,
    file?.baseUrl,
    fileField('base_url', 'baseUrl'),
  );
  const model = pick(
    nonEmpty(flags.model),
    '--model',
    nonEmpty(env.GOODPUT_MODEL),
    'GOODPUT_MODEL',
    file?.model,
    fileField('model_id', 'model'),
  );
  const key = await resolveKey(flags, env, file, cwd, warnings);

  const target: TargetConfig = {
    source: {
      baseUrl: url.origin ?? { source: 'default', detail: 'the embedded simulated engine (no --url)' },
      apiKey: key.origin,
      model: model.origin ?? { source: 'default', detail: 'the first id from GET /v1/models' },
    },
    keyProblems: [],
    warnings,
  };
  if (file) target.source.configFile = file.path;
  if (url.value !== undefined) {
    // One normalisation for run and doctor: refused with the fixed URL, or corrected and said.
    const normalized = normalizeBaseUrl(url.value, url.origin!.detail);
    target.baseUrl = normalized.baseUrl;
    warnings.push(...normalized.notes);
    // OPENAI_BASE_URL ends in /v1 by the SDKs' convention; the client does not double it.
    if (/\/v1$/i.test(target.baseUrl) && url.origin!.detail !== 'OPENAI_BASE_URL') {
      warnings.push(
        `the base URL from ${url.origin!.detail} ends in /v1, and goodput appends /v1/chat/completions itself: drop the /v1 unless the server really serves /v1/v1/...`,
      );
    }
  }
  if (model.value !== undefined) target.model = model.value;
  if (key.raw !== undefined) {
    const inspection = inspectKey(key.raw);
    target.apiKey = inspection.key;
    target.apiKeyRaw = key.raw;
    target.keyProblems = inspection.problems;
  }

  const flagSlo = flags.slo !== undefined && flags.slo.trim() !== '' ? parseSlo(flags.slo) : undefined;
  if (flagSlo || file?.slo) {
    // Per objective: a flag's objectives replace the file's, the others are kept.
    target.slo = { ...file?.slo, ...flagSlo };
    target.source.slo = flagSlo
      ? { source: 'flag', detail: file?.slo ? '--slo (over the config file)' : '--slo' }
      : { source: 'file', detail: fileField('slo', 'slo') };
  }
  if (file?.timeoutMs !== undefined) target.timeoutMs = file.timeoutMs;
  if (file?.maxRetries !== undefined) target.maxRetries = file.maxRetries;
  if (file?.metricsUrls !== undefined) target.metricsUrls = file.metricsUrls;
  if (file?.classes !== undefined) target.classes = file.classes;
  return target;
}

/**
 * Refuses a key that cannot work as given, before anything is sent: one that starts with
 * "Bearer " (a key file or variable holding the whole header value) would go out as
 * "Authorization: Bearer Bearer …". Doctor reports the same problem as a check instead.
 */
export function refuseUnusableKey(target: TargetConfig): void {
  if (!hasBearerPrefix(target.apiKey)) return;
  const where = target.source.apiKey.detail;
  throw new GoodputError(
    'E_KEY',
    `the API key from ${where} starts with "Bearer ": goodput sends "Authorization: Bearer <key>" itself, so the server would get "Bearer Bearer …"`,
    `keep only the key itself in ${where} (drop the "Bearer " prefix)`,
  );
}
