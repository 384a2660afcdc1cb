/**
 * emit k8s-job / k8s-watch: the manifests pass the Kubernetes schemas (kubernetes-models,
 * `new Job(doc).validate()`), the key only ever comes from a Secret, the passed-through flags
 * are checked against run's / watch's own option table, and the pods' command lines run as
 * emitted: each with JOB_COMPLETION_INDEX set and `$(VAR)` expanded as the kubelet does, the
 * volume a local folder, against a loopback engine; then the merge Job's command line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { Service } from 'kubernetes-models/v1';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ensureBuilt, runBin, runCliInProcess } from '../../test/helpers/cli.js';
import { readSummary } from '../results/index.js';
import { type SimServer, startSim } from '../sim/index.js';

const CANARY = 'test-canary-k8s-5f1e9a7c3b';
const dir = mkdtempSync(join(tmpdir(), 'goodput-k8s-'));
let sim: SimServer;
beforeAll(async () => {
  ensureBuilt();
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 5, slowdown: 0.2, apiKey: CANARY });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function emit(argv: string[]) {
  // The key is in the environment of emit: it must not reach the manifest.
  const r = await runCliInProcess(['emit', ...argv], { cwd: dir, env: { GOODPUT_API_KEY: CANARY } });
  expect(r.stdout + r.stderr).not.toContain(CANARY);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

// biome-ignore lint/suspicious/noExplicitAny: manifests are read back as plain YAML data
type Doc = any;
const docs = (yaml: string): Doc[] => parseAllDocuments(yaml).map((d) => d.toJS());

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
}

/**
 * What the kubelet hands the container: env resolved (downward API from the pod's
 * annotations, Secrets from `secrets`) and `$(VAR)` in args expanded (`$$` → `$`; an
 * undefined variable stays as written).
 */
function podArgs(
  container: { args: string[]; env?: EnvVar[] },
  annotations: Record<string, string>,
  secrets: Record<string, string>,
): { args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  for (const v of container.env ?? []) {
    if (v.value !== undefined) env[v.name] = v.value;
    const path = v.valueFrom?.fieldRef?.fieldPath;
    const annotation = path ? /^metadata\.annotations\['(.+)'\]$/.exec(path)?.[1] : undefined;
    if (annotation !== undefined) env[v.name] = annotations[annotation]!;
    const secret = v.valueFrom?.secretKeyRef;
    if (secret) env[v.name] = secrets[`${secret.name}/${secret.key}`]!;
  }
  const expand = (s: string) =>
    s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name?: string) =>
      m === '$$' ? '$' : name !== undefined && name in env ? env[name]! : m,
    );
  return { args: container.args.map(expand), env };
}

describe('goodput emit k8s-job', () => {
  test('the Indexed Job, its merge Job and the stdout variant pass the Kubernetes schema', async () => {
    const flags = [
      '--url',
      'http://vllm.default.svc:8000',
      '--rate',
      '200',
      '--requests',
      '20000',
      '--seed',
      '7',
    ];
    const r = await emit([
      'k8s-job',
      '--shards',
      '10',
      '--image',
      'ghcr.io/acme/goodput:0.1.0',
      '--secret',
      'llm-key',
      '--volume',
      'results',
      '--start-at',
      '2026-03-14T09:15:00Z',
      '--',
      ...flags,
    ]);
    expect(r.code, r.err).toBe(0);
    const [job, ...rest] = docs(r.out);
    expect(rest).toHaveLength(0);
    expect(() => new Job(job).validate()).not.toThrow();
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 10, parallelism: 10 });
    expect(job.spec.template.metadata.annotations['goodput/start-at']).toBe('2026-03-14T09:15:00.000Z');
    const c = job.spec.template.spec.containers[0];
    expect(c.args).toEqual([
      'run',
      ...flags,
      '--shard',
      '$(JOB_COMPLETION_INDEX)/10',
      '--start-at',
      '$(GOODPUT_START_AT)',
      '--out',
      '/results/shard-$(JOB_COMPLETION_INDEX)',
      '--force',
    ]);
    expect(c.env).toContainEqual({
      name: 'GOODPUT_API_KEY',
      valueFrom: { secretKeyRef: { name: 'llm-key', key: 'api-key' } },
    });
    expect(job.spec.template.spec.volumes).toEqual([
      { name: 'results', persistentVolumeClaim: { claimName: 'results' } },
    ]);
    expect(r.err).toContain('kubectl wait --for=condition=complete job/goodput-shards');

    const m = await emit([
      'k8s-job',
      '--shards',
      '10',
      '--image',
      'img',
      '--volume',
      'results',
      '--merge',
      '--',
      ...flags,
    ]);
    const [merge] = docs(m.out);
    expect(() => new Job(merge).validate()).not.toThrow();
    expect(merge.metadata.name).toBe('goodput-shards-merge');
    expect(merge.spec.template.spec.containers[0].args.slice(0, 2)).toEqual(['merge', '/results/shard-0']);

    const s = await emit([
      'k8s-job',
      '--shards',
      '4',
      '--image',
      'img',
      '--namespace',
      'bench',
      '--',
      ...flags,
    ]);
    const [stdoutJob] = docs(s.out);
    expect(() => new Job(stdoutJob).validate()).not.toThrow();
    expect(stdoutJob.metadata.namespace).toBe('bench');
    expect(stdoutJob.spec.template.spec.containers[0].args.slice(-2)).toEqual(['--quiet', '--json']);
    expect(s.err).toContain('batch.kubernetes.io/job-completion-index=$i > shard-$i.json');

    // The validation is not vacuous: a Job with a string completions is refused.
    expect(() => new Job({ ...job, spec: { ...job.spec, completions: '10' } }).validate()).toThrow(
      /completions/,
    );
  });

  test.each([
    [['--', '--url', 'http://x', '--concurency', '4'], /unknown option --concurency/],
    [['--', '--url', 'http://x', '--shard', '0/2'], /--shard after -- is set by the manifest/],
    [['--', '--rate', '5'], /need --url/],
    [['--', '--url', 'http://x', '--concurrency', '2'], /--concurrency 2 cannot be split over 3 pods/],
    [['--merge', '--', '--url', 'http://x'], /--merge needs --volume/],
    [['--start-at', '2026-03-14T09:15:00', '--', '--url', 'http://x'], /no time zone/],
  ])('%j is refused with the fix', async (argv, message) => {
    const r = await emit(['k8s-job', '--shards', '3', '--image', 'img', ...argv]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toContain('hint:');
  });

  test("each pod's command line, run locally, then the merge Job's: one merged run", async () => {
    const results = join(dir, 'volume');
    const flags = [
      '--url',
      sim.url,
      '--concurrency',
      '3',
      '--requests',
      '18',
      '--prompt-tokens',
      '64',
      '--max-tokens',
      '8',
      '--ignore-eos',
      '--seed',
      '3',
    ];
    const at = new Date(Date.now() + 4000).toISOString();
    const common = [
      '--shards',
      '3',
      '--image',
      'img',
      '--secret',
      'llm-key',
      '--volume',
      'results',
      '--start-at',
      at,
      '--',
      ...flags,
    ];
    const job = docs((await emit(['k8s-job', ...common])).out)[0];
    const merge = docs((await emit(['k8s-job', '--merge', ...common])).out)[0];
    const secrets = { 'llm-key/api-key': CANARY };
    // The volume claim, mounted at /results in every pod, is a local folder here.
    const mount = (args: string[]) => args.map((a) => a.replace(/^\/results/, results));
    const pods = await Promise.all(
      [0, 1, 2].map((i) => {
        const annotations = {
          ...job.spec.template.metadata.annotations,
          'batch.kubernetes.io/job-completion-index': String(i),
        };
        const { args, env } = podArgs(job.spec.template.spec.containers[0], annotations, secrets);
        expect(args).toContain(`${i}/3`);
        expect(env.JOB_COMPLETION_INDEX).toBe(String(i));
        return runBin(mount(args), { cwd: dir, env, timeoutMs: 120_000 });
      }),
    );
    for (const p of pods) {
      expect(p.code, p.stderr).toBe(0);
      expect(p.stdout + p.stderr).not.toContain(CANARY);
    }
    const { args } = podArgs(merge.spec.template.spec.containers[0], {}, secrets);
    const merged = await runBin(mount(args), { cwd: dir, timeoutMs: 60_000 });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('start skew across shards');
    const summary = await readSummary(join(results, 'merged'));
    expect(summary.counts.attempted).toBe(18);
    expect(summary.completed).toBe(18);
    expect(summary.total_output_tokens).toBe(18 * 8);
    expect(summary.shards?.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(summary.shards?.every((s) => s.startSkewMs !== undefined)).toBe(true);
  }, 300_000);

  test('the stdout variant: each pod prints its summary, goodput merge reads the saved logs', async () => {
    const flags = [
      '--url',
      sim.url,
      '--concurrency',
      '2',
      '--requests',
      '8',
      '--prompt-tokens',
      '64',
      '--max-tokens',
      '8',
      '--ignore-eos',
      '--seed',
      '4',
    ];
    const r = await emit([
      'k8s-job',
      '--shards',
      '2',
      '--image',
      'img',
      '--secret',
      'k',
      '--start-at',
      '+3s',
      '--',
      ...flags,
    ]);
    const job = docs(r.out)[0];
    const logs = await Promise.all(
      [0, 1].map(async (i) => {
        const annotations = {
          ...job.spec.template.metadata.annotations,
          'batch.kubernetes.io/job-completion-index': String(i),
        };
        const { args, env } = podArgs(job.spec.template.spec.containers[0], annotations, {
          'k/api-key': CANARY,
        });
        // The emptyDir at /results: a folder of this pod's own.
        const own = join(dir, `pod-${i}`);
        const p = await runBin(
          args.map((a) => a.replace(/^\/results/, own)),
          { cwd: dir, env, timeoutMs: 120_000 },
        );
        expect(p.code, p.stderr).toBe(0);
        const file = join(dir, `shard-${i}.json`);
        writeFileSync(file, p.stdout + p.stderr); // kubectl logs: both streams
        return file;
      }),
    );
    expect(readFileSync(logs[0]!, 'utf8')).not.toContain(CANARY);
    const m = await runCliInProcess(['merge', ...logs, '-o', 'from-logs'], { cwd: dir });
    expect(m.code, m.stderr).toBe(0);
    expect(m.stderr).toContain('2 summary snapshot(s) without records');
    const summary = await readSummary(join(dir, 'from-logs'));
    expect(summary.counts.attempted).toBe(8);
  }, 300_000);
});

describe('goodput emit k8s-watch', () => {
  test('Deployment + Service + ServiceMonitor pass their schemas and fit together', async () => {
    const r = await emit([
      'k8s-watch',
      '--image',
      'img',
      '--secret',
      'llm-key',
      '--scrape-interval',
      '15s',
      '--',
      '--url',
      'http://vllm:8000',
      '--model',
      'm',
      '--every',
      '5m',
      '--slo',
      'ttft=500',
    ]);
    expect(r.code, r.err).toBe(0);
    const [deployment, service, monitor] = docs(r.out);
    expect(() => new Deployment(deployment).validate()).not.toThrow();
    expect(() => new Service(service).validate()).not.toThrow();
    expect(() => new ServiceMonitor(monitor).validate()).not.toThrow();
    const c = deployment.spec.template.spec.containers[0];
    expect(c.args).toEqual(
      expect.arrayContaining(['watch', '--metrics-host', '0.0.0.0', '--metrics-port', '9464']),
    );
    expect(c.env).toEqual([
      { name: 'GOODPUT_API_KEY', valueFrom: { secretKeyRef: { name: 'llm-key', key: 'api-key' } } },
    ]);
    // The Service selects the pod; the ServiceMonitor selects the Service and scrapes its named port.
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(service.spec.selector)) expect(podLabels[k]).toBe(v);
    for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels))
      expect(service.metadata.labels[k]).toBe(v);
    expect(monitor.spec.endpoints[0]).toMatchObject({ port: service.spec.ports[0].name, interval: '15s' });
    expect(() =>
      new ServiceMonitor({ ...monitor, spec: { ...monitor.spec, endpoints: 'x' } }).validate(),
    ).toThrow();
  });

  test('watch flags are checked, the ones the manifest sets refused', async () => {
    const typo = await emit(['k8s-watch', '--image', 'img', '--', '--url', 'http://x', '--evry', '5m']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('unknown option --evry');
    const port = await emit([
      'k8s-watch',
      '--image',
      'img',
      '--',
      '--url',
      'http://x',
      '--metrics-port',
      '1',
    ]);
    expect(port.err).toContain('--metrics-port after -- is set by the manifest');
  });
});
