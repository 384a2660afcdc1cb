/**
 * HdrHistogram's V2 compressed encoding (base64 of a cookie, the deflated length and the
 * deflated V2 payload), written and read here with node:zlib over the library's own Int32
 * histogram, byte for byte what hdr-histogram-js's encodeIntoCompressedBase64 writes (it
 * deflates with node:zlib too). Its entry module instead loads a WebAssembly build, pako and
 * every histogram kind, about 15 MB of peak RSS in a one-request run
 * (bench/one-request-memory.bench.mjs); these deep requires load about 1 MB.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { deflateSync, inflateSync } from 'node:zlib';
import type { JsHistogram } from 'hdr-histogram-js';

const requireCjs = createRequire(import.meta.url);

type Int32HistogramClass = new (lowest: number, highest: number, digits: number) => JsHistogram;

/** The Int32 histogram class alone (hdr-histogram-js/dist/Int32Histogram: no wasm, no pako). */
export const Int32Histogram = (
  requireCjs('hdr-histogram-js/dist/Int32Histogram') as { default: Int32HistogramClass }
).default;

/** The counts-array access the encoding needs (public on the class, absent from its typings). */
interface CountsAccess {
  countsArrayIndex(value: number): number;
  getCountAtIndex(index: number): number;
  setCountAtIndex(index: number, count: number): void;
  establishInternalTackingValues(lengthToCover?: number): void;
  lowestDiscernibleValue: number;
  highestTrackableValue: number;
  numberOfSignificantValueDigits: number;
  maxValue: number;
}

const V2_COOKIE = 0x1c849303 | 0x10;
const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;
const HEADER_BYTES = 40;

/** A ZigZag LEB128-64b9B word (the V2 variant: at most 9 bytes, the ninth whole). */
function putWord(out: number[], value: number): void {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  for (let i = 0; i < 8; i++) {
    if (v < 128) {
      out.push(v);
      return;
    }
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v % 256);
}

function getWord(bytes: Uint8Array, at: { pos: number }): number {
  let v = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    const b = bytes[at.pos++]!;
    v += (b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }
  v += bytes[at.pos++]! * scale;
  return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
}

/** The histogram as compressed base64 (encodeIntoCompressedBase64's output). */
export function encodeHistogram(histogram: JsHistogram): string {
  const h = histogram as unknown as CountsAccess;
  const payload: number[] = [];
  const limit = h.countsArrayIndex(h.maxValue) + 1;
  for (let i = 0; i < limit; ) {
    const count = h.getCountAtIndex(i++);
    if (count < 0) throw new Error(`cannot encode a histogram with a negative count (${count})`);
    let zeros = 0;
    if (count === 0) {
      zeros = 1;
      while (i < limit && h.getCountAtIndex(i) === 0) {
        zeros++;
        i++;
      }
    }
    putWord(payload, zeros > 1 ? -zeros : count);
  }
  const raw = Buffer.alloc(HEADER_BYTES + payload.length);
  raw.writeInt32BE(V2_COOKIE, 0);
  raw.writeInt32BE(payload.length, 4);
  raw.writeInt32BE(1, 8); // normalizing index offset
  raw.writeInt32BE(h.numberOfSignificantValueDigits, 12);
  raw.writeBigInt64BE(BigInt(h.lowestDiscernibleValue), 16);
  raw.writeBigInt64BE(BigInt(h.highestTrackableValue), 24);
  raw.writeBigInt64BE(1n, 32); // integer to double conversion ratio
  raw.set(payload, HEADER_BYTES);
  const compressed = deflateSync(raw);
  const out = Buffer.alloc(8 + compressed.length);
  out.writeInt32BE(V2_COMPRESSED_COOKIE, 0);
  out.writeInt32BE(compressed.length, 4);
  compressed.copy(out, 8);
  return out.toString('base64');
}

/** An Int32 histogram from compressed base64 (decodeFromCompressedBase64's, V2 only). */
export function decodeHistogram(encoded: string): JsHistogram {
  const data = Buffer.from(encoded.trim(), 'base64');
  if (data.length < 8 || (data.readInt32BE(0) & ~0xf0) !== (V2_COMPRESSED_COOKIE & ~0xf0)) {
    throw new Error('Encoding not supported, only V2 is supported');
  }
  const raw = inflateSync(data.subarray(8, 8 + data.readInt32BE(4)));
  if (raw.length < HEADER_BYTES || (raw.readInt32BE(0) & ~0xf0) !== (V2_COOKIE & ~0xf0)) {
    throw new Error('The buffer does not contain a Histogram (no valid V2 encoding cookie found)');
  }
  const payloadBytes = raw.readInt32BE(4);
  const digits = raw.readInt32BE(12);
  const lowest = Number(raw.readBigInt64BE(16));
  const highest = Number(raw.readBigInt64BE(24));
  const histogram = new Int32Histogram(lowest, highest, digits);
  const h = histogram as unknown as CountsAccess;
  const at = { pos: HEADER_BYTES };
  const end = Math.min(raw.length, HEADER_BYTES + payloadBytes);
  let index = 0;
  while (at.pos < end) {
    const count = getWord(raw, at);
    if (count < 0) index += -count;
    else h.setCountAtIndex(index++, count);
  }
  h.establishInternalTackingValues(index);
  return histogram;
}
