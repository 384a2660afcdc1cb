/**
 * `vllm bench serve`'s flag names, for users with that muscle memory. Where a flag means the
 * same as one of ours it is taken as ours (its value translated when the form differs: an
 * endpoint path → --api, `ttft:500 tpot:50` → --slo); where it differs, it is refused with
 * a hint that names our flag. A flag is only looked up here when the command has no option
 * of that name (so `sim --port` stays the simulator's own).
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { OptionSpec } from './spec.js';

export interface ForeignFlag {
  /** The other tool's long name, without dashes. */
  name: string;
  /** Accepted: our option it stands for (the command must have it). */
  as?: string;
  /** Accepted: turns its value words into our option's value text; throws to refuse a value. */
  value?: (words: string[]) => string;
  /** More value words it takes (vLLM's nargs="+"): the following words that match. */
  more?: RegExp;
  /**
   * Accepted without effect, because goodput always does what it asks: 'bare' takes no value;
   * 'value' takes one, which `value` checks (and may refuse).
   */
  noop?: 'bare' | 'value';
  /** Refused: what to write instead. */
  instead?: string;
}

const TOOL = 'vllm bench serve';

function refuse(flag: string, value: string, instead: string): GoodputError {
  return new GoodputError('E_USAGE', `${TOOL}'s --${flag} ${value} has no goodput equivalent`, instead);
}

/** `ttft:500 tpot:50` or `ttft:500,tpot:50` (vLLM's --goodput) → `ttft=500,tpot=50` (our --slo). */
export function goodputToSlo(words: string[]): string {
  return words
    .flatMap((w) => w.split(','))
    .filter((w) => w.trim() !== '')
    .map((w) => {
      const m = /^\s*([a-z0-9_]+)\s*:\s*(.+?)\s*$/i.exec(w);
      if (!m) {
        throw new GoodputError(
          'E_USAGE',
          `--goodput expects KEY:VALUE pairs in ms (vLLM's form), got '${w}'`,
          'e.g. --goodput ttft:500 tpot:50, or goodput own --slo ttft=500,tpot=50',
        );
      }
      return `${m[1]}=${m[2]}`;
    })
    .join(',');
}

const ENDPOINTS: Record<string, string> = {
  '/v1/chat/completions': 'chat',
  '/v1/completions': 'completions',
};

const BACKENDS: Record<string, string> = {
  'openai-chat': 'chat',
  openai: 'completions',
  vllm: 'completions',
};

/** The flags of `vllm bench serve` that goodput knows, accepted or refused. */
export const VLLM_FLAGS: readonly ForeignFlag[] = [
  { name: 'request-rate', as: 'rate' },
  { name: 'num-prompts', as: 'requests' },
  { name: 'random-input-len', as: 'prompt-tokens' },
  { name: 'random-output-len', as: 'max-tokens' },
  { name: 'base-url', as: 'url' },
  { name: 'dataset-path', as: 'dataset' },
  { name: 'goodput', as: 'slo', value: goodputToSlo, more: /^(ttft|tpot|e2el)(_ms)?:/i },
  {
    name: 'endpoint',
    as: 'api',
    value: ([path]) => {
      const api = ENDPOINTS[path!.replace(/\/+$/, '')];
      if (api === undefined) {
        throw refuse(
          'endpoint',
          path!,
          'goodput measures /v1/chat/completions (--api chat) or /v1/completions (--api completions); the base URL goes in --url',
        );
      }
      return api;
    },
  },
  {
    name: 'backend',
    as: 'api',
    value: ([backend]) => {
      const api = BACKENDS[backend!];
      if (api === undefined) {
        throw refuse(
          'backend',
          backend!,
          'goodput speaks the OpenAI API of any server: --api chat (openai-chat) or --api completions (vllm, openai)',
        );
      }
      return api;
    },
  },
  {
    name: 'dataset-name',
    noop: 'value',
    value: ([name]) => {
      if (name === 'random') return name;
      throw refuse(
        'dataset-name',
        name!,
        'goodput makes random prompts by default (--prompt-tokens N); for prompts from a file use --dataset FILE (JSONL or ShareGPT JSON)',
      );
    },
  },
  { name: 'save-result', noop: 'bare' },
  { name: 'save-detailed', noop: 'bare' },
  {
    name: 'result-dir',
    instead:
      "goodput writes each run to a folder of its own: --out DIR (summary.json with vLLM's keys, requests.jsonl); without --out, goodput-results/<time>-<id>/",
  },
  {
    name: 'result-filename',
    instead:
      "goodput names its files: --out DIR writes DIR/summary.json (vLLM's keys) and DIR/requests.jsonl",
  },
  {
    name: 'percentile-metrics',
    instead:
      'goodput always reports every latency (ttft, tpot, itl, e2el) at p50, p90, p95, p99 and p99.9: drop it, and pick one in a threshold such as --threshold "p99(ttft)<350"',
  },
  {
    name: 'metric-percentiles',
    instead:
      'goodput always reports p50, p90, p95, p99 and p99.9: drop it, and pick one in a threshold such as --threshold "p99(ttft)<350"',
  },
  {
    name: 'random-range-ratio',
    instead:
      'goodput spreads prompt lengths only: --prompt-tokens-range R (±R×--prompt-tokens); output lengths follow --max-tokens',
  },
  { name: 'host', instead: 'goodput takes the whole base URL: --url http://HOST:PORT' },
  { name: 'port', instead: 'goodput takes the whole base URL: --url http://HOST:PORT' },
];

const BY_NAME = new Map(VLLM_FLAGS.map((f) => [f.name, f]));

export interface ForeignReading {
  /** Our option it was taken as; undefined when accepted without effect. */
  option?: OptionSpec;
  /** The value text for that option. */
  value?: string;
  /** argv words after the flag that it used. */
  consumed: number;
}

/**
 * Reads `arg` (an option this command does not have) as a `vllm bench serve` flag. Returns
 * undefined when it is none (or stands for an option the command lacks): the caller reports
 * an unknown option. Throws a usage error naming our flag for one that goodput refuses.
 */
export function readForeignFlag(
  arg: string,
  rest: readonly string[],
  options: ReadonlyMap<string, OptionSpec>,
): ForeignReading | undefined {
  if (!arg.startsWith('--')) return undefined;
  const body = arg.slice(2);
  const eq = body.indexOf('=');
  const name = eq >= 0 ? body.slice(0, eq) : body;
  const flag = BY_NAME.get(name) ?? BY_NAME.get(name.replaceAll('_', '-'));
  if (!flag) return undefined;
  if (flag.instead !== undefined) {
    throw new GoodputError(
      'E_USAGE',
      `--${flag.name} is ${TOOL}'s flag, which goodput does not take`,
      flag.instead,
    );
  }
  if (flag.noop === 'bare') return { consumed: 0 };
  const option = flag.as === undefined ? undefined : options.get(flag.as);
  if (flag.noop === undefined && !option) return undefined;
  const words: string[] = [];
  let consumed = 0;
  if (eq >= 0) words.push(body.slice(eq + 1));
  else {
    const next = rest[0];
    if (next === undefined || (next.startsWith('--') && next.length > 2)) {
      throw new GoodputError(
        'E_USAGE',
        `--${flag.name} needs a value`,
        option
          ? `it is ${TOOL}'s name for --${option.name}: write --${option.name} ${option.valueName ?? 'VALUE'}`
          : `write --${flag.name} VALUE`,
      );
    }
    words.push(next);
    consumed = 1;
  }
  if (flag.more) {
    while (consumed < rest.length && flag.more.test(rest[consumed]!)) words.push(rest[consumed++]!);
  }
  const value = flag.value ? flag.value(words) : words[0]!;
  return option ? { option, value, consumed } : { consumed };
}
