/**
 * Cache hygiene between runs: each run of a configuration starts from a cold prefix cache, or
 * the second run of a configuration would reuse what the first one cached. Built-in resets:
 * vLLM (and goodput's simulated engine) `POST /reset_prefix_cache`, SGLang `POST /flush_cache`,
 * llama.cpp `POST /slots/{id}?action=erase` for each slot `GET /slots` lists; or a command of the
 * user's (no shell; `{url}` and `{port}` filled). Each call is recorded with the answer.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { request } from 'undici';
import type { ExperimentRun } from '../types.js';
import { readBounded } from '../util/index.js';
import { substitute } from './template.js';
import type { CacheResetSpec } from './types.js';

export type CacheResetRecord = NonNullable<ExperimentRun['cacheReset']>;

const TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;
/** Longest answer kept in the record. */
const MAX_DETAIL_CHARS = 300;

async function call(
  method: 'GET' | 'POST',
  url: string,
  signal?: AbortSignal,
): Promise<{ status?: number; text: string; error?: string }> {
  const deadline = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const res = await request(url, {
      method,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
    });
    const body = await readBounded(res.body, { maxBytes: MAX_ANSWER_BYTES, timeoutMs: TIMEOUT_MS, signal });
    return { status: res.statusCode, text: body.text };
  } catch (e) {
    const err = e as Error & { code?: string };
    return { text: '', error: err.code ?? err.message };
  }
}

function detail(text: string): string | undefined {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t === '') return undefined;
  return t.length > MAX_DETAIL_CHARS ? `${t.slice(0, MAX_DETAIL_CHARS)}…` : t;
}

async function postReset(method: string, url: string, signal?: AbortSignal): Promise<CacheResetRecord> {
  const r = await call('POST', url, signal);
  const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
  const d = detail(r.error ?? r.text);
  return {
    method,
    ok,
    ...(r.status !== undefined ? { status: r.status } : {}),
    ...(d !== undefined ? { detail: d } : {}),
  };
}

/** llama.cpp: every slot of GET /slots erased. */
async function eraseSlots(base: string, signal?: AbortSignal): Promise<CacheResetRecord> {
  const method = 'llama.cpp POST /slots/{id}?action=erase';
  const listed = await call('GET', `${base}/slots`, signal);
  let ids: number[] = [];
  try {
    const parsed: unknown = JSON.parse(listed.text);
    if (Array.isArray(parsed))
      ids = parsed.flatMap((s) =>
        typeof (s as { id?: unknown })?.id === 'number' ? [(s as { id: number }).id] : [],
      );
  } catch {
    // not a slot list
  }
  if (listed.status !== 200 || ids.length === 0) {
    return {
      method,
      ok: false,
      ...(listed.status !== undefined ? { status: listed.status } : {}),
      detail: `GET /slots listed no slot (${listed.error ?? `HTTP ${listed.status}`}): start llama-server with --slots`,
    };
  }
  const answers = [];
  for (const id of ids.slice(0, 256))
    answers.push(await postReset(method, `${base}/slots/${id}?action=erase`, signal));
  const failed = answers.filter((a) => !a.ok);
  return {
    method,
    ok: failed.length === 0,
    ...(answers[0]?.status !== undefined ? { status: (failed[0] ?? answers[0]!).status! } : {}),
    detail: `${answers.length - failed.length} of ${answers.length} slots erased${failed[0]?.detail ? ` (${failed[0].detail})` : ''}`,
  };
}

/** The user's command: exit 0 is a success; its last output line is the detail. */
function runCommand(argv: string[], signal?: AbortSignal): Promise<CacheResetRecord> {
  return new Promise((resolve) => {
    const method = `command: ${argv.join(' ').slice(0, 200)}`;
    let out = '';
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
      timeout: TIMEOUT_MS * 3,
    });
    const keep = (d: Buffer) => {
      out = (out + d.toString('utf8')).slice(-MAX_DETAIL_CHARS * 4);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (e) =>
      resolve({ method, ok: false, detail: (e as NodeJS.ErrnoException).code ?? e.message }),
    );
    child.once('close', (code, sig) => {
      const last = out.trim().split('\n').pop();
      const d = detail(last ?? '') ?? (sig ? `signal ${sig}` : undefined);
      resolve({
        method,
        ok: code === 0,
        ...(code !== null ? { status: code } : {}),
        ...(d ? { detail: d } : {}),
      });
    });
  });
}

/** The reset `auto` picks for an engine; undefined when the engine has none goodput knows. */
export function resetKindFor(engine: string | undefined): 'vllm' | 'sglang' | 'llama.cpp' | undefined {
  if (engine === 'vllm' || engine === 'goodput-sim') return 'vllm';
  if (engine === 'sglang') return 'sglang';
  if (engine === 'llama.cpp' || engine === 'llamacpp') return 'llama.cpp';
  return undefined;
}

/**
 * Resets the cache of the server at `baseUrl`; undefined when there is nothing to call (`none`,
 * or `auto` on an engine without a known reset).
 */
export async function resetCache(
  spec: CacheResetSpec,
  baseUrl: string,
  opts: { engine?: string; port?: number; signal?: AbortSignal } = {},
): Promise<CacheResetRecord | undefined> {
  const base = baseUrl.replace(/\/+$/, '');
  const kind = spec.kind === 'auto' ? resetKindFor(opts.engine) : spec.kind;
  switch (kind) {
    case undefined:
    case 'none':
      return undefined;
    case 'vllm':
      return postReset('vllm POST /reset_prefix_cache', `${base}/reset_prefix_cache`, opts.signal);
    case 'sglang':
      return postReset('sglang POST /flush_cache', `${base}/flush_cache`, opts.signal);
    case 'llama.cpp':
      return eraseSlots(base, opts.signal);
    case 'command': {
      const values = { url: base, ...(opts.port !== undefined ? { port: opts.port } : {}) };
      const argv = (spec as { argv: string[] }).argv.map((a, i) =>
        substitute(a, values, `cache_reset.command[${i}]`),
      );
      return runCommand(argv, opts.signal);
    }
  }
}
