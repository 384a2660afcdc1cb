/**
 * What was measured, as the report's header says it: the server's own word on itself (engine,
 * version, a few telling settings, the GPUs from DCGM) and the goodput command line that ran,
 * both as the summary recorded them (secrets already redacted). One source for the terminal,
 * Markdown and HTML headers.
 *
 * @module
 */

import type { RunMeta, ServerSelfDescription } from '../types.js';

/** Settings worth a place in a one-line header, per engine's spelling; the summary keeps them all. */
const HEADLINE_SETTINGS = [
  'profile',
  'cache_config.block_size',
  'cache_config.num_gpu_blocks',
  'cache_config.gpu_memory_utilization',
  'cache_config.enable_prefix_caching',
  'tp_size',
  'dp_size',
  'mem_fraction_static',
  'max_running_requests',
  'chunked_prefill_size',
  'total_slots',
  'default_generation_settings.n_ctx',
] as const;

/** Longest header line (a command line can be long); the summary keeps it whole. */
const MAX_LINE = 240;

function cut(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

/** The server's word on itself in one line, e.g. "vllm 0.11.0 · block_size 16 · num_gpu_blocks 4096". */
export function describeSelf(d: ServerSelfDescription): string {
  const name = d.version ? `${d.engine} ${d.version}` : d.engine;
  const settings = HEADLINE_SETTINGS.flatMap((k) => {
    const v = d.settings?.[k];
    return v === undefined ? [] : [`${k.replace(/^.*\./, '')} ${v}`];
  });
  const answered = Object.values(d.sources).some((v) => v.startsWith('ok'));
  return cut([name, ...settings].join(' · ') + (answered ? '' : ' (no endpoint answered)'));
}

/** A command line as one shell-like string (words with spaces or quotes quoted). */
export function commandText(argv: readonly string[]): string {
  return cut(argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(' '));
}

/** Header rows: server, GPU, command; each only when the summary recorded it. */
export function serverFacts(meta: RunMeta): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const d = meta.target.selfDescription;
  if (d) {
    rows.push(['server', describeSelf(d)]);
    if (d.gpu) rows.push(['GPU', `${d.gpu.count} × ${d.gpu.model}`]);
  }
  if (meta.tool.command) rows.push(['command', commandText(meta.tool.command)]);
  return rows;
}
