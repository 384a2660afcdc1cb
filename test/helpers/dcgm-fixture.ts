/**
 * The repository's NVIDIA DCGM exporter page (src/server-metrics/fixtures/dcgm.prom), as a fake
 * exporter serves it, and the same page with chosen per-GPU values (figures that move from one
 * scrape to the next).
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './cli.js';

/** The fixture page as written. */
export const DCGM_FIXTURE = readFileSync(
  join(REPO, 'src', 'server-metrics', 'fixtures', 'dcgm.prom'),
  'utf8',
);

/**
 * The fixture with each per-GPU sample line's value replaced by `value(metric, gpu)`, e.g.
 * `value('DCGM_FI_DEV_GPU_UTIL', '0')`; undefined keeps the line as it is.
 */
export function dcgmPage(value: (metric: string, gpu: string) => number | undefined): string {
  return DCGM_FIXTURE.split('\n')
    .map((line) => {
      const gpu = /gpu="(\d)"/.exec(line)?.[1];
      const brace = line.indexOf('{');
      if (gpu === undefined || brace < 0 || line.startsWith('#')) return line;
      const v = value(line.slice(0, brace), gpu);
      return v === undefined ? line : line.replace(/ \S+$/, ` ${v}`);
    })
    .join('\n');
}
