/**
 * The option table of `goodput watch`: pure data, read by the watch command and by
 * `goodput emit k8s-watch`, which checks the watch flags it passes through without loading
 * what watch runs.
 *
 * @module
 */

import {
  DAY_MS,
  defineOptions,
  LOAD_OPTIONS,
  OTLP_OPTIONS,
  omitOptions,
  PORT_BOUNDS,
  regroupOptions,
  TARGET_OPTIONS,
  WORKLOAD_OPTIONS,
} from '../flags/index.js';
// store/open.ts alone: the store's index loads SQLite.
import { DEFAULT_STORE_FILE } from '../store/open.js';

const WATCH_OPTIONS = defineOptions({
  every: {
    type: 'duration',
    default: '5m',
    above: 0,
    max: 30 * DAY_MS,
    group: 'Watch',
    valueName: 'DURATION',
    description: 'Time between two rounds (each start moves by up to ±--jitter of it)',
  },
  jitter: {
    type: 'number',
    default: 0.1,
    min: 0,
    max: 0.5,
    says: 'in [0, 0.5]',
    group: 'Watch',
    valueName: 'FRACTION',
    description:
      'Seeded random shift of each round start, as a fraction of --every (0..0.5), so watchers do not align',
  },
  rounds: {
    type: 'integer',
    min: 1,
    group: 'Watch',
    valueName: 'N',
    description: 'Stop after N rounds (for cron and tests) [default: until SIGTERM/Ctrl-C]',
  },
  targets: {
    type: 'string',
    group: 'Watch',
    valueName: 'FILE',
    description:
      'Several targets from a YAML/JSON file: targets: [{name, url, model, key_env: VAR_NAME, slo, gpu_metrics_url}]',
  },
  adr: {
    type: 'string',
    group: 'Watch',
    valueName: 'FILE',
    description: 'ADR whose rollback rule (and gate thresholds, as histogram boundaries) watch applies',
  },
  rollback: {
    type: 'string',
    group: 'Watch',
    valueName: 'RULE',
    description:
      "Rollback rule, e.g. 'p99(ttft)>500 for 5 windows' or 'attainment<0.9 for 10m' (overrides the ADR's)",
  },
  onBreach: {
    type: 'string',
    group: 'Watch',
    valueName: 'CMD',
    description:
      'Shell command run once when the rollback rule triggers; evidence as JSON on stdin and in GOODPUT_BREACH_* variables',
  },
  cooldown: {
    type: 'duration',
    default: '1h',
    group: 'Watch',
    valueName: 'DURATION',
    description: 'No second rollback within this time of the last',
  },
  dailyTokenBudget: {
    type: 'integer',
    group: 'Watch',
    valueName: 'N',
    description: 'Skip rounds that could take a target past N prompt+output tokens in a UTC day',
  },
  store: {
    type: 'string',
    default: DEFAULT_STORE_FILE,
    group: 'Watch',
    valueName: 'FILE',
    description: 'SQLite history file (WAL mode; readable while watch writes)',
  },
  name: {
    type: 'string',
    group: 'Watch',
    valueName: 'NAME',
    description:
      "The target's name in the store, the exporter and alerts (default: the URL's host and path); a store keeps one history per name",
  },
  retain: {
    type: 'duration',
    default: '30d',
    group: 'Watch',
    valueName: 'DURATION',
    description: 'Delete rounds older than this',
  },
  metricsPort: {
    type: 'integer',
    ...PORT_BOUNDS,
    group: 'Watch',
    valueName: 'PORT',
    description: 'Serve Prometheus metrics on --metrics-host:PORT/metrics (0 = any free port)',
  },
  metricsHost: {
    type: 'string',
    default: '127.0.0.1',
    group: 'Watch',
    valueName: 'ADDR',
    description:
      'Address the exporter binds: 127.0.0.1 = this machine only; 0.0.0.0 (or ::) exposes the metrics to the whole network, as a pod must for Prometheus to scrape it',
  },
  gpuScrapeInterval: {
    type: 'duration',
    default: '5s',
    min: 100,
    why: 'dcgm-exporter refreshes every few seconds',
    group: 'Watch',
    valueName: 'DURATION',
    description:
      'Time between two scrapes of the DCGM exporter (--gpu-metrics-url, gpu_metrics_url): it runs all along, each round gets the samples since the previous one',
  },
  quiet: { type: 'boolean', short: 'q', group: 'Watch', description: 'No per-round lines on stderr' },
  json: {
    type: 'boolean',
    group: 'Watch',
    description:
      'Events as JSON lines on stdout (schemaVersion 1): kind goodput.watch-round per round and target, goodput.breach per rollback, goodput.watch-end last',
  },
});

/** Every flag of `goodput watch`. */
export const WATCH_COMMAND_OPTIONS = defineOptions({
  // Watching is live by nature: no virtual clock (--time); the simulated reasoning mode and speculative
  // decoding are not watch targets. --gpu-metrics-url is scraped all along (gpu.ts), not per round:
  // a round is shorter than the exporter's refresh.
  ...omitOptions(TARGET_OPTIONS, ['time', 'reasoningTokens', 'reasoningField', 'speculativeConfig']),
  // A round's prompts are of one length (its token budget is bounded from it): the length
  // distributions, prefix groups and images of run are not watch's (yet).
  ...regroupOptions(
    omitOptions(WORKLOAD_OPTIONS, [
      'promptTokensDist',
      'maxTokensDist',
      'prefixGroups',
      'prefixTokens',
      'promptsPerGroup',
      'images',
      'imagesDir',
      'imageSize',
      'imageFormat',
    ]),
    (o, key) =>
      key === 'dataset'
        ? {
            description:
              'Prompts from a JSONL file ({"prompt"} or {"messages"} per line) or ShareGPT JSON, read once: each round draws --requests of them (other entries every round); replies stay bounded by --max-tokens',
          }
        : { description: o.description },
  ),
  ...LOAD_OPTIONS,
  ...WATCH_OPTIONS,
  ...OTLP_OPTIONS,
});
