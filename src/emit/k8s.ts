/**
 * Kubernetes manifests for goodput, as plain objects (pure; `emit/kubernetes-command.ts` writes them
 * as YAML, the tests validate them with kubernetes-models):
 *
 * - `shardJob`: an Indexed Job of N pods (completions = parallelism = N), pod i running
 *   `goodput run <flags> --shard $(JOB_COMPLETION_INDEX)/N --start-at $(GOODPUT_START_AT)`; the
 *   index and the shared instant come through the downward API (the Job's completion-index
 *   annotation and the template's `goodput/start-at` annotation), the API key from a Secret via
 *   env, never inline. Results go to a volume claim (one folder per shard) or, without one, to
 *   stdout as the summary JSON (the histograms are the compact snapshot `goodput merge` reads).
 * - `mergeJob`: one pod merging the shard folders on the claim into `merged/`.
 * - `watchManifests`: a Deployment running `goodput watch` with its exporter on 0.0.0.0, a
 *   Service in front of it and a ServiceMonitor for the Prometheus operator.
 *
 * @module
 */

/** Annotation of the pod template holding the shared start instant (ISO 8601). */
export const START_AT_ANNOTATION = 'goodput/start-at';
/** The Job controller's annotation of a pod's completion index. */
export const INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
/** Where the results volume is mounted in the pods. */
export const RESULTS_MOUNT = '/results';
/** The exporter's port in the watch pod. */
export const WATCH_METRICS_PORT = 9464;

type Manifest = Record<string, unknown>;

export interface PodCommon {
  /** Name of the Job / Deployment (and the prefix of the others). */
  name: string;
  namespace?: string;
  image: string;
  /** How the image runs goodput, e.g. ["goodput"] or ["npx", "goodput"]. */
  command: string[];
  /** Secret holding the API key (env GOODPUT_API_KEY), and its key in the Secret. */
  secret?: { name: string; key: string };
}

export interface ShardJobOptions extends PodCommon {
  shards: number;
  /** The shared start instant, ISO 8601. */
  startAt: string;
  /** `goodput run` flags of the whole run (never --shard, --start-at, --out). */
  runArgs: string[];
  /** A PersistentVolumeClaim for the results (ReadWriteMany when pods land on several nodes); absent: stdout. */
  claim?: string;
}

function labels(name: string, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'goodput',
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/component': component,
  };
}

function metadata(name: string, namespace: string | undefined, l: Record<string, string>): Manifest {
  return { name, ...(namespace !== undefined ? { namespace } : {}), labels: l };
}

function keyEnv(secret: PodCommon['secret']): Manifest[] {
  return secret
    ? [{ name: 'GOODPUT_API_KEY', valueFrom: { secretKeyRef: { name: secret.name, key: secret.key } } }]
    : [];
}

const fromAnnotation = (name: string, annotation: string): Manifest => ({
  name,
  valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${annotation}']` } },
});

/** The args of shard pods: the run's flags, then the shard, the instant and where results go. */
export function shardArgs(o: ShardJobOptions): string[] {
  const out = o.claim
    ? ['--out', `${RESULTS_MOUNT}/shard-$(JOB_COMPLETION_INDEX)`, '--force']
    : ['--out', `${RESULTS_MOUNT}/shard`, '--quiet', '--json'];
  return [
    'run',
    ...o.runArgs,
    '--shard',
    `$(JOB_COMPLETION_INDEX)/${o.shards}`,
    '--start-at',
    '$(GOODPUT_START_AT)',
    ...out,
  ];
}

/** A volume `name`: the claim when there is one, else an emptyDir. */
function volume(name: string, claim: string | undefined): Manifest {
  return claim ? { name, persistentVolumeClaim: { claimName: claim } } : { name, emptyDir: {} };
}

/**
 * A Job of goodput pods, never retried, each running one goodput container (`container`: its
 * args and env) with the results volume at {@link RESULTS_MOUNT}.
 */
function goodputJob(
  o: PodCommon & { claim?: string },
  name: string,
  l: Record<string, string>,
  counts: { completionMode?: 'Indexed'; completions: number; parallelism: number },
  podMetadata: Manifest,
  container: { args: string[]; env?: Manifest[] },
): Manifest {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(name, o.namespace, l),
    spec: {
      ...counts,
      // A retried shard would start after the shared instant: rerun the Job instead.
      backoffLimit: 0,
      template: {
        metadata: podMetadata,
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'goodput',
              image: o.image,
              command: o.command,
              ...container,
              volumeMounts: [{ name: 'results', mountPath: RESULTS_MOUNT }],
            },
          ],
          volumes: [volume('results', o.claim)],
        },
      },
    },
  };
}

/** The Indexed Job of the N shards. */
export function shardJob(o: ShardJobOptions): Manifest {
  const l = labels(o.name, 'shard');
  return goodputJob(
    o,
    o.name,
    l,
    { completionMode: 'Indexed', completions: o.shards, parallelism: o.shards },
    { labels: l, annotations: { [START_AT_ANNOTATION]: o.startAt } },
    {
      args: shardArgs(o),
      env: [
        fromAnnotation('JOB_COMPLETION_INDEX', INDEX_ANNOTATION),
        fromAnnotation('GOODPUT_START_AT', START_AT_ANNOTATION),
        ...keyEnv(o.secret),
      ],
    },
  );
}

/** The merge step: one pod running `goodput merge` over the shard folders on the claim. */
export function mergeJob(o: ShardJobOptions & { claim: string }): Manifest {
  const l = labels(o.name, 'merge');
  const dirs = Array.from({ length: o.shards }, (_, i) => `${RESULTS_MOUNT}/shard-${i}`);
  return goodputJob(
    o,
    `${o.name}-merge`,
    l,
    { completions: 1, parallelism: 1 },
    { labels: l },
    { args: ['merge', ...dirs, '-o', `${RESULTS_MOUNT}/merged`, '--force'] },
  );
}

export interface WatchManifestOptions extends PodCommon {
  /** `goodput watch` flags (never --metrics-port, --metrics-host, --store). */
  watchArgs: string[];
  /** Prometheus scrape interval of the ServiceMonitor, e.g. "30s". */
  scrapeInterval: string;
  /** A claim for the SQLite history (it survives restarts); absent: an emptyDir. */
  claim?: string;
}

/** Deployment + Service + ServiceMonitor of `goodput watch`. */
export function watchManifests(o: WatchManifestOptions): Manifest[] {
  const l = labels(o.name, 'watch');
  const selector = { 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': 'watch' };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(o.name, o.namespace, l),
    spec: {
      // One prober: two replicas would double the probes and the rollbacks.
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: l },
        spec: {
          containers: [
            {
              name: 'goodput',
              image: o.image,
              command: o.command,
              args: [
                'watch',
                ...o.watchArgs,
                '--store',
                '/data/goodput.db',
                '--metrics-port',
                String(WATCH_METRICS_PORT),
                '--metrics-host',
                '0.0.0.0',
              ],
              env: keyEnv(o.secret),
              ports: [{ name: 'metrics', containerPort: WATCH_METRICS_PORT, protocol: 'TCP' }],
              readinessProbe: { httpGet: { path: '/metrics', port: 'metrics' }, periodSeconds: 10 },
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
          volumes: [volume('data', o.claim)],
        },
      },
    },
  };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(o.name, o.namespace, l),
    spec: {
      selector,
      ports: [{ name: 'metrics', port: WATCH_METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }],
    },
  };
  const monitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: metadata(o.name, o.namespace, l),
    spec: {
      selector: { matchLabels: selector },
      endpoints: [{ port: 'metrics', path: '/metrics', interval: o.scrapeInterval }],
    },
  };
  return [deployment, service, monitor];
}
