/**
 * `--stages 30s:10,2m:50,30s:0` and `--stages-of rate|concurrency` → the load's stages (k6
 * style: each target is reached linearly over its stage, from the previous one, 0 at first).
 *
 * @module
 */

import { parseDuration } from '../config/index.js';
import { GoodputError } from '../errors.js';
import type { LoadSpec, LoadStage } from '../types.js';
import type { BenchmarkFlags } from './options/index.js';
import type { ParsedArgs } from './spec.js';

const HINT =
  'e.g. --stages 30s:10,2m:50,30s:0 (ramp to 10 over 30 s, to 50 over 2 min, down to 0); 0s:N jumps to N';
/** Flags the stages replace. */
const REPLACED = ['rate', 'concurrency', 'duration', 'trace', 'sessions', 'sessionRate'];

function usage(message: string, hint: string = HINT): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Parses the stage list (pure). */
export function parseStages(items: readonly string[]): LoadStage[] {
  const stages = items.map((item) => {
    const colon = item.lastIndexOf(':');
    if (colon <= 0) throw usage(`--stages expects DURATION:TARGET, got '${item}'`);
    const durationMs = parseDuration(item.slice(0, colon), '--stages');
    const text = item.slice(colon + 1).trim();
    const target = Number(text);
    if (text === '' || !Number.isFinite(target) || target < 0) {
      throw usage(`--stages: the target of '${item}' must be a number ≥ 0`);
    }
    return { durationMs, target };
  });
  if (stages.length === 0 || stages.every((s) => s.durationMs === 0)) {
    throw usage('--stages needs at least one stage that lasts');
  }
  return stages;
}

/** Shapes `load` by --stages (in place); returns it. Without --stages, refuses --stages-of. */
export function applyStageFlags(
  load: LoadSpec,
  args: ParsedArgs<Pick<BenchmarkFlags, 'stages' | 'stagesOf' | 'burstiness'>>,
): LoadSpec {
  const items = args.options.stages;
  if (!items || items.length === 0) {
    if (args.given.has('stagesOf')) throw usage('--stages-of needs --stages');
    return load;
  }
  for (const key of REPLACED) {
    if (args.given.has(key)) {
      throw usage(
        `--${key} cannot be used with --stages`,
        'the stages give the load at every moment and the run lasts as long as they do; drop the flag',
      );
    }
  }
  const stages = parseStages(items);
  const of = args.options.stagesOf === 'rate' ? 'rate' : 'concurrency';
  load.stages = stages;
  load.stagesOf = of;
  load.durationMs = stages.reduce((t, s) => t + s.durationMs, 0);
  if (!args.given.has('requests')) delete load.requests;
  delete load.rate;
  if (of === 'rate') {
    load.mode = 'open';
    delete load.concurrency;
    const b = args.options.burstiness;
    load.burstiness = b ?? 1;
  } else {
    if (args.given.has('maxConcurrency') || args.given.has('burstiness')) {
      throw usage(
        `--${args.given.has('burstiness') ? 'burstiness' : 'max-concurrency'} applies to --stages-of rate`,
        'stages of concurrency are a closed loop: their targets are the requests in flight',
      );
    }
    load.mode = 'closed';
    delete load.burstiness;
    delete load.maxConcurrency;
    load.concurrency = Math.max(1, ...stages.map((s) => Math.ceil(s.target)));
  }
  return load;
}
