/**
 * Every command of the `goodput` binary, in the order a user meets them. Each entry names the
 * command and its one-line summary; its module is imported only when the command runs or its
 * help is asked for, so `goodput --version` and `goodput --help` load none of them.
 * cli/help.test.ts checks that each entry's name and summary are its spec's.
 *
 * Add a command by appending an entry (edit this list in place; several modules add to it).
 *
 * @module
 */

import type { LazyCommand } from '../../flags/spec.js';

export const COMMANDS: LazyCommand[] = [
  // measure, diagnose, decide, report, watch, simulate
  {
    name: 'run',
    summary: 'Run one benchmark and print its baseline (TTFT, TPOT, ITL, E2EL, throughput, goodput)',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: 'doctor',
    summary:
      'Check a channel step by step (config, reachability, models, streaming, conformance) and name the fix',
    load: async () => (await import('../../doctor/command.js')).doctorCommand,
  },
  {
    name: 'experiment',
    summary:
      'Measure serving configurations against a baseline: repeated, interleaved runs, servers started and stopped for you',
    load: async () => (await import('../../experiment/command.js')).experimentCommand,
  },
  {
    name: 'sweep',
    summary: 'Runs at rising concurrency or rate: saturation point (knee) and capacity at SLO',
    load: async () => (await import('../../sweep/command.js')).sweepCommand,
  },
  {
    name: 'merge',
    summary:
      'Combine the runs of several load generators (same target, same time) into one, percentiles exact',
    load: async () => (await import('./merge.js')).mergeCommand,
  },
  {
    name: 'summarize',
    summary:
      "Rebuild a killed run's summary.json from its requests.jsonl, so every command reads the folder again",
    load: async () => (await import('./summarize.js')).summarizeCommand,
  },
  {
    name: 'import',
    summary:
      "Write another tool's result (vLLM, guidellm, AIPerf, GenAI-Perf, llm-d, inference-perf, SGLang) as a result directory every command reads",
    load: async () => (await import('./import.js')).importCommand,
  },
  {
    name: 'compare',
    summary:
      'Compare runs against a baseline: deltas with 95% confidence intervals, verdicts, bottleneck hints',
    load: async () => (await import('../../compare/command.js')).compareCommand,
  },
  {
    name: 'adr',
    summary: 'Architecture Decision Records with executable rules: new, lint, check, enforce',
    load: async () => (await import('../../adr/command.js')).adrCommand,
  },
  {
    name: 'gate',
    summary: 'Run (or read) a benchmark and check thresholds: exit 4 on a breach, 3 when unmeasurable',
    load: async () => (await import('../../gate/command.js')).gateCommand,
  },
  {
    name: 'report',
    summary: 'Write a self-contained HTML report (charts) or Markdown tables of one or more runs',
    load: async () => (await import('../../report/html/command.js')).reportCommand,
  },
  {
    name: 'watch',
    summary: 'Probe endpoints on a schedule: history in SQLite, Prometheus exporter, ADR rollback rule',
    load: async () => (await import('../../watch/command.js')).watchCommand,
  },
  {
    name: 'history',
    summary: 'Trend of the watch history: p50/p99 per window recomputed from merged histograms',
    load: async () => (await import('../../watch/history-command.js')).historyCommand,
  },
  {
    name: 'trace',
    summary: 'Look at a trace before replaying it with run --trace (analyze)',
    load: async () => (await import('../../workload/trace-command.js')).traceCommand,
  },
  {
    name: 'emit',
    summary:
      'Generate artefacts: alert rules and a Grafana dashboard from an ADR (prometheus-rules, grafana-dashboard), Kubernetes manifests (k8s-job, k8s-watch)',
    load: async () => (await import('../../emit/command.js')).emitCommand,
  },
  {
    name: 'sim',
    summary: 'Serve the simulated vLLM-like engine (OpenAI-compatible, with /metrics)',
    load: async () => (await import('../../sim/command.js')).simCommand,
  },
];
