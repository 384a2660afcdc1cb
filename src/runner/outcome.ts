/**
 * What a finished run means for the process: a run in which no measured request succeeded
 * cannot be trusted as a measurement, so the command exits UNMEASURABLE (after the results
 * are written) naming the most common error, its cause and its fix.
 *
 * @module
 */

import { GoodputError, REQUEST_ERRORS } from '../errors.js';
import type { RunSummary } from '../types.js';

/**
 * The error to raise when the run measured nothing usable (every measured request failed or
 * was cancelled, or none was sent), else undefined. An interrupted run with some successes
 * is a measurement; one with none is not.
 */
export function unmeasurableError(summary: RunSummary, dir?: string): GoodputError | undefined {
  const { attempted, completed } = summary.counts;
  if (completed > 0) return undefined;
  const where = dir ? ` (records in ${dir})` : '';
  if (attempted === 0) {
    return new GoodputError(
      'E_ALL_FAILED',
      `no request was measured${where}`,
      summary.interrupted
        ? 'the run was stopped before any request finished; run it again without interrupting'
        : 'raise --requests or --duration so that at least one request is sent',
    );
  }
  const top = [...summary.errors].sort((a, b) => b.count - a.count)[0];
  if (!top) {
    return new GoodputError(
      'E_ALL_FAILED',
      `none of the ${attempted} measured requests succeeded${where}`,
      'run goodput doctor against the same --url to find which step fails',
    );
  }
  const info = REQUEST_ERRORS[top.code];
  const status = top.httpStatus ? ` (HTTP ${top.httpStatus})` : '';
  return new GoodputError(
    'E_ALL_FAILED',
    `all ${attempted} measured requests failed; most common: ${top.code}${status} × ${top.count}: ${info.cause}. Example: ${top.example}${where}`,
    info.hint,
  );
}
