/**
 * `goodput emit k8s-job` and `goodput emit k8s-watch`: Kubernetes manifests (emit/k8s.ts) on
 * stdout, with the run's or watch's own flags after `--`, checked here against that command's
 * option table so a typo fails at emit time, not in N pods.
 *
 * @module
 */

import { stringify } from 'yaml';
import { parseStartAt } from '../config/index.js';
import { ExitCode, GoodputError } from '../errors.js';
import {
  type AnyCommandSpec,
  BENCHMARK_OPTIONS,
  type CommandSpec,
  defineCommand,
  defineOptions,
  type FlagValues,
  type OptionTable,
  type ParsedArgs,
  parseArgv,
  SHARD_OPTIONS,
} from '../flags/index.js';
import { WATCH_COMMAND_OPTIONS } from '../watch/options-command.js';
import { MAX_PARTS } from '../workload/index.js';
import { mergeJob, RESULTS_MOUNT, shardJob, watchManifests } from './k8s.js';

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Several manifests as one multi-document YAML stream. */
export function toYaml(docs: readonly object[]): string {
  return docs.map((d) => stringify(d, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
}

const COMMON = defineOptions({
  image: {
    type: 'string',
    valueName: 'IMAGE',
    description: 'Container image with goodput on its PATH (e.g. built FROM node:20 with npm i -g goodput)',
  },
  command: {
    type: 'string',
    default: 'goodput',
    valueName: 'CMD',
    description: 'How the image runs goodput (split on spaces), e.g. "npx goodput"',
  },
  namespace: { type: 'string', valueName: 'NS', description: 'metadata.namespace of every object' },
  secret: {
    type: 'string',
    valueName: 'NAME',
    description:
      'Secret holding the API key, passed as env GOODPUT_API_KEY (the key is never in the manifest)',
  },
  secretKey: {
    type: 'string',
    default: 'api-key',
    valueName: 'KEY',
    description: 'Key of the API key inside --secret',
  },
});

/** The passed-through flags of `command`, parsed against its table (typed by it); some are set by the manifest. */
function passThrough<T extends OptionTable>(
  spec: CommandSpec<T>,
  argv: string[],
  reserved: readonly string[],
  why: string,
): ParsedArgs<FlagValues<T>> {
  const parsed = parseArgv(spec, argv);
  for (const name of reserved) {
    const key = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (parsed.given.has(key))
      throw usage(`--${name} after -- is set by the manifest (${why})`, `leave --${name} out`);
  }
  if (parsed.positionals.length > 0)
    throw usage(
      `unexpected argument '${parsed.positionals[0]}' after --`,
      `pass goodput ${spec.name} flags only`,
    );
  return parsed;
}

function common(o: FlagValues<typeof COMMON>, verb: string) {
  if (typeof o.image !== 'string')
    throw usage(
      `emit ${verb} needs --image IMAGE`,
      'an image with goodput installed, e.g. --image ghcr.io/acme/goodput:0.1.0',
    );
  const command = o.command.split(' ').filter((s) => s !== '');
  return {
    image: o.image,
    command,
    ...(typeof o.namespace === 'string' ? { namespace: o.namespace } : {}),
    ...(typeof o.secret === 'string' ? { secret: { name: o.secret, key: o.secretKey } } : {}),
  };
}

/** The tables the passed-through flags are checked against: run's and watch's, without what they run. */
const RUN_SPEC = defineCommand({
  name: 'run',
  summary: '',
  options: { ...BENCHMARK_OPTIONS, ...SHARD_OPTIONS },
  run: async () => ExitCode.OK,
});
const WATCH_SPEC = defineCommand({
  name: 'watch',
  summary: '',
  options: WATCH_COMMAND_OPTIONS,
  run: async () => ExitCode.OK,
});

const k8sJob = defineCommand({
  name: 'k8s-job',
  summary: 'An Indexed Job running one sharded `goodput run` over N pods, and its merge step',
  description: [
    'The run flags of the WHOLE run follow `--`; pod i runs shard i of it (--shard $(JOB_COMPLETION_INDEX)/N)',
    'from the instant in the pod annotation goodput/start-at (fixed now from --start-at; edit it to re-time).',
    'With --volume CLAIM each shard writes /results/shard-<i> and `--merge` prints the merge Job;',
    'without, each pod prints its summary JSON (histograms included) on stdout: save the logs, then goodput merge.',
    'Example: goodput emit k8s-job --shards 10 --image IMG --secret llm-key --volume results -- --url http://vllm:8000 --rate 200 --requests 20000',
  ].join('\n'),
  positionals: [{ name: 'RUN_FLAGS', description: 'after --: flags of goodput run', variadic: true }],
  options: {
    shards: {
      type: 'integer',
      min: 1,
      max: MAX_PARTS,
      why: 'one pod a shard',
      valueName: 'N',
      description: 'Pods, each one shard (completions = parallelism = N)',
    },
    ...COMMON,
    name: {
      type: 'string',
      default: 'goodput-shards',
      valueName: 'NAME',
      description: 'Name of the Job (the merge Job is NAME-merge)',
    },
    startAt: {
      type: 'string',
      default: '+2m',
      valueName: 'TIME',
      description:
        'The shared start instant, fixed now: ISO time with zone, Unix ms or +DURATION from now; leave time for scheduling and image pulls',
    },
    volume: {
      type: 'string',
      valueName: 'CLAIM',
      description: `PersistentVolumeClaim for the results, mounted at ${RESULTS_MOUNT} (ReadWriteMany if pods may land on several nodes)`,
    },
    merge: {
      type: 'boolean',
      description: 'Print the merge Job instead (needs --volume); apply it once the shards completed',
    },
  },
  async run(ctx) {
    const o = ctx.args.options;
    const shards = o.shards;
    if (shards === undefined) throw usage('emit k8s-job needs --shards N (1 or more)', 'e.g. --shards 10');
    const run = passThrough(
      RUN_SPEC,
      ctx.args.positionals,
      ['shard', 'start-at', 'out', 'force', 'quiet', 'json', 'api-key-file', 'config'],
      'each pod gets its shard, the instant, its output folder and the key from the Secret',
    );
    const r = run.options;
    if (r.url === undefined)
      throw usage(
        'the run flags after -- need --url: the endpoint every pod drives',
        'e.g. -- --url http://vllm.default.svc:8000 --rate 100 --requests 10000',
      );
    if (r.time === 'virtual')
      throw usage('--time virtual has no wall clock for pods to meet at', 'leave out --time virtual');
    if (r.concurrency !== undefined && r.concurrency < shards)
      throw usage(
        `--concurrency ${r.concurrency} cannot be split over ${shards} pods`,
        `give the whole run's --concurrency, at least ${shards}`,
      );
    if (r.requests !== undefined && r.requests < shards)
      throw usage(
        `--requests ${r.requests} leaves some of the ${shards} pods nothing to send`,
        `give the whole run's --requests, at least ${shards}`,
      );
    const startAt = new Date(parseStartAt(o.startAt, Date.now(), '--start-at', 'accept')).toISOString();
    const options = {
      ...common(o, 'k8s-job'),
      name: o.name,
      shards,
      startAt,
      runArgs: ctx.args.positionals,
      ...(typeof o.volume === 'string' ? { claim: o.volume } : {}),
    };
    if (o.merge === true) {
      if (!options.claim)
        throw usage(
          '--merge needs --volume CLAIM (the shard folders it merges)',
          'add --volume CLAIM, or merge the saved pod logs with goodput merge',
        );
      ctx.stdout.write(toYaml([mergeJob({ ...options, claim: options.claim })]));
      return ExitCode.OK;
    }
    ctx.stdout.write(toYaml([shardJob(options)]));
    const job = `job/${options.name}`;
    const ns = options.namespace ? ` -n ${options.namespace}` : '';
    ctx.stderr.write(
      [
        `${shards} pods start together at ${startAt}. Then:`,
        `  kubectl${ns} wait --for=condition=complete ${job} --timeout=1h`,
        options.claim
          ? `  goodput emit k8s-job … --merge | kubectl${ns} apply -f - && kubectl${ns} logs -f job/${options.name}-merge`
          : `  for i in $(seq 0 ${shards - 1}); do kubectl${ns} logs -l job-name=${options.name},batch.kubernetes.io/job-completion-index=$i > shard-$i.json; done\n  goodput merge shard-*.json -o merged/`,
        '',
      ].join('\n'),
    );
    return ExitCode.OK;
  },
});

const k8sWatch = defineCommand({
  name: 'k8s-watch',
  summary: 'A Deployment + Service + ServiceMonitor running `goodput watch` with its exporter scraped',
  description: [
    'The watch flags follow `--` (--url, --every, --slo, --adr …); the exporter listens on 0.0.0.0:9464 in the pod,',
    'the Service exposes it and the ServiceMonitor has the Prometheus operator scrape it. The key comes from --secret.',
    'Example: goodput emit k8s-watch --image IMG --secret llm-key -- --url http://vllm:8000 --model m --every 5m --slo ttft=500',
  ].join('\n'),
  positionals: [{ name: 'WATCH_FLAGS', description: 'after --: flags of goodput watch', variadic: true }],
  options: {
    ...COMMON,
    name: {
      type: 'string',
      default: 'goodput-watch',
      valueName: 'NAME',
      description: 'Name of the objects',
    },
    scrapeInterval: {
      type: 'string',
      default: '30s',
      valueName: 'DURATION',
      description: 'Prometheus scrape interval (ServiceMonitor endpoints[].interval)',
    },
    volume: {
      type: 'string',
      valueName: 'CLAIM',
      description:
        'PersistentVolumeClaim for the SQLite history at /data (it survives restarts) [default: emptyDir]',
    },
  },
  async run(ctx) {
    const o = ctx.args.options;
    const watch = passThrough(
      WATCH_SPEC,
      ctx.args.positionals,
      ['metrics-port', 'metrics-host', 'store', 'api-key-file', 'config', 'rounds'],
      'the pod serves its exporter on 0.0.0.0:9464, keeps its store at /data and reads the key from the Secret',
    );
    if (watch.options.url === undefined && watch.options.targets === undefined)
      throw usage(
        'the watch flags after -- need --url (or --targets)',
        'e.g. -- --url http://vllm.default.svc:8000 --model my-model --every 5m',
      );
    if (!/^\d+(ms|s|m|h)$/.test(o.scrapeInterval))
      throw usage(
        `--scrape-interval must be a Prometheus duration, got '${o.scrapeInterval}'`,
        'e.g. --scrape-interval 30s',
      );
    const docs = watchManifests({
      ...common(o, 'k8s-watch'),
      name: o.name,
      watchArgs: ctx.args.positionals,
      scrapeInterval: o.scrapeInterval,
      ...(typeof o.volume === 'string' ? { claim: o.volume } : {}),
    });
    ctx.stdout.write(toYaml(docs));
    return ExitCode.OK;
  },
});

export const k8sCommands: AnyCommandSpec[] = [k8sJob, k8sWatch];
