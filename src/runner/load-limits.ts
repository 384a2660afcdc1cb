/**
 * The load generator's thresholds: when a send is late, when the client itself limited the
 * load, how long a burst of sends may hold the event loop, how wide a load without a
 * concurrency runs.
 *
 * @module
 */

/** An open-loop send later than this behind its schedule counts as late. */
export const LATE_SEND_TOLERANCE_MS = 10;
/** Event-loop delay p99 above this means the client itself limited the load. */
export const CLIENT_BOUND_LOOP_DELAY_MS = 50;
/** Open-loop timer lag p99 (waits for a concurrency slot excluded) above this means the same. */
export const CLIENT_BOUND_DISPATCH_LAG_MS = 10;
/** Client queue wait p99 (handed to the sender → written to a socket, connect excluded) above this means the same. */
export const CLIENT_BOUND_QUEUE_WAIT_MS = 250;

/** Live open loop: the longest stretch of sends in one event-loop turn before I/O gets its turn. */
export const MAX_SEND_TURN_MS = 1;

/** How wide a load without a concurrency runs where it needs one (open-loop warmup, connection warm-up). */
export const DEFAULT_LOAD_WIDTH = 64;
