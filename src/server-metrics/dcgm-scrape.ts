/**
 * One scrape of an NVIDIA DCGM exporter, read into goodput's GPU vocabulary (dcgm.ts). Apart
 * from dcgm.ts because it loads the HTTP client, and dcgm.ts's pure readers must not.
 *
 * @module
 */

import type { GpuSample } from '../types.js';
import { normalizeDcgm } from './dcgm.js';
import { fetchExposition } from './scraper.js';

/**
 * Scrapes a DCGM exporter once (bounded like every metrics scrape; `signal` stops it at once);
 * throws with the cause on failure.
 */
export async function scrapeGpuOnce(
  url: string,
  opts: { timeoutMs?: number; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Pick<GpuSample, 'gpus'>> {
  const gpus = normalizeDcgm(await fetchExposition(url, opts));
  if (gpus.length === 0) {
    throw new Error(
      `${url} has no DCGM_FI_DEV_GPU_UTIL, _FB_USED or _POWER_USAGE series (not a dcgm-exporter?)`,
    );
  }
  return { gpus };
}
