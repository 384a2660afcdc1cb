/**
 * The package version, read from package.json at run time (the same relative path works
 * from src/util and dist/util).
 *
 * @module
 */

import { createRequire } from 'node:module';

let cached: string | undefined;

/** goodput's version, e.g. "0.1.0". */
export function toolVersion(): string {
  if (cached !== undefined) return cached;
  try {
    const require = createRequire(import.meta.url);
    cached = (require('../../package.json') as { version: string }).version;
  } catch {
    cached = '0.0.0';
  }
  return cached;
}
