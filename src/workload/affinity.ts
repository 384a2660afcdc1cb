/**
 * Session affinity: the id a router with session affinity keys on (`X-Session-ID`, or the
 * name of `--session-header`), one per conversation. Every turn of a multi-turn session, and
 * every step of an agent run, carries its conversation's id (WorkItem.affinityId), so a router
 * that pins a session to one replica sends the whole conversation where its prefix is cached.
 *
 * The id is seeded, not random: a UUID-shaped string (RFC 9562's version 8, "custom") drawn
 * from the run's seed and the conversation's own id ("s-000003", "w-000001", an agent run's),
 * so it is the same for every turn of one conversation, different for every other
 * conversation of the run (and for another --seed), and the same in a rerun with the same
 * seed, like the prompts themselves. It is derived from nothing but the seed and the
 * conversation: no secret, nothing to redact.
 *
 * @module
 */

import { createRng } from './rng.js';

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

/**
 * The affinity id of one conversation of a run seeded `seed` (a number, or an Rng's key such
 * as "42"): stable for the conversation, distinct between conversations. Agent runs call it
 * with their own conversation id (e.g. "a-000003") and set it on every step's WorkItem.
 *
 * @example
 * conversationAffinityId(42, 's-000001'); // '3f0c…-…-8…-…' (same on every call)
 */
export function conversationAffinityId(seed: number | string, conversation: string): string {
  const rng = createRng(seed).fork('affinity').fork(conversation);
  const words = [0, 1, 2, 3].map(() => hex8(Math.floor(rng.next() * 2 ** 32))).join('');
  // Version 8 in the 13th hex digit, the RFC variant (10xx) in the 17th.
  const variant = ((Number.parseInt(words[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${words.slice(0, 8)}-${words.slice(8, 12)}-8${words.slice(13, 16)}-${variant}${words.slice(17, 20)}-${words.slice(20, 32)}`;
}
