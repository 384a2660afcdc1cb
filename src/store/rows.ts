/**
 * A round as the store keeps it: its row of the `rounds` table, and its four histograms packed
 * in one blob (a format byte, then plain or raw-deflated).
 *
 * @module
 */

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { readVarint, StoreHistogram, writeVarint } from './histogram.js';
import { STORED_LATENCIES, type StoredLatency, type StoredRound } from './types.js';

const PACK_PLAIN = 0;
const PACK_DEFLATE = 1;

/** Packs the four histograms of a round (a format byte, then plain or raw-deflated): for each, a varint length then its encoding. */
export function packHistograms(h: Record<StoredLatency, StoreHistogram>): Buffer {
  const parts: Buffer[] = [Buffer.from([PACK_PLAIN])];
  for (const name of STORED_LATENCIES) {
    const enc = h[name].encode();
    const len: number[] = [];
    writeVarint(len, enc.length);
    parts.push(Buffer.from(len), enc);
  }
  const plain = Buffer.concat(parts);
  // Many small counts at small index steps: deflate usually saves a third; keep whichever is smaller.
  const packed = deflateRawSync(plain.subarray(1), { level: 9 });
  return packed.length + 1 < plain.length ? Buffer.concat([Buffer.from([PACK_DEFLATE]), packed]) : plain;
}

/** The inverse of packHistograms. */
export function unpackHistograms(stored: Uint8Array): Record<StoredLatency, StoreHistogram> {
  const out = {} as Record<StoredLatency, StoreHistogram>;
  const blob = stored[0] === PACK_DEFLATE ? inflateRawSync(stored.subarray(1)) : stored.subarray(1);
  const cursor = { pos: 0 };
  for (const name of STORED_LATENCIES) {
    const len = readVarint(blob, cursor);
    out[name] = StoreHistogram.decode(blob.subarray(cursor.pos, cursor.pos + len));
    cursor.pos += len;
  }
  return out;
}

/** A row of the rounds table. */
export interface RoundRow {
  target_id: number;
  started_at: number;
  round: number;
  duration_ms: number;
  valid: number;
  invalid_reason: string | null;
  attempted: number;
  completed: number;
  failed: number;
  good: number;
  output_tokens: number;
  prober_lag_ms: number;
  errors: string | null;
  server: string | null;
  hist: Buffer;
}

/** The round a row of the rounds table holds. */
export function rowToRound(row: RoundRow, target: string): StoredRound {
  const r: StoredRound = {
    target,
    round: row.round,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    valid: row.valid === 1,
    attempted: row.attempted,
    completed: row.completed,
    failed: row.failed,
    good: row.good,
    outputTokens: row.output_tokens,
    proberLagMs: row.prober_lag_ms,
    errors: row.errors ? JSON.parse(row.errors) : {},
    histograms: unpackHistograms(row.hist),
  };
  if (row.invalid_reason !== null) r.invalidReason = row.invalid_reason;
  if (row.server !== null) r.server = JSON.parse(row.server);
  return r;
}
