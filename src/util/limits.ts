/**
 * Bounds on sizes that come from outside (a flag, a trace line, a dataset), shared by every
 * place such a value enters, so that one size is refused with the same words wherever it is
 * given.
 *
 * @module
 */

/**
 * The longest prompt or output, in tokens, goodput builds or asks for: longer than any model's
 * context, and small enough that building the prompt cannot run the heap out.
 */
export const MAX_TOKENS = 2_000_000;
