/**
 * CSV beside JSON for the commands that report a table of figures: `compare --format csv`
 * (one row per candidate and metric) and `history --format csv` (one row per target and
 * window), each row the same figures as the command's JSON; `--json` stays the same as
 * `--format json`, and contradicting them is a usage error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPARE_CSV_COLUMNS } from '../src/compare/index.js';
import { HISTORY_CSV_COLUMNS } from '../src/watch/history.js';
import { runCliInProcess } from './helpers/cli.js';
import { csvObjects, parseCsv } from './helpers/csv.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-formats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (argv: string[]) => runCliInProcess(argv, { cwd: dir });

/** A CSV field as the JSON value it encodes: empty is missing. */
const num = (field: string | undefined) => (field === undefined || field === '' ? undefined : Number(field));

describe('compare --format csv', () => {
  it('one row per candidate and metric, the same figures as --json', async () => {
    for (const [name, seed] of [
      ['a', '1'],
      ['b', '2'],
    ]) {
      const r = await cli([
        'run',
        '--time',
        'virtual',
        '--requests',
        '40',
        '--seed',
        seed!,
        '--out',
        name!,
        '--quiet',
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    const csv = await cli(['compare', join(dir, 'a'), join(dir, 'b'), '--format', 'csv']);
    const json = await cli(['compare', join(dir, 'a'), join(dir, 'b'), '--json']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(parseCsv(csv.stdout)[0]).toEqual(COMPARE_CSV_COLUMNS);
    const rows = csvObjects(csv.stdout);
    const report = JSON.parse(json.stdout) as {
      baseline: { name: string };
      comparisons: Array<{
        candidate: { name: string };
        deltas: Array<{
          key: string;
          baseline?: number;
          candidate?: number;
          change?: number;
          verdict: string;
        }>;
      }>;
    };
    const deltas = report.comparisons[0]!.deltas;
    expect(rows).toHaveLength(deltas.length);
    for (const [i, d] of deltas.entries()) {
      const row = rows[i]!;
      expect(row.metric).toBe(d.key);
      expect(row.baseline).toBe(report.baseline.name);
      expect(row.candidate).toBe(report.comparisons[0]!.candidate.name);
      expect(num(row.baseline_value)).toBe(d.baseline);
      expect(num(row.candidate_value)).toBe(d.candidate);
      expect(num(row.change)).toBe(d.change);
      expect(row.verdict).toBe(d.verdict);
    }
    expect(rows.some((r) => r.baseline_value !== '')).toBe(true);
    const clash = await cli(['compare', join(dir, 'a'), join(dir, 'b'), '--json', '--format', 'csv']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('--json contradicts --format csv');
    const markdown = await cli(['compare', join(dir, 'a'), join(dir, 'b'), '--format', 'markdown']);
    expect(markdown.stdout).toBe(
      (await cli(['compare', join(dir, 'a'), join(dir, 'b'), '--markdown'])).stdout,
    );
  }, 60_000);
});

describe('history --format csv', () => {
  it('one row per target and window, the same figures as --json', async () => {
    const w = await cli([
      'watch',
      ...['--every', '100ms', '--rounds', '2', '--requests', '2', '--max-tokens', '4', '--quiet'],
    ]);
    expect(w.code, w.stderr).toBe(0);
    const csv = await cli(['history', '--format', 'csv', '--window', '1h']);
    const json = await cli(['history', '--json', '--window', '1h']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(parseCsv(csv.stdout)[0]).toEqual(HISTORY_CSV_COLUMNS);
    const rows = csvObjects(csv.stdout);
    const doc = JSON.parse(json.stdout) as {
      windows: Array<{
        target: string;
        start: number;
        rounds: number;
        attempted: number;
        attainment: number | null;
        latency: Record<string, { count: number; p50: number; p99: number }>;
      }>;
    };
    expect(rows).toHaveLength(doc.windows.length);
    for (const [i, win] of doc.windows.entries()) {
      const row = rows[i]!;
      expect(row.target).toBe(win.target);
      expect(Date.parse(row.window_start!)).toBe(win.start);
      expect(num(row.rounds)).toBe(win.rounds);
      expect(num(row.attempted)).toBe(win.attempted);
      expect(num(row.attainment) ?? null).toBe(win.attainment);
      expect(num(row.ttft_count)).toBe(win.latency.ttft!.count);
      expect(num(row.ttft_p99_ms)).toBe(win.latency.ttft!.count === 0 ? undefined : win.latency.ttft!.p99);
    }
    expect(rows.reduce((a, r) => a + Number(r.rounds), 0)).toBe(2);
  }, 60_000);
});
