/**
 * The histogram of an `empirical:FILE` length distribution, read from either
 *
 * - a histogram CSV: the header `tokens,count`, then one `LENGTH,COUNT` line per length
 *   (what `goodput trace analyze` or a notebook over a dataset gives), or
 * - a trace in any format `loadTrace` reads (Mooncake, Azure, BurstGPT, Bailian, mapped
 *   JSONL/CSV): its prompt lengths for `--prompt-tokens-dist`, its output lengths for
 *   `--max-tokens-dist`.
 *
 * A histogram CSV is read whole up to 16 MiB; a trace is streamed within the trace limits.
 * A bad line is an `E_DATASET` error naming the file, the line and the field.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { GoodputError } from '../errors.js';
import { MAX_TOKENS, readTextFileBounded } from '../util/index.js';
import { type LengthDist, type LengthHistogram, parseLengthDist } from './length-dist.js';
import { loadTrace, parseTrace } from './trace/load.js';
import type { Trace } from './trace/trace.js';

/** The largest histogram CSV read whole; a larger file is read as a trace, a line at a time. */
export const MAX_HISTOGRAM_BYTES = 16 * 1024 * 1024;

const HISTOGRAM_HINT =
  'a histogram CSV starts with the header tokens,count and has one LENGTH,COUNT line per length (whole numbers); or give a trace file';

/** Which lengths of a trace make the histogram: its prompts or its outputs. */
export type LengthColumn = 'input' | 'output';

function histogramError(where: string, field: string | undefined, problem: string): GoodputError {
  return new GoodputError(
    'E_DATASET',
    `${where}: ${field !== undefined ? `field "${field}": ` : ''}${problem}`,
    HISTOGRAM_HINT,
  );
}

/** Lengths and their counts into a histogram (lengths sorted, equal lengths merged). */
function toHistogram(
  counts: Map<number, number>,
  source: LengthHistogram['source'],
  name: string,
): LengthHistogram {
  const lengths = Uint32Array.from(counts.keys()).sort();
  if (lengths.length === 0) throw histogramError(name, undefined, 'has no lengths');
  const cumulative = new Float64Array(lengths.length);
  let sum = 0;
  lengths.forEach((n, k) => {
    sum += counts.get(n)!;
    cumulative[k] = sum;
  });
  return { lengths, cumulative, source };
}

/** Parses a histogram CSV's text (pure; `name` in messages and as the recorded path). */
export function parseHistogramCsv(text: string, name: string): LengthHistogram {
  const lines = text.split('\n');
  const counts = new Map<number, number>();
  let header = false;
  let samples = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '').trim();
    if (line === '') continue;
    const where = `${name}:${i + 1}`;
    const cells = line.split(',').map((c) => c.trim());
    if (!header) {
      if (cells.length !== 2 || cells[0] !== 'tokens' || cells[1] !== 'count')
        throw histogramError(
          where,
          undefined,
          `expected the header tokens,count, got '${line.slice(0, 60)}'`,
        );
      header = true;
      continue;
    }
    if (cells.length !== 2) throw histogramError(where, undefined, `expected 2 cells, got ${cells.length}`);
    const [tokens, count] = cells.map(Number) as [number, number];
    if (!Number.isInteger(tokens) || tokens < 1 || tokens > MAX_TOKENS)
      throw histogramError(
        where,
        'tokens',
        `expected a whole number from 1 to ${MAX_TOKENS}, got '${cells[0]}'`,
      );
    if (!Number.isInteger(count) || count < 0)
      throw histogramError(where, 'count', `expected a whole number ≥ 0, got '${cells[1]}'`);
    if (count === 0) continue;
    counts.set(tokens, (counts.get(tokens) ?? 0) + count);
    samples += count;
  }
  const sha256 = createHash('sha256').update(text).digest('hex');
  return toHistogram(counts, { path: name, sha256, samples }, name);
}

/** A trace's prompt or output lengths as a histogram (outputs of 0 tokens are left out). */
export function traceHistogram(trace: Trace, column: LengthColumn): LengthHistogram {
  const values = column === 'input' ? trace.input : trace.output;
  const counts = new Map<number, number>();
  let samples = 0;
  for (const n of values) {
    if (n < 1) continue;
    counts.set(n, (counts.get(n) ?? 0) + 1);
    samples++;
  }
  return toHistogram(counts, { path: trace.path, sha256: trace.sha256, samples, column }, trace.path);
}

const isHistogramCsv = (text: string) => /^\s*tokens\s*,\s*count\s*(\r?\n|$)/.test(text);

/**
 * Parses a distribution's text and, for `empirical:FILE`, reads its histogram (the path taken
 * from `cwd`'s view: pass it absolute). `column` says which lengths of a trace to take.
 *
 * @example
 * const d = await loadLengthDist('empirical:/data/burstgpt.csv', '--prompt-tokens-dist', 'input');
 * drawLength(d, rng); // a prompt length as often as the trace has it
 */
export async function loadLengthDist(
  text: string,
  flag: string,
  column: LengthColumn,
  signal?: AbortSignal,
): Promise<LengthDist> {
  const parsed = parseLengthDist(text, flag);
  if (parsed.kind !== 'empirical') return parsed;
  const path = parsed.path!;
  const { path: _, ...dist } = parsed;
  const read = await readTextFileBounded(path, {
    maxBytes: MAX_HISTOGRAM_BYTES,
    ...(signal ? { signal } : {}),
  });
  let histogram: LengthHistogram;
  if (read.ok && isHistogramCsv(read.text)) histogram = parseHistogramCsv(read.text, path);
  else if (read.ok) histogram = traceHistogram(parseTrace(read.text, path), column);
  else if (read.problem.startsWith('larger than'))
    histogram = traceHistogram(await loadTrace(path, signal ? { signal } : {}), column);
  else
    throw new GoodputError(
      'E_DATASET',
      `${flag}: cannot read ${path}: ${read.problem}`,
      `check the path after empirical: in ${flag}`,
    );
  return { ...dist, histogram };
}
