/**
 * The daily token budget of `goodput watch` (--daily-token-budget): the most tokens one probe
 * request can spend, and the loads whose rounds a budget cannot bound.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { LoadSpec } from '../types.js';
import type { WatchWorkload } from './config.js';

/**
 * The most tokens one probe request can spend (for the daily budget): its longest prompt (the
 * top of the length spread, the system prompt, and in a session the last turn carrying the
 * whole history) plus its output.
 */
export function worstRequestTokens(promptTokens: number, maxTokens: number, w: WatchWorkload = {}): number {
  const first = Math.ceil(promptTokens * (1 + (w.promptTokensRange ?? 0))) + (w.systemPromptTokens ?? 0);
  const turns = w.sessions?.turns?.max ?? 1;
  const later = (turns - 1) * ((w.sessions?.turnTokens ?? promptTokens) + maxTokens);
  return first + later + maxTokens;
}

/**
 * Why a daily token budget cannot bound rounds of this load (undefined: it can). A round set
 * by --duration alone has no bound; with a dataset the bound is the round's own prompts, which a
 * session's later turns are not until its replies come.
 */
export function unboundedBudget(load: LoadSpec, withDataset: boolean): GoodputError | undefined {
  if (load.requests === undefined)
    return new GoodputError(
      'E_USAGE',
      '--daily-token-budget needs --requests: a round set by --duration alone has no bound on the tokens it may spend',
      'give --requests N (with or without --duration), or drop --daily-token-budget',
    );
  if (withDataset && load.sessions !== undefined)
    return new GoodputError(
      'E_USAGE',
      "--daily-token-budget with --dataset needs single requests: the budget reads each round's prompts before sending them, and a session's later turns are not known until its replies come",
      'give --requests N (and no --sessions/--session-rate), or drop --daily-token-budget',
    );
  return undefined;
}
