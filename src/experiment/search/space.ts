/**
 * The space a search explores: each serving parameter with its list of values (a plan's
 * `grid:`), its points numbered in the grid's order (the last parameter varies fastest, as
 * the experiment's `gridPoints`), and each point encoded in [0, 1]^d for the Gaussian process
 * (numbers by rank, log-spaced ones included; booleans and strings by their list position).
 *
 * @module
 */

import type { ServeParamValue } from '../../types.js';

export interface SearchDimension {
  name: string;
  values: ServeParamValue[];
}

export interface SearchSpace {
  dimensions: SearchDimension[];
  /** Number of points (the product of the value counts). */
  size: number;
}

/** The space of a grid (parameter → values), in key order. */
export function spaceFromGrid(grid: Record<string, readonly ServeParamValue[]>): SearchSpace {
  const dimensions = Object.entries(grid).map(([name, values]) => ({ name, values: [...new Set(values)] }));
  return { dimensions, size: dimensions.reduce((n, d) => n * d.values.length, 1) };
}

/** The parameters of point `index` (0 ≤ index < size). */
export function pointParams(space: SearchSpace, index: number): Record<string, ServeParamValue> {
  const params: Record<string, ServeParamValue> = {};
  let rest = index;
  for (let i = space.dimensions.length - 1; i >= 0; i--) {
    const d = space.dimensions[i]!;
    params[d.name] = d.values[rest % d.values.length]!;
    rest = Math.floor(rest / d.values.length);
  }
  // In the grid's key order, for display.
  return Object.fromEntries(space.dimensions.map((d) => [d.name, params[d.name]!]));
}

/** Point `index` in [0, 1]^d: a number by its rank among the dimension's numbers, else its position. */
export function encodePoint(space: SearchSpace, index: number): number[] {
  const params = pointParams(space, index);
  return space.dimensions.map((d) => {
    if (d.values.length < 2) return 0;
    const v = params[d.name]!;
    const numeric = d.values.every((x) => typeof x === 'number');
    const order = numeric ? [...(d.values as number[])].sort((a, b) => a - b) : d.values;
    return order.indexOf(v) / (d.values.length - 1);
  });
}

/** A point's short name: `max-num-seqs=64 max-num-batched-tokens=2048`. */
export function pointLabel(params: Record<string, ServeParamValue>): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}
