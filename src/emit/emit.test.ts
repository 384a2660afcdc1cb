/**
 * emit prometheus-rules: the rules pass `promtool check rules`; the generated test passes
 * `promtool test rules` at the cadences watch runs (1m, 5m, 5m with ±10 % jitter) and fails
 * when the rules' window is shortened to a minute or the limits are raised (so it can fail);
 * every gate threshold has an alert or a stated reason; the windows follow --every.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCliInProcess } from '../../test/helpers/cli.js';
import { serializeAdr } from '../adr/index.js';
import { alertForMs, promDuration, roundRangeMs, roundsFor } from './cadence.js';

const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const dir = mkdtempSync(join(tmpdir(), 'goodput-emit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await runCliInProcess(argv, { cwd: dir });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

function writeAdr(name: string, extra: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    serializeAdr(
      {
        schemaVersion: 1,
        id: 'ADR-20250102-001',
        title: 'Chunked prefill',
        date: '2025-01-02',
        status: 'accepted',
        ...extra,
      } as never,
      '# Chunked prefill\n',
    ),
  );
  return path;
}

function promtool(args: string[]): { ok: boolean; text: string } {
  const r = spawnSync(PROMTOOL!, args, { cwd: dir, encoding: 'utf8' });
  return { ok: r.status === 0, text: r.stdout + r.stderr };
}

describe('cadence', () => {
  test.each([
    // every, ADR duration → rounds, for:
    ['5m', '5m', 1, '2m30s'],
    ['1m', '5m', 5, '4m30s'],
    ['5m', '15m', 3, '12m30s'],
    ['5m', '12m', 3, '12m30s'],
    ['2s', '6s', 3, '5s'],
    ['10m', '5m', 1, '5m'],
  ])('--every %s, for %s → %i rounds, for: %s', (every, adrFor, rounds, forText) => {
    const c = { everyMs: parseMs(every), jitter: 0.1 };
    expect(roundsFor(parseMs(adrFor), c)).toBe(rounds);
    expect(promDuration(alertForMs(rounds, c))).toBe(forText);
  });

  test('dashboard ranges hold a round wherever they fall', () => {
    for (const everyMs of [2000, 60_000, 300_000]) {
      for (const jitter of [0, 0.1, 0.2]) {
        // the largest gap between two round ends: every + 2 × jitter × every
        expect(roundRangeMs({ everyMs, jitter })).toBeGreaterThan(everyMs * (1 + 2 * jitter));
      }
    }
  });
});

function parseMs(d: string): number {
  const n = Number.parseFloat(d);
  return d.endsWith('ms') ? n : d.endsWith('s') ? n * 1000 : d.endsWith('m') ? n * 60_000 : n * 3_600_000;
}

describe('goodput emit prometheus-rules', () => {
  const adrFields = {
    gate: {
      ttft_p99_ms: 350,
      tpot_p99_ms: 35,
      attainment_min: 0.95,
      error_rate_max: 0.01,
      goodput_min: 0.9,
      // measured per round when watch scrapes the GPUs (--gpu-metrics-url)
      gpu_util_min: 0.2,
      thresholds: ['p50(ttft)<120'],
    },
    rollback: { metric: 'ttft_p99_ms', above: 500, for: '15m' },
  };

  test.for([
    ['1m', '0'],
    ['5m', '0'],
    ['5m', '0.1'],
  ] as const)(
    '--every %s --jitter %s: promtool test passes, and fails with the window shortened to 1m',
    { timeout: 60_000 },
    async ([every, jitter], ctx) => {
      if (!PROMTOOL) return ctx.skip('promtool is not installed (looked in /usr/bin and /usr/local/bin)');
      const adr = writeAdr(`c-${every}-${jitter}.md`, adrFields);
      const out = `rules-${every}-${jitter}.yml`;
      const r = await cli([
        'emit',
        'prometheus-rules',
        '--adr',
        adr,
        '--every',
        every,
        '--jitter',
        jitter,
        '--gate-for',
        '10m',
        '-o',
        out,
        '--tests',
      ]);
      expect(r.code, r.err).toBe(0);
      const rules = readFileSync(join(dir, out), 'utf8');
      const testFile = out.replace('.yml', '.test.yml');
      expect(promtool(['check', 'rules', out]).ok).toBe(true);
      const pass = promtool(['test', 'rules', testFile]);
      expect(pass.text).toContain('SUCCESS');
      expect(pass.ok).toBe(true);
      // Every gate threshold and the rollback have an alert, plus the staleness alert.
      for (const name of [
        'GoodputTtftP99AboveGate',
        'GoodputTpotP99AboveGate',
        'GoodputAttainmentBelowGate',
        'GoodputErrorRateAboveGate',
        'GoodputGoodputRatioBelowGate',
        'GoodputTtftP50AboveGate',
        'GoodputGpuUtilBelowGate',
        'GoodputRollback',
        'GoodputProbesStale',
        'GoodputProbesAbsent',
      ])
        expect(rules).toContain(`alert: ${name}\n`);
      // The window the issue found: for: 1m (or any window shorter than the ADR's rounds) fails.
      const fors = [...rules.matchAll(/for: (\S+)/g)].map((m) => m[1]);
      expect(fors.length).toBeGreaterThan(0);
      expect(fors).not.toContain('1m');
      writeFileSync(join(dir, out), rules.replace(/for: \S+/g, 'for: 1m'));
      const short = promtool(['test', 'rules', testFile]);
      expect(short.ok, short.text).toBe(false);
      expect(short.text).toContain('FAILED');
      if (jitter === '0') return;
      // Limits raised tenfold: the alerts the test expects do not fire.
      writeFileSync(join(dir, out), rules.replace('> 500', '> 5000').replace('> 350', '> 3500'));
      expect(promtool(['test', 'rules', testFile]).ok).toBe(false);
      // A staleness rule that waits far longer fails too.
      const stale = rules.replace(/(last_over_time\([^)]*\)\)) > \d+/, '$1 > 99999');
      expect(stale).not.toBe(rules);
      writeFileSync(join(dir, out), stale);
      expect(promtool(['test', 'rules', testFile]).ok).toBe(false);
      // The absent alert without its start-up grace fires the moment Prometheus starts: fails.
      const eager = rules.replace(/(alert: GoodputProbesAbsent\n\s+expr: .*\n)\s+for: \S+\n/, '$1');
      expect(eager).not.toBe(rules);
      writeFileSync(join(dir, out), eager);
      expect(promtool(['test', 'rules', testFile]).ok).toBe(false);
    },
  );

  test('without -o the rules go to stdout; thresholds watch cannot judge are named; nothing left is refused', async () => {
    const adr = writeAdr('b.md', {
      gate: { kv_usage_max_max: 0.9, completed_min: 640 },
      rollback: { metric: 'attainment', below: 0.9, for: '10m' },
    });
    const r = await cli(['emit', 'prometheus-rules', '--adr', adr]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('goodput_round_metric{metric="attainment"}) < 0.9');
    // 10m at the default 5m cadence: 2 rounds, for: 7m30s
    expect(r.out).toContain('for: 7m30s');
    expect(r.err).toContain('note: no alert for gate kv_usage_max<=0.9: watch');
    expect(r.err).toContain('note: no alert for gate completed>=640: completed is a count');
    expect(r.out).toContain('# No alert for gate kv_usage_max<=0.9');
    const only = writeAdr('c.md', { gate: { kv_usage_max_max: 0.9 } });
    const e = await cli(['emit', 'prometheus-rules', '--adr', only]);
    expect(e.code).toBe(5);
    expect(e.err).toContain('no gate threshold watch can judge and no rollback rule');
    expect(e.err).toContain('server-side');
    const tests = await cli(['emit', 'prometheus-rules', '--adr', adr, '--tests']);
    expect(tests.code).toBe(2);
    expect(tests.err).toContain('--tests needs -o FILE');
    const jitter = await cli(['emit', 'prometheus-rules', '--adr', adr, '--jitter', '0.4']);
    expect(jitter.code).toBe(2);
    expect(jitter.err).toContain('at most 0.2');
  });

  test('--json describes the alerts, with the YAML without -o and the files written with it', async () => {
    const adr = writeAdr('d.md', {
      gate: { ttft_p99_ms: 350 },
      rollback: { metric: 'attainment', below: 0.9, for: '10m' },
    });
    const plain = await cli(['emit', 'prometheus-rules', '--adr', adr, '--every', '1m']);
    const r = await cli(['emit', 'prometheus-rules', '--adr', adr, '--every', '1m', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({
      schemaVersion: 1,
      kind: 'goodput.emit',
      artefact: 'prometheus-rules',
      adrId: 'ADR-20250102-001',
      every: '1m',
      jitter: 0.1,
      skipped: [],
      files: [],
      rules: plain.out,
    });
    expect(doc.alerts).toContainEqual(
      expect.objectContaining({
        metric: 'ttft_p99',
        op: '>',
        limit: 350,
        adrFor: '5m',
        rounds: 5,
        for: '4m30s',
      }),
    );
    expect(doc.alerts).toContainEqual(
      expect.objectContaining({
        alert: 'GoodputRollback',
        metric: 'attainment',
        op: '<',
        limit: 0.9,
        rounds: 10,
        for: '9m30s',
      }),
    );
    expect(doc.alerts).toContainEqual(
      expect.objectContaining({ alert: 'GoodputProbesStale', staleAfter: '3m' }),
    );
    const written = await cli([
      'emit',
      'prometheus-rules',
      '--adr',
      adr,
      '--every',
      '1m',
      '--json',
      '-o',
      'd.yml',
      '--tests',
    ]);
    const wdoc = JSON.parse(written.out);
    expect(wdoc.files).toEqual([join(dir, 'd.yml'), join(dir, 'd.test.yml')]);
    expect(wdoc.rules).toBeUndefined();
    expect(readFileSync(join(dir, 'd.yml'), 'utf8')).toBe(plain.out);
    if (PROMTOOL) execFileSync(PROMTOOL, ['test', 'rules', 'd.test.yml'], { cwd: dir });
  });
});
