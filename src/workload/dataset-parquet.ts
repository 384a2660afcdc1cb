/**
 * A Hugging Face dataset's Parquet file already on disk (the hub's `refs/convert/parquet`
 * files, or `Dataset.to_parquet()`), read with hyparquet (pure JavaScript, no native code):
 * each row as a Hugging Face row (dataset-formats.ts `hfEntry`). Only the columns a prompt,
 * a reply or an output length can come from are read, a batch of rows at a time, so memory
 * holds the entries and one batch. Snappy-compressed and uncompressed files are read (what
 * the hub and pyarrow write by default); another codec is a usage error naming it.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ExitCode, GoodputError } from '../errors.js';
import type { DatasetEntry } from './dataset.js';
import { HF_HINT, HF_PROMPT_COLUMNS, HF_REPLY_COLUMNS, hfEntry } from './dataset-formats.js';

/** The largest Parquet file read. */
export const MAX_PARQUET_BYTES = 1024 * 1024 * 1024;
/** Rows decoded at a time. */
export const PARQUET_BATCH_ROWS = 4096;

const WANTED = new Set<string>([
  ...HF_PROMPT_COLUMNS,
  ...HF_REPLY_COLUMNS,
  'input',
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'output_tokens',
]);

function datasetError(path: string, problem: string, hint: string, exitCode?: ExitCode): GoodputError {
  return new GoodputError(
    'E_DATASET',
    `dataset ${path}: ${problem}`,
    hint,
    exitCode !== undefined ? { exitCode } : undefined,
  );
}

/** True when `path` is a regular file that starts with Parquet's magic bytes `PAR1`. */
export async function isParquetFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    const handle = await open(path, 'r');
    try {
      const head = Buffer.alloc(4);
      const { bytesRead } = await handle.read(head, 0, 4, 0);
      return bytesRead === 4 && head.toString('latin1') === 'PAR1';
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

async function sha256Of(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Parquet's 64-bit integers come as bigint: a length column's value as a number. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(row)) if (typeof v === 'bigint') row[k] = Number(v);
  return row;
}

/**
 * Reads a Parquet dataset: its entries (row k named "FILE: row k+1" in errors), the rows
 * skipped (a chat without a user turn) and the file's sha256. Bounded to
 * {@link MAX_PARQUET_BYTES}; the signal stops it between batches (exit 130).
 */
export async function loadParquetDataset(
  path: string,
  signal?: AbortSignal,
): Promise<{ entries: DatasetEntry[]; skipped: number; sha256: string }> {
  const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw datasetError(path, `cannot read it: ${e.code ?? e.message}`, 'check the path given to --dataset');
  });
  if (!info.isFile())
    throw datasetError(
      path,
      'a Parquet file must be a regular file (it is read by offsets)',
      'copy it to a file first',
    );
  if (info.size > MAX_PARQUET_BYTES)
    throw datasetError(
      path,
      `over ${MAX_PARQUET_BYTES / 2 ** 30} GiB: not read`,
      'use a smaller dataset (a sample of it)',
    );
  const stopped = () =>
    datasetError(path, 'reading it was stopped', 'nothing was sent; run again', ExitCode.INTERRUPTED);
  const sha256 = await sha256Of(path, signal).catch((e: unknown) => {
    if (signal?.aborted) throw stopped();
    throw datasetError(
      path,
      `cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'check the path given to --dataset',
    );
  });
  const unreadable = (e: unknown) =>
    datasetError(
      path,
      `not a Parquet file goodput can read (${(e as Error).message.slice(0, 200)})`,
      'only snappy-compressed or uncompressed Parquet is read: export it again with compression="snappy", or as JSONL (Dataset.to_json)',
    );
  // Loaded here, not with the module: a run without a Parquet dataset never pays for it (~10 MB).
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } = await import(
    'hyparquet'
  );
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file).catch((e: unknown) => {
    throw unreadable(e);
  });
  const columns = parquetSchema(metadata)
    .children.map((c) => c.element.name)
    .filter((name) => WANTED.has(name));
  if (!HF_PROMPT_COLUMNS.some((c) => columns.includes(c)))
    throw datasetError(
      path,
      `none of the prompt columns (${HF_PROMPT_COLUMNS.join(', ')}) is in the file`,
      HF_HINT,
    );
  const rows = Number(metadata.num_rows);
  const entries: DatasetEntry[] = [];
  let skipped = 0;
  for (let start = 0; start < rows; start += PARQUET_BATCH_ROWS) {
    if (signal?.aborted) throw stopped();
    const batch = await parquetReadObjects({
      file,
      metadata,
      columns,
      rowStart: start,
      rowEnd: Math.min(rows, start + PARQUET_BATCH_ROWS),
    }).catch((e: unknown) => {
      throw unreadable(e);
    });
    batch.forEach((row, k) => {
      const entry = hfEntry(plainRow(row), `${path}: row ${start + k + 1}`);
      if (entry) entries.push(entry);
      else skipped++;
    });
  }
  return { entries, skipped, sha256 };
}
