/**
 * Stage 1: where the base URL, key and model came from, and what is wrong with them.
 *
 * @module
 */

import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { resolveBenchmarkConfig } from '../cli/options.js';
import type { ParsedArgs } from '../cli/spec.js';
import { isGoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/index.js';
import { analyzeBaseUrl, analyzeKey, foreignAuthMode, isLoopbackHost, type Problem } from './channel.js';
import type { StepResult } from './types.js';

type Env = Record<string, string | undefined>;

export interface ConfigOutcome {
  step: StepResult;
  config?: BenchmarkConfig;
  /** The base URL cleaned of what analyzeBaseUrl found (query string, endpoint path…). */
  baseUrl?: string;
  callUrl?: string;
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const v = JSON.parse(await readFile(path, 'utf8'));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The key as it was read (untrimmed) and where from, mirroring resolveBenchmarkConfig's precedence. */
async function rawKey(
  o: Record<string, unknown>,
  env: Env,
  file: Record<string, unknown> | undefined,
  cwd: string,
) {
  if (typeof o.apiKeyFile === 'string') {
    try {
      return {
        raw: await readFile(resolvePath(cwd, o.apiKeyFile), 'utf8'),
        source: `--api-key-file ${o.apiKeyFile}`,
      };
    } catch {
      return { raw: undefined, source: `--api-key-file ${o.apiKeyFile}` };
    }
  }
  for (const name of ['GOODPUT_API_KEY', 'OPENAI_API_KEY']) {
    const v = env[name];
    if (v !== undefined && v.trim() !== '') return { raw: v, source: `env ${name}` };
  }
  const fromFile = file?.api_key ?? file?.apiKey;
  if (typeof fromFile === 'string') return { raw: fromFile, source: 'config file' };
  return { raw: undefined, source: 'nowhere' };
}

/** Checks the configuration; `embeddedUrl` is the simulator's URL when no target was given. */
export async function checkConfig(
  args: ParsedArgs,
  env: Env,
  cwd: string,
  embeddedUrl?: string,
): Promise<ConfigOutcome> {
  const t0 = performance.now();
  const o = args.options;
  const details: string[] = [];
  const problems: Problem[] = [];
  const done = (extra: Partial<ConfigOutcome> = {}): ConfigOutcome => {
    const fail = problems.find((p) => p.severity === 'fail');
    const first = fail ?? problems[0];
    for (const p of problems) if (p !== first) details.push(`also: ${p.cause} — ${p.fix}`);
    return {
      step: {
        stage: 'config',
        title: 'Configuration (base URL, key, model)',
        status: fail ? 'fail' : problems.length > 0 ? 'warn' : 'pass',
        ms: performance.now() - t0,
        details,
        ...(first ? { cause: first.cause, fix: first.fix } : {}),
      },
      ...extra,
    };
  };
  const file = typeof o.config === 'string' ? await readJson(resolvePath(cwd, o.config)) : undefined;
  if (file) {
    const foreign = foreignAuthMode(file);
    if (foreign) {
      problems.push({
        severity: 'fail',
        cause: `the config asks for an auth mode this channel does not use (${foreign}); OpenAI-compatible endpoints take a Bearer key`,
        fix: 'remove the auth block and give the key as api_key / apiKey, or in GOODPUT_API_KEY',
      });
      return done();
    }
  }
  let config: BenchmarkConfig;
  try {
    config = await resolveBenchmarkConfig(args, env, cwd);
  } catch (e) {
    if (!isGoodputError(e)) throw e;
    problems.push({ severity: 'fail', cause: e.message, fix: e.hint });
    return done();
  }
  const urlSource =
    typeof o.url === 'string'
      ? '--url'
      : env.GOODPUT_BASE_URL
        ? 'env GOODPUT_BASE_URL'
        : file
          ? 'config file'
          : 'embedded engine';
  const rawUrl =
    typeof o.url === 'string'
      ? o.url
      : (env.GOODPUT_BASE_URL ??
        (file?.base_url as string | undefined) ??
        (file?.baseUrl as string | undefined) ??
        embeddedUrl);
  if (rawUrl === undefined) {
    problems.push({ severity: 'fail', cause: 'no base URL', fix: 'give --url http://host:port' });
    return done();
  }
  const api = config.api;
  const url = analyzeBaseUrl(rawUrl, api);
  problems.push(...url.problems);
  details.push(`base URL from ${urlSource}${url.callUrl ? `; requests go to ${url.callUrl}` : ''}`);
  if (!url.callUrl) return done();
  const host = new URL(url.callUrl).hostname;
  const key = await rawKey(o, env, file, cwd);
  const ka = analyzeKey(key.raw, key.source, isLoopbackHost(host));
  problems.push(...ka.problems);
  details.push(
    ka.present
      ? `key from ${key.source}: ${ka.description}`
      : 'no key (none in --api-key-file, GOODPUT_API_KEY, OPENAI_API_KEY or the config)',
  );
  const modelSource =
    typeof o.model === 'string'
      ? '--model'
      : env.GOODPUT_MODEL
        ? 'env GOODPUT_MODEL'
        : config.model
          ? 'config file'
          : undefined;
  details.push(
    modelSource
      ? `model '${config.model}' from ${modelSource}`
      : 'no model given: the first of GET /v1/models will be used',
  );
  const baseUrl = url.callUrl.slice(
    0,
    url.callUrl.length - (api === 'chat' ? '/v1/chat/completions' : '/v1/completions').length,
  );
  config.url = baseUrl;
  return done({ config, baseUrl, callUrl: url.callUrl });
}
