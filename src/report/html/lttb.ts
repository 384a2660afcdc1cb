/**
 * Largest-Triangle-Three-Buckets downsampling (Steinarsson, 2013): keeps the visual shape of a
 * line (peaks, dips) with a fixed number of points, so that long runs chart fast.
 *
 * @module
 */

/** A series as two parallel arrays; `x` ascending. */
export interface XY {
  x: number[];
  y: number[];
}

/**
 * Downsamples a series to at most `threshold` points with LTTB. The first and last points are
 * always kept; every kept point is one of the input points, in order.
 *
 * @example
 * lttb({ x: [0, 1, 2, 3, 4], y: [0, 0, 9, 0, 0] }, 3) // → { x: [0, 2, 4], y: [0, 9, 0] }
 */
export function lttb(series: XY, threshold: number): XY {
  const { x, y } = series;
  const n = Math.min(x.length, y.length);
  if (threshold >= n || threshold < 3) return { x: x.slice(0, n), y: y.slice(0, n) };
  const outX: number[] = [x[0]!];
  const outY: number[] = [y[0]!];
  // Interior points are split into threshold-2 buckets of (fractional) size `every`.
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    const start = Math.floor(i * every) + 1;
    const end = Math.floor((i + 1) * every) + 1;
    // The average of the next bucket is the triangle's third vertex (the last point for the last bucket).
    const nextStart = end;
    const nextEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let avgX = 0;
    let avgY = 0;
    const nextLen = nextEnd - nextStart;
    if (nextLen > 0) {
      for (let j = nextStart; j < nextEnd; j++) {
        avgX += x[j]!;
        avgY += y[j]!;
      }
      avgX /= nextLen;
      avgY /= nextLen;
    } else {
      avgX = x[n - 1]!;
      avgY = y[n - 1]!;
    }
    const ax = x[a]!;
    const ay = y[a]!;
    let best = start;
    let bestArea = -1;
    for (let j = start; j < end; j++) {
      const area = Math.abs((ax - avgX) * (y[j]! - ay) - (ax - x[j]!) * (avgY - ay));
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    outX.push(x[best]!);
    outY.push(y[best]!);
    a = best;
  }
  outX.push(x[n - 1]!);
  outY.push(y[n - 1]!);
  return { x: outX, y: outY };
}
