/**
 * The emitted alerts and dashboard against a real Prometheus (Debian's) scraping a real watch at a
 * compressed cadence (--every 3s): goodput's engine on loopback, made bad by stalling every
 * request before its first token. Rules emitted for that cadence from an ADR whose rollback is
 * "TTFT p99 above 450 ms for 9s" (3 rounds): the alert goes pending at the first bad round,
 * fires only after the third, resolves after one good round; when the exporter goes away the
 * staleness alert fires after 3 intervals. Every dashboard expression returns data at every step
 * of a range query. Bounded: about 40 s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { serializeAdr } from '../src/adr/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import { LAST_VALID_ROUND_SERIES, rollbackFromAdr, runWatch, WatchExporter } from '../src/watch/index.js';
import { runCliInProcess } from './helpers/cli.js';
import {
  PROMETHEUS,
  type PromAlert,
  type RunningPrometheus,
  startPrometheus,
  until,
} from './helpers/prometheus.js';

const EVERY_MS = 3000;
const LIMIT_MS = 450;
const STALL_MS = 700;
/** Rounds of the ADR's duration: 9s / 3s. */
const N = 3;
/** The rules' for: (N − ½) × every. */
const FOR_MS = (N - 0.5) * EVERY_MS;

const dir = mkdtempSync(join(tmpdir(), 'goodput-alerts-'));
let sim: SimServer | undefined;
let exporter: WatchExporter | undefined;
let prom: RunningPrometheus | undefined;
/** The alert poller runs while this holds (cleared at the end, and in afterAll if the test failed). */
let polling = false;

afterAll(async () => {
  polling = false;
  prom?.stop();
  await exporter?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ADR = {
  schemaVersion: 1,
  id: 'ADR-20250102-001',
  title: 'Probe cadence',
  date: '2025-01-02',
  status: 'accepted',
  gate: { ttft_p99_ms: LIMIT_MS, attainment_min: 0.5, goodput_min: 0.5, error_rate_max: 0.9 },
  rollback: { metric: 'ttft_p99_ms', above: LIMIT_MS, for: '9s' },
};

interface RoundSeen {
  at: number;
  valid: boolean;
  ttftP99: number;
  phase: 'lead' | 'bad' | 'recover';
}

test('alert lifecycle and dashboard data against a real Prometheus at a 3 s cadence', async (ctx) => {
  if (!PROMETHEUS) return ctx.skip('prometheus is not installed (looked in /usr/bin and /usr/local/bin)');
  const adrPath = join(dir, 'ADR-20250102-001-cadence.md');
  writeFileSync(adrPath, serializeAdr(ADR as never, '# Probe cadence\n'));
  const cli = async (argv: string[]) => {
    const r = await runCliInProcess(argv, { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };
  await cli([
    'emit',
    'prometheus-rules',
    '--adr',
    adrPath,
    '--every',
    '3s',
    '--jitter',
    '0',
    '-o',
    'rules.yml',
  ]);
  const dashboard = JSON.parse(
    await cli(['emit', 'grafana-dashboard', '--adr', adrPath, '--every', '3s', '--jitter', '0']),
  ) as {
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    annotations: { list: Array<{ expr: string }> };
  };

  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 5 });
  // As `watch --adr` does: the ADR's latency limits are bucket boundaries.
  exporter = new WatchExporter({ thresholdsMs: { ttft: [LIMIT_MS] } });
  const port = await exporter.listen(0);
  prom = await startPrometheus(dir, {
    target: `127.0.0.1:${port}`,
    ruleFiles: [join(dir, 'rules.yml')],
    intervalMs: 100,
  });

  // Alert states as Prometheus reports them, polled every 100 ms while watch runs.
  const seen: Array<{ at: number; rollback?: PromAlert['state']; stale?: PromAlert['state'] }> = [];
  polling = true;
  const poller = (async () => {
    while (polling) {
      const alerts = await prom!.alerts().catch(() => []);
      const state = (name: string) => alerts.find((a) => a.labels.alertname === name)?.state;
      seen.push({ at: Date.now(), rollback: state('GoodputRollback'), stale: state('GoodputProbesStale') });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  const rounds: RoundSeen[] = [];
  let phase: RoundSeen['phase'] = 'lead';
  const stop = new AbortController();
  const bound = setTimeout(() => stop.abort(), 60_000);
  sim.setFailures({ serverError: 0.5 }); // some errors in the first round, so the error series exist
  await runWatch(
    {
      targets: [{ name: 'sim', url: sim.url, model: sim.model, slo: { ttftMs: LIMIT_MS } }],
      api: 'chat',
      sampling: { temperature: 0, maxTokens: 4, ignoreEos: true },
      promptTokens: 32,
      load: { mode: 'closed', concurrency: 4, requests: 4, warmup: 0, timeoutMs: 10_000, maxRetries: 0 },
      seed: 2,
      everyMs: EVERY_MS,
      jitter: 0,
      storePath: join(dir, 'goodput.db'),
      retainMs: 86_400_000,
      rule: rollbackFromAdr(ADR.rollback, ADR.id),
      cooldownMs: 3_600_000,
      serverMetrics: { enabled: true },
    },
    {
      stderr: { write: () => undefined },
      cwd: dir,
      env: {},
      exporter,
      signal: stop.signal,
      onRound: (_t, r) => {
        const ttftP99 = r.summary.latency.ttft.p99;
        rounds.push({ at: Date.now(), valid: r.stored.valid, ttftP99, phase });
        const valid = (p: RoundSeen['phase']) => rounds.filter((x) => x.phase === p && x.valid);
        if (phase === 'lead') {
          sim!.setFailures({});
          // Two valid good rounds Prometheus saw, then every request stalls before its first token.
          if (valid('lead').length >= 3) {
            sim!.setFailures({ stall: 1, stallMs: STALL_MS });
            phase = 'bad';
          }
        } else if (phase === 'bad' && valid('bad').length >= N) {
          sim!.setFailures({});
          phase = 'recover';
        } else if (phase === 'recover' && valid('recover').length >= 3) stop.abort();
      },
    },
  );
  clearTimeout(bound);
  expect(phase, 'watch reached the recovery').toBe('recover');
  const bad = rounds.filter((r) => r.phase === 'bad');
  const recover = rounds.filter((r) => r.phase === 'recover');
  for (const r of bad.filter((x) => x.valid)) expect(r.ttftP99).toBeGreaterThan(LIMIT_MS);
  for (const r of recover.filter((x) => x.valid)) expect(r.ttftP99).toBeLessThan(LIMIT_MS);

  // The alert: pending from the first bad round, firing only after the N-th, gone after one good round.
  const firstValidBad = bad.findIndex((r) => r.valid);
  const nth = bad[firstValidBad + N - 1]!;
  const firstGood = recover.find((r) => r.valid)!;
  const pendingAt = seen.find((s) => s.rollback === 'pending')?.at;
  const firingAt = seen.find((s) => s.rollback === 'firing')?.at;
  expect(pendingAt, 'pending seen').toBeDefined();
  expect(firingAt, 'firing seen').toBeDefined();
  expect(pendingAt!).toBeGreaterThanOrEqual(bad[firstValidBad]!.at);
  expect(pendingAt!).toBeLessThan(firingAt!);
  expect(firingAt! - pendingAt!).toBeGreaterThanOrEqual(FOR_MS - 300);
  // not one round earlier: the N-th bad round had ended
  expect(firingAt!).toBeGreaterThan(nth.at);
  // after the ADR's duration of bad rounds, before the good round was in (+ a scrape and an evaluation)
  expect(firingAt!).toBeLessThan(firstGood.at + 300);
  const resolvedAt = seen.find((s) => s.at > firingAt! && s.rollback === undefined)?.at;
  expect(resolvedAt, 'resolved seen').toBeDefined();
  expect(resolvedAt!).toBeGreaterThanOrEqual(firstGood.at);
  expect(resolvedAt!).toBeLessThan(firstGood.at + 1000);

  // Every dashboard expression has data at every step (1 s) since a full range after the first round.
  const end = await prom.time();
  const firstValid = rounds.find((r) => r.valid)!;
  const start = Math.ceil(firstValid.at / 1000 + (2 * EVERY_MS) / 1000 + 1);
  const steps = Math.floor(end - start) + 1;
  expect(steps).toBeGreaterThan(10);
  const gaps: string[] = [];
  for (const p of dashboard.panels) {
    for (const t of p.targets) {
      const expr = t.expr.replaceAll('$target', '.*');
      const series = await prom.queryRange(expr, start, end, 1);
      const at = new Set(series.flatMap((s) => s.values.map(([ts]) => Math.round(ts))));
      if (at.size < steps) gaps.push(`${p.title}: ${expr} has data at ${at.size}/${steps} steps`);
    }
  }
  expect(gaps).toEqual([]);
  // The rollback annotation marks the rollback watch triggered.
  const ann = dashboard.annotations.list[0]!.expr.replaceAll('$target', '.*');
  expect((await prom.queryRange(ann, start, end, 1)).length).toBe(1);

  // Probes stop (the exporter goes away): the staleness alert fires after 3 intervals, not before.
  // The intervals count from the last valid round Prometheus scraped: wait for that scrape, else an
  // exporter closed within one scrape of its last round leaves the round before as the last one seen.
  const lastValid = Math.max(...rounds.filter((r) => r.valid).map((r) => r.at));
  const lastValidScraped = await until(
    'the last valid round scraped',
    async () => {
      const [s] = await prom!.query(LAST_VALID_ROUND_SERIES);
      const endedAt = s ? Number(s.value[1]) * 1000 : 0;
      // its end is at most a moment before the round was reported; the round before ended 3 s earlier
      return endedAt > lastValid - EVERY_MS / 2 ? endedAt : undefined;
    },
    5000,
  );
  expect(lastValidScraped).toBeLessThanOrEqual(lastValid);
  await exporter.close();
  exporter = undefined;
  const staleAt = await until(
    'GoodputProbesStale firing',
    async () => seen.find((s) => s.at > lastValid && s.stale === 'firing')?.at,
    3 * EVERY_MS + 5000,
  );
  polling = false;
  await poller;
  // While valid rounds came every 3 s it never fired (before the first one, nothing was known).
  expect(seen.filter((s) => s.at > firstValid.at + 300 && s.at < lastValid && s.stale === 'firing')).toEqual(
    [],
  );
  expect(staleAt).toBeGreaterThan(lastValidScraped + 3 * EVERY_MS - 300);
}, 90_000);
