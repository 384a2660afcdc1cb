/**
 * emit prometheus-rules: the rules pass `promtool check rules`, the generated test passes
 * `promtool test rules`, and the test really exercises the thresholds (a rules file whose
 * limits were raised fails it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCliInProcess } from '../../test/helpers/cli.js';
import { serializeAdr } from '../adr/index.js';

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

describe('goodput emit prometheus-rules', () => {
  test('gate + rollback → rules that promtool checks and a test that promtool passes', async () => {
    const adr = writeAdr('a.md', {
      gate: { ttft_p99_ms: 350, tpot_p99_ms: 35, attainment_min: 0.95, error_rate_max: 0.01 },
      rollback: { metric: 'ttft_p99_ms', above: 500, for: '5m' },
    });
    const r = await cli(['emit', 'prometheus-rules', '--adr', adr, '-o', 'rules.yml']);
    expect(r.code).toBe(0);
    const rules = readFileSync(join(dir, 'rules.yml'), 'utf8');
    expect(rules).toContain('alert: GoodputRollback');
    expect(rules).toContain('max by (target, model) (goodput_round_metric{metric="ttft_p99"}) > 500');
    expect(rules).toContain('max by (target, model) (goodput_round_metric{metric="attainment"}) < 0.95');
    expect(rules).toContain('for: 5m');
    execFileSync('promtool', ['check', 'rules', 'rules.yml'], { cwd: dir });
    const ok = spawnSync('promtool', ['test', 'rules', 'rules.test.yml'], { cwd: dir, encoding: 'utf8' });
    expect(ok.stdout + ok.stderr).toContain('SUCCESS');
    expect(ok.status).toBe(0);

    // The test is not vacuous: limits raised tenfold → the expected alerts do not fire → it fails.
    const raised = rules.replace('> 500', '> 5000').replace('> 350', '> 3500');
    writeFileSync(join(dir, 'rules.yml'), raised);
    const bad = spawnSync('promtool', ['test', 'rules', 'rules.test.yml'], { cwd: dir, encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
  }, 20_000);

  test('without -o the rules go to stdout; an ADR with nothing executable is refused', async () => {
    const adr = writeAdr('b.md', { rollback: { metric: 'attainment', below: 0.9, for: '10m' } });
    const r = await cli(['emit', 'prometheus-rules', '--adr', adr]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('goodput_round_metric{metric="attainment"}) < 0.9');
    const empty = writeAdr('c.md', {});
    const e = await cli(['emit', 'prometheus-rules', '--adr', empty]);
    expect(e.code).toBe(5);
    expect(e.err).toContain('no gate threshold and no rollback rule');
  });

  test('--json describes the alerts, with the YAML without -o and the files written with it', async () => {
    const adr = writeAdr('d.md', {
      gate: { ttft_p99_ms: 350 },
      rollback: { metric: 'attainment', below: 0.9, for: '10m' },
    });
    const plain = await cli(['emit', 'prometheus-rules', '--adr', adr]);
    const r = await cli(['emit', 'prometheus-rules', '--adr', adr, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({
      schemaVersion: 1,
      kind: 'goodput.emit',
      artefact: 'prometheus-rules',
      adrId: 'ADR-20250102-001',
      files: [],
      rules: plain.out,
    });
    expect(doc.alerts).toContainEqual(
      expect.objectContaining({ metric: 'ttft_p99', op: '>', limit: 350, for: '5m' }),
    );
    expect(doc.alerts).toContainEqual(
      expect.objectContaining({
        alert: 'GoodputRollback',
        metric: 'attainment',
        op: '<',
        limit: 0.9,
        for: '10m',
      }),
    );
    const written = await cli(['emit', 'prometheus-rules', '--adr', adr, '--json', '-o', 'd.yml']);
    const wdoc = JSON.parse(written.out);
    expect(wdoc.files).toEqual([join(dir, 'd.yml'), join(dir, 'd.test.yml')]);
    expect(wdoc.rules).toBeUndefined();
    expect(readFileSync(join(dir, 'd.yml'), 'utf8')).toBe(plain.out);
  });
});
