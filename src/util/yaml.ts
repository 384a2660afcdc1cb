/**
 * The one bounded way to read YAML (and JSON, which is YAML): every YAML reader of goodput
 * (ADR front matter, `adr enforce --config` serving files, watch's `--targets`) goes through
 * `parseYamlBounded`, and files through `readTextFileBounded`. A hostile or broken file cannot
 * exhaust memory: the text is capped in bytes, and aliases are capped in number and in the size
 * they expand to (the "billion laughs" bomb is refused as such, not parsed into gigabytes).
 *
 * Never throws: callers turn a refusal into their own coded error (a usage error, exit 2).
 *
 * @module
 */

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { readBounded } from './bounded.js';
import { inputStopSignal, openForReading } from './input-file.js';

/** Largest YAML text parsed (bytes): configuration files and ADRs are a few kilobytes. */
export const YAML_MAX_BYTES = 1024 * 1024;
/** Most alias nodes (`*name`) a document may hold; the yaml library also caps what they expand to. */
export const YAML_MAX_ALIASES = 100;

export interface YamlLimits {
  maxBytes?: number;
  maxAliasCount?: number;
}

export type YamlParse =
  | { ok: true; documents: unknown[] }
  | { ok: false; kind: 'too-large' | 'syntax' | 'aliases'; problem: string };

/**
 * Parses every document of a YAML text within limits.
 *
 * @example
 * const r = parseYamlBounded('a: 1');
 * if (r.ok) r.documents; // [{ a: 1 }]
 */
export function parseYamlBounded(text: string, limits: YamlLimits = {}): YamlParse {
  // Loaded on first use (~9 MB of RSS): a run without a YAML file never needs the parser.
  const { parseAllDocuments } = createRequire(import.meta.url)('yaml') as typeof Yaml;
  const maxBytes = limits.maxBytes ?? YAML_MAX_BYTES;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    return {
      ok: false,
      kind: 'too-large',
      problem: `${bytes} bytes, more than the ${maxBytes} a YAML file may hold`,
    };
  }
  const maxAliasCount = limits.maxAliasCount ?? YAML_MAX_ALIASES;
  try {
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [docs];
    const broken = list.find((d) => d.errors.length > 0);
    if (broken) {
      return {
        ok: false,
        kind: 'syntax',
        problem: (broken.errors[0]?.message ?? 'invalid YAML').split('\n')[0]!,
      };
    }
    return { ok: true, documents: list.map((d) => d.toJS({ maxAliasCount })) };
  } catch (e) {
    const message = (e as Error).message.split('\n')[0] ?? '';
    // The yaml library refuses alias expansion beyond maxAliasCount with this ReferenceError.
    if (/alias/i.test(message)) {
      return {
        ok: false,
        kind: 'aliases',
        problem: `too many or too large aliases (a YAML bomb?): ${message}`,
      };
    }
    return { ok: false, kind: 'syntax', problem: message };
  }
}

/** A file read within a byte limit: its text, or why not. */
export type BoundedFile = { ok: true; text: string } | { ok: false; problem: string };

/**
 * Reads a text file of at most `maxBytes` (default YAML_MAX_BYTES) within `timeoutMs`
 * (default 10 s), stopped by `signal` (default: the process being told to stop): a huge file,
 * `/dev/zero` or a FIFO that never ends is refused, never read whole, and never holds Ctrl-C.
 */
export async function readTextFileBounded(
  path: string,
  opts: { maxBytes?: number; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<BoundedFile> {
  const maxBytes = opts.maxBytes ?? YAML_MAX_BYTES;
  let input: ReturnType<typeof openForReading> | undefined;
  try {
    input = openForReading(path, 64 * 1024);
    const { chunks } = input;
    // A missing or unreadable file fails on the first read: say so rather than read nothing.
    // A wrapper, not Object.assign: for a plain file `chunks` is the ReadStream itself, whose
    // destroy close() calls; replacing it made destroy call itself (stack overflow on every read).
    const stream = {
      [Symbol.asyncIterator]: () => chunks[Symbol.asyncIterator](),
      destroy: () => input?.close(),
    };
    const read = await readBounded(stream, {
      maxBytes,
      timeoutMs: opts.timeoutMs ?? 10_000,
      signal: opts.signal ?? inputStopSignal,
    });
    if (read.stopped === 'limit') return { ok: false, problem: `larger than ${maxBytes} bytes` };
    if (read.stopped === 'aborted') return { ok: false, problem: 'reading it was stopped' };
    if (read.stopped) return { ok: false, problem: `reading it did not finish (${read.stopped})` };
    return { ok: true, text: read.text };
  } catch (e) {
    return { ok: false, problem: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  } finally {
    input?.close();
  }
}
