/**
 * The run summary as JSON (`goodput run --json`): exactly the summary.json document,
 * vLLM-compatible flat keys included.
 *
 * @module
 */

import type { RunSummary } from '../types.js';

/** The summary as pretty-printed JSON with a trailing newline. */
export function renderRunJson(summary: RunSummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}
