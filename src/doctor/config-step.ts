/**
 * Stage 1: where the base URL, key and model came from, and what is wrong with them.
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { endpointUrl } from '../client/index.js';
import { resolveTarget, type TargetFlags } from '../config/index.js';
import { isGoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/index.js';
import { readTextFileBounded } from '../util/index.js';
import { analyzeBaseUrl, analyzeKey, foreignAuthMode, isLoopbackHost, type Problem } from './channel.js';
import type { StepResult } from './types.js';

type Env = Record<string, string | undefined>;

export interface ConfigOutcome {
  step: StepResult;
  config?: BenchmarkConfig;
  /** The base URL cleaned of what analyzeBaseUrl found (query string, endpoint path…). */
  baseUrl?: string;
  callUrl?: string;
  /** The key as it was read (untrimmed), only for redaction; never printed. */
  apiKeyRaw?: string;
}

/** The config file as an object, if it reads (bounded, as the config module reads it) and parses. */
async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  const file = await readTextFileBounded(path);
  if (!file.ok) return undefined;
  try {
    const v = JSON.parse(file.text);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Checks the configuration; `embeddedUrl` is the simulator's URL when no target was given. */
export async function checkConfig(
  opts: { target: TargetFlags; resolveConfig: () => Promise<BenchmarkConfig>; env: Env; cwd: string },
  embeddedUrl?: string,
): Promise<ConfigOutcome> {
  const t0 = performance.now();
  const { env, cwd } = opts;
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
  const file =
    opts.target.config !== undefined ? await readJson(resolvePath(cwd, opts.target.config)) : undefined;
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
    config = await opts.resolveConfig();
  } catch (e) {
    if (!isGoodputError(e)) throw e;
    problems.push({ severity: 'fail', cause: e.message, fix: e.hint });
    return done();
  }
  // Where each setting came from, and the key as it was written (for the whitespace checks).
  const flags: TargetFlags = {};
  for (const k of ['url', 'model', 'apiKeyFile', 'config'] as const) {
    const v = opts.target[k];
    if (v !== undefined) flags[k] = v;
  }
  const target = await resolveTarget({ flags, env, cwd });
  const rawUrl = target.baseUrl ?? embeddedUrl;
  const urlSource = target.baseUrl !== undefined ? target.source.baseUrl.detail : 'the embedded engine';
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
  const keySource = target.source.apiKey.detail;
  const ka = analyzeKey(target.apiKeyRaw, keySource, isLoopbackHost(host));
  problems.push(...ka.problems);
  details.push(ka.present ? `key from ${keySource}: ${ka.description}` : keySource);
  details.push(
    target.model !== undefined
      ? `model '${target.model}' from ${target.source.model.detail}`
      : 'no model given: the first of GET /v1/models will be used',
  );
  // The "ends in /v1" note is analyzeBaseUrl's, with the URL that will be called. A base URL
  // corrected by the shared normalisation (config's normalizeBaseUrl, as run does) is a note.
  for (const w of target.warnings) {
    if (/ends in \/v1,/.test(w)) continue;
    if (/which goodput appends itself/.test(w)) {
      problems.push({ severity: 'warn', cause: w, fix: 'give the base URL, without the endpoint path' });
    } else details.push(w);
  }
  const baseUrl = url.callUrl.slice(0, url.callUrl.length - endpointUrl('', api).length);
  config.url = baseUrl;
  return done({
    config,
    baseUrl,
    callUrl: url.callUrl,
    ...(target.apiKeyRaw !== undefined ? { apiKeyRaw: target.apiKeyRaw } : {}),
  });
}
