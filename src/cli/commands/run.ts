/**
 * `goodput run`: one benchmark. Thin: flags → BenchmarkConfig → runBenchmark → table or
 * JSON on stdout. Everything it measures is in the result directory, even after Ctrl-C.
 *
 * @module
 */

import { renderFindings, unmeasuredLines } from '../../diagnosis/index.js';
import { ExitCode } from '../../errors.js';
import {
  BENCHMARK_OPTIONS,
  defineCommand,
  OTLP_OPTIONS,
  resolveBenchmarkConfig,
  SHARD_OPTIONS,
} from '../../flags/index.js';
import { resolveOtlpConfig } from '../../otlp/index.js';
import { renderRunTable } from '../../report/terminal.js';
import { runBenchmark, unmeasurableError } from '../../runner/index.js';
import { toolVersion } from '../../util/index.js';

export const runCommand = defineCommand({
  name: 'run',
  summary: 'Run one benchmark and print its baseline (TTFT, TPOT, ITL, E2EL, throughput, goodput)',
  description: [
    'With no --url, the embedded simulated engine is started on 127.0.0.1 and measured: no GPU, key or network.',
    'With no load flags, a default closed-loop load of about ten seconds is run.',
    'Writes DIR/summary.json (vLLM-compatible keys) and DIR/requests.jsonl (one record per request, streamed).',
    'Ctrl-C stops the load, writes what was measured and exits 130.',
  ].join('\n'),
  options: { ...BENCHMARK_OPTIONS, ...SHARD_OPTIONS, ...OTLP_OPTIONS },
  async run(ctx) {
    const config = await resolveBenchmarkConfig(ctx.args, ctx.env, ctx.cwd);
    const otlp = resolveOtlpConfig(
      {
        endpoint: ctx.args.options.otlpEndpoint,
        spans: ctx.args.options.otlpSpans === true,
      },
      ctx.env,
    );
    if (otlp) config.otlp = otlp;
    const quiet = ctx.args.options.quiet === true;
    const json = ctx.args.options.json === true;
    if (!quiet) for (const w of config.warnings ?? []) ctx.stderr.write(`warning: ${w}\n`);
    const { summary, dir } = await runBenchmark(config, {
      stderr: ctx.stderr,
      signal: ctx.signal,
      cwd: ctx.cwd,
      quiet,
      ...(ctx.args.options.progress !== undefined ? { progress: ctx.args.options.progress } : {}),
      ...(ctx.args.options.progressEvery !== undefined
        ? { progressEveryMs: ctx.args.options.progressEvery }
        : {}),
      version: toolVersion(),
      ...(ctx.argv ? { command: ctx.argv } : {}),
    });
    if (json) ctx.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    else if (!quiet) {
      ctx.stdout.write(renderRunTable(summary));
      // What could not be judged is said beside findings, or when a scraped engine lacked a figure.
      const findings = summary.diagnosis ?? [];
      const unmeasured = findings.length > 0 || summary.server ? unmeasuredLines(summary) : [];
      const diagnosis = renderFindings(findings, unmeasured);
      if (diagnosis) ctx.stdout.write(`\n${diagnosis}`);
    }
    if (ctx.signal.aborted) {
      if (!quiet) ctx.stderr.write(`interrupted: what was measured is in ${dir}\n`);
      return ExitCode.INTERRUPTED;
    }
    const failure = unmeasurableError(summary, dir);
    if (failure) throw failure;
    return ExitCode.OK;
  },
});
