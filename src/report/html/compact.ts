/**
 * Chart data made small for the page: finite points rounded to a few significant digits, gaps
 * kept where a series asks for them. Pure.
 *
 * @module
 */

import type { XY } from './lttb.js';

/** Rounds to `digits` significant digits, so that the embedded JSON stays small. */
export function roundSig(v: number, digits = 5): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  const scale = 10 ** (digits - 1 - Math.floor(Math.log10(Math.abs(v))));
  return Math.round(v * scale) / scale;
}

/**
 * Finite points, rounded for a small page; with `gaps`, a point whose y is NaN stays as a gap
 * (null in the page's JSON), except at either end where it would break nothing.
 */
export function compact(xy: XY, keep: (x: number) => boolean = () => true, gaps = false): XY {
  const out: XY = { x: [], y: [] };
  for (let i = 0; i < xy.x.length; i++) {
    const x = xy.x[i]!;
    const y = xy.y[i]!;
    const gap = gaps && Number.isNaN(y);
    if (!Number.isFinite(x) || (!Number.isFinite(y) && !gap) || !keep(x)) continue;
    if (gap && (out.y.length === 0 || Number.isNaN(out.y[out.y.length - 1]!))) continue;
    out.x.push(roundSig(x));
    out.y.push(gap ? y : roundSig(y));
  }
  while (out.y.length > 0 && Number.isNaN(out.y[out.y.length - 1]!)) {
    out.x.pop();
    out.y.pop();
  }
  return out;
}
