/**
 * `goodput sweep`: normal runs at rising concurrency or rate → saturation point and
 * capacity at SLO. Every point is a result directory under the sweep's directory, beside
 * sweep.json. Thin: flags → SweepPlan + BenchmarkConfig → runSweep(runBenchmark).
 *
 * @module
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import {
  CONCURRENCY_BOUNDS,
  defineCommand,
  defineOptions,
  type FlagValues,
  LOAD_OPTIONS,
  OUTPUT_OPTIONS,
  omitOptions,
  regroupOptions,
  TARGET_OPTIONS,
  TRACE_OPTIONS,
  WORKLOAD_OPTIONS,
} from '../flags/index.js';
import { prepareOutDir, SWEEP_FILE } from '../results/index.js';
import { type BenchmarkConfig, progressMode, runBenchmark } from '../runner/index.js';
import { toolVersion } from '../util/index.js';
import { doublingConcurrencies, loadText } from './analysis.js';
import { resolveSweepBase } from './base-command.js';
import { pointConfig, pointName } from './point-load.js';
import { renderSweep } from './render.js';
import { maxPoints, runSweep, type SweepPlan } from './run.js';

const S = 'Sweep';

export const SWEEP_OPTIONS = defineOptions({
  concurrency: {
    type: 'list',
    short: 'c',
    valueName: 'N,N,…',
    group: S,
    description: 'Concurrencies to run, e.g. 1,2,4,8,16 (closed loop; with sessions: sessions at once)',
  },
  concurrencyMax: {
    type: 'integer',
    ...CONCURRENCY_BOUNDS,
    why: 'e.g. --concurrency-max 64',
    valueName: 'N',
    group: S,
    description: 'Concurrencies 1, 2, 4, … doubling up to N [default sweep: 1,2,4,8,16,32]',
  },
  rateMax: {
    type: 'string',
    valueName: 'R|auto',
    group: S,
    description:
      'Rate sweep (open loop), as guidellm: a synchronous run, a max-throughput run, then --steps rates evenly spaced up to R (auto: the measured throughput); with sessions R is new sessions per second',
  },
  steps: {
    type: 'integer',
    default: 5,
    valueName: 'N',
    group: S,
    description: 'Rate sweep: number of rates',
  },
  throughputConcurrency: {
    type: 'integer',
    default: 64,
    valueName: 'N',
    group: S,
    description: 'Rate sweep: concurrency of the max-throughput run',
  },
  minAttainment: {
    type: 'number',
    default: 0.9,
    min: 0,
    max: 1,
    says: 'between 0 and 1',
    why: 'a share of requests, e.g. 0.95',
    valueName: 'A',
    group: S,
    description: 'SLO attainment (0..1) a load must reach to be within capacity; set the SLO with --slo',
  },
  bisect: {
    type: 'integer',
    default: 3,
    valueName: 'N',
    group: S,
    description: 'At most N extra runs bisecting between the last passing and the first failing load',
  },
  maxErrorRate: {
    type: 'number',
    default: 0.2,
    valueName: 'E',
    group: S,
    description: 'Stop rising when more than this share of a point failed',
  },
  latencyFactor: {
    type: 'number',
    default: 10,
    valueName: 'X',
    group: S,
    description: "Stop rising when mean E2EL exceeds X times the first point's",
  },
});

const OUT_OPTIONS = regroupOptions(OUTPUT_OPTIONS, (o, key) =>
  key === 'out'
    ? {
        description:
          'Sweep directory: one result directory per point and sweep.json [default: goodput-results/sweep-<time>/]',
      }
    : key === 'json'
      ? { description: 'Print sweep.json on stdout' }
      : { description: o.description },
);

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** What resolveSweepPlan reads: the sweep's own flags, parsed (bounds checked by their entries). */
type SweepFlags = FlagValues<typeof SWEEP_OPTIONS>;

/** Flags → plan. Throws E_USAGE naming the flag at fault. */
export function resolveSweepPlan(o: SweepFlags): SweepPlan {
  const { concurrency: list, concurrencyMax: cmax, rateMax, minAttainment } = o;
  const chosen = [list !== undefined, cmax !== undefined, rateMax !== undefined].filter(Boolean).length;
  if (chosen > 1) {
    throw usage('--concurrency, --concurrency-max and --rate-max pick different sweeps', 'use one of them');
  }
  const plan: SweepPlan = {
    mode: rateMax !== undefined ? 'rate' : 'concurrency',
    minAttainment,
    bisectSteps: o.bisect,
    maxErrorRate: o.maxErrorRate,
    latencyFactor: o.latencyFactor,
  };
  if (list !== undefined) {
    const values = list.map((s) => Number(s));
    if (values.some((v) => !Number.isInteger(v) || v < 1)) {
      throw usage(
        `--concurrency expects whole numbers ≥ 1, got ${list.join(',')}`,
        'e.g. --concurrency 1,2,4,8',
      );
    }
    plan.concurrencies = values;
  } else if (rateMax === undefined) {
    plan.concurrencies = doublingConcurrencies(cmax ?? 32);
  } else {
    if (rateMax !== 'auto') {
      const r = Number(rateMax);
      if (!(r > 0))
        throw usage(`--rate-max expects a rate > 0 or auto, got '${rateMax}'`, 'e.g. --rate-max 20');
      plan.rateMax = r;
    }
    plan.steps = Math.max(1, o.steps);
    plan.throughputConcurrency = Math.max(1, o.throughputConcurrency);
  }
  return plan;
}

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export const sweepCommand = defineCommand({
  name: 'sweep',
  summary: 'Runs at rising concurrency or rate: saturation point (knee) and capacity at SLO',
  description: [
    'Concurrency sweep: --concurrency 1,2,4,8 or --concurrency-max N (doubling). Rate sweep: --rate-max R|auto.',
    'Each point is a normal run with its own result directory under --out; sweep.json lists the points,',
    'the knee of latency against throughput and the capacity at SLO (--slo, --min-attainment), bisected',
    'between the last passing and the first failing load. The sweep stops rising when errors or latency explode.',
    'With --sessions or --session-rate the loads are multi-turn sessions: sessions at once, or new sessions per second.',
    "With --trace every point replays the trace's requests: a rate point at its rate (the trace's times scaled), a",
    'concurrency point closed loop.',
  ].join('\n'),
  options: {
    ...TARGET_OPTIONS,
    ...WORKLOAD_OPTIONS,
    ...TRACE_OPTIONS,
    ...omitOptions(LOAD_OPTIONS, ['concurrency', 'rate']),
    ...SWEEP_OPTIONS,
    ...OUT_OPTIONS,
  },
  async run(ctx) {
    const o = ctx.args.options;
    const plan = resolveSweepPlan(o);
    const resolved = await resolveSweepBase(ctx.args, plan, ctx.env, ctx.cwd, ctx.signal);
    const base = resolved.config;
    const quiet = o.quiet === true;
    if (!quiet) for (const w of base.warnings ?? []) ctx.stderr.write(`warning: ${w}\n`);
    if (!quiet) for (const n of resolved.notes) ctx.stderr.write(`note: ${n}\n`);
    if (!quiet && Object.keys(base.slo).length === 0) {
      ctx.stderr.write('note: no --slo given: capacity counts every successful request as meeting the SLO\n');
    }
    const dir = base.outDir ?? join(ctx.cwd, 'goodput-results', `sweep-${stamp(new Date())}`);
    // Checked before the first point: a sweep of many minutes must not end unable to write.
    const { removed } = await prepareOutDir(dir, { force: base.force === true, nested: true });
    if (!quiet && removed.length > 0) {
      ctx.stderr.write(`--force: removed the earlier sweep's ${removed.join(', ')} from ${dir}\n`);
    }
    const sessions = plan.sessions === true;
    const planned = maxPoints(plan);
    const result = await runSweep(
      plan,
      (req) => {
        const name = pointName(req, sessions);
        const config: BenchmarkConfig = {
          ...pointConfig(base, req, resolved.sweep),
          outDir: join(dir, name),
          labels: { ...base.labels, 'sweep.phase': req.phase, 'sweep.point': name },
        };
        if (!quiet)
          ctx.stderr.write(`sweep: point ${req.ordinal} of up to ${planned}: ${name} (${req.phase}) …\n`);
        return runBenchmark(config, {
          stderr: ctx.stderr,
          signal: ctx.signal,
          cwd: ctx.cwd,
          quiet: true,
          progress: quiet ? 'none' : progressMode(o.progress, ctx.stderr),
          ...(o.progressEvery !== undefined ? { progressEveryMs: o.progressEvery } : {}),
          version: toolVersion(),
          ...(ctx.argv ? { command: ctx.argv } : {}),
        });
      },
      {
        signal: ctx.signal,
        onPoint: (p) => {
          if (!quiet) {
            ctx.stderr.write(
              `sweep: ${loadText(p.mode, p.load, sessions)}: ${p.requestThroughput.toFixed(2)} req/s${p.sessionThroughput !== undefined ? ` (${p.sessionThroughput.toFixed(2)} sessions/s)` : ''}, mean E2EL ${Math.round(p.meanE2elMs)} ms, attainment ${p.attainment.toFixed(2)}${p.passes ? '' : ' (miss)'}\n`,
            );
          }
        },
      },
    );
    if (resolved.trace) result.trace = resolved.trace;
    await writeFile(join(dir, SWEEP_FILE), `${JSON.stringify(result, null, 2)}\n`);
    if (o.json === true) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else if (!quiet) ctx.stdout.write(renderSweep(result));
    if (!quiet) ctx.stderr.write(`sweep: ${join(dir, SWEEP_FILE)}\n`);
    if (result.interrupted) return ExitCode.INTERRUPTED;
    if (!result.points.some((p) => p.completed > 0)) {
      throw new GoodputError(
        'E_ALL_FAILED',
        `no request of the sweep succeeded (${result.points.length} point(s), see ${dir})`,
        'run goodput doctor against the same --url to find which step fails',
      );
    }
    return ExitCode.OK;
  },
});
