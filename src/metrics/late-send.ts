/**
 * When an open-loop send counts as late: one definition for the accumulator's late sends and
 * the caveats that read them (`late-sends`, `client-warming-up`).
 *
 * @module
 */

/** Open-loop requests sent later than their schedule by more than this count as late sends (ms). */
export const DEFAULT_LATE_SEND_TOLERANCE_MS = 10;
