/**
 * Groups of prompts that share a prefix (`--prefix-groups N --prefix-tokens T
 * [--prompts-per-group P]`), after vLLM bench's prefix-repetition dataset: each prompt is its
 * group's prefix of T tokens followed by a part of its own (`--prompt-tokens`, or its
 * distribution), so a server's prefix cache can hit the prefix and never the rest.
 *
 * Which group a request takes:
 * - without P: one of the N prefixes at random (seeded per request), the same N prefixes for
 *   the whole run: the cache's working set is N prefixes, each reused about requests/N times;
 * - with P: rounds of N×P requests; each round has N fresh prefixes, each taken by exactly P
 *   requests of the round, in a seeded random order: vLLM's dataset of N prefixes × P prompts
 *   (shuffled) for the first N×P requests, and the same shape again after.
 *
 * Pure and lazy: `groupOf(i)` depends only on the seed, the spec and i.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { PrefixGroupsSpec } from '../types.js';
import { MAX_TOKENS } from '../util/index.js';
import type { Rng } from './rng.js';

/** Bounds: a round's order is a permutation of groups × promptsPerGroup entries. */
export const MAX_PREFIX_GROUPS = 100_000;
export const MAX_ROUND_PROMPTS = 10_000_000;

/** Throws E_USAGE naming the flag of a spec that cannot be generated. */
export function checkPrefixGroups(spec: PrefixGroupsSpec): void {
  const whole = (n: number, low: number, high: number) => Number.isInteger(n) && n >= low && n <= high;
  if (!whole(spec.groups, 1, MAX_PREFIX_GROUPS))
    throw new GoodputError(
      'E_USAGE',
      `--prefix-groups must be a whole number from 1 to ${MAX_PREFIX_GROUPS}, got ${spec.groups}`,
      'e.g. --prefix-groups 8 --prefix-tokens 2048',
    );
  if (!whole(spec.prefixTokens, 1, MAX_TOKENS))
    throw new GoodputError(
      'E_USAGE',
      `--prefix-tokens must be a whole number from 1 to ${MAX_TOKENS}, got ${spec.prefixTokens}`,
      'e.g. --prefix-groups 8 --prefix-tokens 2048',
    );
  const per = spec.promptsPerGroup;
  if (per !== undefined && (!whole(per, 1, MAX_ROUND_PROMPTS) || per * spec.groups > MAX_ROUND_PROMPTS))
    throw new GoodputError(
      'E_USAGE',
      `--prompts-per-group must be a whole number ≥ 1 with groups × prompts ≤ ${MAX_ROUND_PROMPTS}, got ${per}`,
      'e.g. --prefix-groups 8 --prompts-per-group 16',
    );
}

/** Which prefix request i starts with: `id` is distinct for every prefix of the run. */
export interface PrefixChoice {
  /** round × groups + group. */
  id: number;
  group: number;
  round: number;
}

/** Assigns requests to prefix groups (see the module comment); `rng` is the workload's 'prefix-group' stream. */
export class PrefixGroups {
  private roundOrder: { round: number; order: Uint32Array } | undefined;

  constructor(
    readonly spec: PrefixGroupsSpec,
    private readonly rng: Rng,
  ) {
    checkPrefixGroups(spec);
  }

  groupOf(i: number): PrefixChoice {
    const { groups, promptsPerGroup: per } = this.spec;
    if (per === undefined) {
      const group = this.rng.fork(i).int(groups);
      return { id: group, group, round: 0 };
    }
    const size = groups * per;
    const round = Math.floor(i / size);
    const slot = this.order(round, size)[i % size]!;
    const group = Math.floor(slot / per);
    return { id: round * groups + group, group, round };
  }

  /** Round r's seeded permutation of 0..size-1; the last round's is kept (requests come in order). */
  private order(round: number, size: number): Uint32Array {
    if (this.roundOrder?.round === round) return this.roundOrder.order;
    const rng = this.rng.fork(`round/${round}`);
    const order = new Uint32Array(size);
    for (let k = 0; k < size; k++) order[k] = k;
    for (let k = size - 1; k > 0; k--) {
      const j = rng.int(k + 1);
      const t = order[k]!;
      order[k] = order[j]!;
      order[j] = t;
    }
    this.roundOrder = { round, order };
    return order;
  }
}
