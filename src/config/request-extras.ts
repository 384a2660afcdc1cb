/**
 * What a gateway or an engine needs beyond the OpenAI request: extra headers (`--header
 * 'K: V'`, the value possibly from the environment) and extra body fields (`--extra-body
 * JSON`). Pure: the environment and the JSON text are passed in.
 *
 * @module
 */

import { GoodputError } from '../errors.js';

export interface RequestHeaders {
  /** Header name (as given) → value. */
  headers: Record<string, string>;
  /** Values that are credentials (from the environment, or of a credential header): to redact everywhere. */
  secrets: string[];
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the HTTP client owns: setting them would break the request or the measurement. */
const OWNED: Record<string, string> = {
  host: 'the host comes from --url',
  'content-length': 'the client sets it from the body',
  'transfer-encoding': 'the client sets it',
  connection: 'the client keeps connections alive itself',
  'content-type': 'the body is JSON',
  accept: 'goodput reads server-sent events',
};
/** Header names whose values are credentials even when typed on the command line. */
const CREDENTIAL = /authorization|api[-_]?key|token|secret|cookie|password|passwd|credential|auth/i;

/** `env:NAME` (or `$NAME`): the value of an environment variable. */
const FROM_ENV = /^(?:env:|\$)([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * Parses repeated `--header 'K: V'` values. A value `env:NAME` (or `$NAME`, quoted so the
 * shell leaves it) is read from the environment, so the secret is never typed. Values read
 * from the environment, and values of credential headers (Authorization, *key*, *token*,
 * *secret*, cookies; 8 characters or more, shorter ones cannot be told from other text),
 * are returned in `secrets`.
 *
 * @example
 * parseHeaders(['X-Route: canary', 'X-Api-Key: env:GW_KEY'], { GW_KEY: 'k-123' });
 * // { headers: { 'X-Route': 'canary', 'X-Api-Key': 'k-123' }, secrets: ['k-123'] }
 */
export function parseHeaders(
  items: readonly string[] | undefined,
  env: Record<string, string | undefined>,
  apiKeySet = false,
): RequestHeaders {
  const out: RequestHeaders = { headers: {}, secrets: [] };
  const seen = new Map<string, string>();
  for (const item of items ?? []) {
    const colon = item.indexOf(':');
    const name = colon > 0 ? item.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) {
      throw new GoodputError(
        'E_USAGE',
        `--header expects 'NAME: VALUE', got '${colon > 0 ? `${name}: …` : item.length > 40 ? `${item.slice(0, 12)}…` : item}'`,
        "e.g. --header 'X-Route: canary', or --header 'X-Api-Key: env:GATEWAY_KEY' to take the value from the environment",
      );
    }
    const lower = name.toLowerCase();
    const owned = OWNED[lower];
    if (owned !== undefined) {
      throw new GoodputError('E_USAGE', `--header ${name} cannot be set`, `drop it: ${owned}`);
    }
    if (lower === 'authorization' && apiKeySet) {
      throw new GoodputError(
        'E_USAGE',
        '--header Authorization and an API key both set the Authorization header',
        'keep one: the key (sent as "Authorization: Bearer <key>"), or the header without a key',
      );
    }
    if (seen.has(lower)) {
      throw new GoodputError(
        'E_USAGE',
        `--header ${name} is given twice`,
        `give each header once (the first was ${seen.get(lower)})`,
      );
    }
    seen.set(lower, name);
    let value = item.slice(colon + 1).trim();
    const ref = FROM_ENV.exec(value);
    if (ref) {
      const fromEnv = env[ref[1]!];
      if (fromEnv === undefined || fromEnv.trim() === '') {
        throw new GoodputError(
          'E_USAGE',
          `--header ${name}: the environment variable ${ref[1]} is ${fromEnv === undefined ? 'not set' : 'empty'}`,
          `export ${ref[1]}=… before running goodput, or give the value itself`,
        );
      }
      value = fromEnv.trim();
      out.secrets.push(value);
    } else if (CREDENTIAL.test(name) && value.length >= 8) {
      out.secrets.push(value);
    }
    if (/[\r\n\0]/.test(value)) {
      throw new GoodputError(
        'E_USAGE',
        `--header ${name}: the value holds a line break`,
        'give a one-line value',
      );
    }
    out.headers[name] = value;
  }
  return out;
}

/** The header that carries a conversation's session-affinity id unless `--session-header` names another. */
export const DEFAULT_SESSION_HEADER = 'X-Session-ID';

/**
 * Parses `--session-header NAME` (default {@link DEFAULT_SESSION_HEADER}; `none` sends no such
 * header): a header name that is no credential header (the id is no secret, and a credential
 * header must carry nothing else), none the HTTP client owns, and none of the `--header` names
 * (one value per header). A `--header` of the default name, with no `--session-header`, is
 * sent as given, and no session id with it.
 *
 * @example
 * sessionHeaderName(undefined, {}); // 'X-Session-ID'
 * sessionHeaderName('none', {}); // false
 */
export function sessionHeaderName(
  given: string | undefined,
  headers: Readonly<Record<string, string>> = {},
): string | false {
  const name = given?.trim() ?? DEFAULT_SESSION_HEADER;
  if (name.toLowerCase() === 'none') return false;
  const hint = 'e.g. --session-header X-Session-ID (the default), or --session-header none to send none';
  if (!TOKEN.test(name)) {
    throw new GoodputError(
      'E_USAGE',
      `--session-header expects a header name, got '${name.slice(0, 40)}'`,
      hint,
    );
  }
  const lower = name.toLowerCase();
  const owned = OWNED[lower];
  if (owned !== undefined) {
    throw new GoodputError('E_USAGE', `--session-header ${name} cannot be set: ${owned}`, hint);
  }
  if (CREDENTIAL.test(name)) {
    throw new GoodputError(
      'E_USAGE',
      `--session-header ${name} names a credential header`,
      `the session id is no secret and must not share a header with one: ${hint}`,
    );
  }
  const clash = Object.keys(headers).find((h) => h.toLowerCase() === lower);
  // `--header 'X-Session-ID: …'` alone: the user's own value is sent, as given.
  if (clash !== undefined && given === undefined) return false;
  if (clash !== undefined) {
    throw new GoodputError(
      'E_USAGE',
      `--session-header ${name} is also given by --header ${clash}`,
      'keep one: drop that --header, or name another --session-header (none to send none)',
    );
  }
  return name;
}

/** Body fields that goodput's own flags set: an --extra-body field would contradict the run's record. */
const BODY_FIELDS_OF_FLAGS: Record<string, string> = {
  model: '--model NAME (a LoRA adapter is served under its own model name)',
  messages: 'the workload flags (--prompt-tokens, --dataset)',
  prompt: 'the workload flags (--prompt-tokens, --dataset)',
  stream: 'goodput always streams: its latencies are measured on the stream',
  stream_options: 'goodput asks for usage in the stream itself',
  max_tokens: '--max-tokens N',
  max_completion_tokens: '--max-tokens N',
  temperature: '--temperature T',
  top_p: '--top-p P',
  seed: '--seed N',
  ignore_eos: '--ignore-eos',
  max_output_tokens: '--max-tokens N (the Responses API limit)',
  input: 'the workload flags (--prompt-tokens, --dataset): the Responses and embeddings prompt',
  instructions: '--system-prompt-tokens N (the Responses API system prompt)',
};

/**
 * Body fields that change what a request measures without a flag of goodput's: the summary
 * would describe requests that were not sent. `n` and `best_of` stream several choices
 * interleaved (read as one, TPOT, ITL and throughput are off by n); `echo` returns the
 * prompt as output; `min_tokens` overrides the output length asked.
 */
const BODY_FIELDS_THAT_SKEW: Record<string, string> = {
  n: 'n > 1 streams several choices interleaved, read as one reply: TPOT, ITL and throughput would be off by n; run n times the concurrency instead',
  best_of:
    'best_of generates several sequences per reply and streams one: the work measured is not the work done',
  echo: 'echo returns the prompt as output tokens: output throughput and TPOT would count the prompt',
  min_tokens:
    'min_tokens overrides the output length: use --max-tokens N with --ignore-eos for a fixed length',
  suffix: 'suffix changes the prompt the summary records',
};

/**
 * Parses `--extra-body`: a JSON object whose fields are merged last into every request
 * body. Fields that goodput's own flags set are refused with that flag, and so are fields that
 * would make the figures describe requests other than those recorded (`n`, `echo`, …).
 *
 * @example
 * parseExtraBody('{"priority": 1, "chat_template_kwargs": {"enable_thinking": false}}');
 */
export function parseExtraBody(text: string, origin = '--extra-body'): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new GoodputError(
      'E_USAGE',
      `${origin} is not valid JSON (${(e as Error).message})`,
      `give a JSON object in single quotes, e.g. --extra-body '{"priority": 1}', or --extra-body @body.json`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new GoodputError(
      'E_USAGE',
      `${origin} must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
      `e.g. --extra-body '{"chat_template_kwargs": {"enable_thinking": false}}'`,
    );
  }
  for (const key of Object.keys(value)) {
    const flag = BODY_FIELDS_OF_FLAGS[key];
    if (flag !== undefined) {
      throw new GoodputError('E_USAGE', `${origin} sets "${key}", which goodput sets itself`, `use ${flag}`);
    }
    const skew = BODY_FIELDS_THAT_SKEW[key];
    if (skew !== undefined) {
      throw new GoodputError(
        'E_USAGE',
        `${origin} sets "${key}", which changes what is measured`,
        `drop it: ${skew}`,
      );
    }
  }
  return value as Record<string, unknown>;
}
