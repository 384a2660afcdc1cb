/**
 * `goodput report --format csv | json` and `--format csv --records`: a real run against a
 * loopback server whose errors carry commas, quotes and line breaks and echo the API key;
 * the CSV parses back (strict RFC 4180) to exactly the records and the summary's figures,
 * and no output holds the key.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricById } from '../src/metrics/index.js';
import { readRecords, readSummary } from '../src/results/index.js';
import type { RequestRecord } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';
import { csvObjects, parseCsv } from './helpers/csv.js';
import { leakedFragment } from './helpers/hostile-server.js';
import { chatChunk, json, type Loopback, startLoopback, writeEvents } from './helpers/loopback.js';

const KEY = 'test-csv-canary-91c2e7d05a4b3f68';
const dir = mkdtempSync(join(tmpdir(), 'goodput-report-data-'));
let server: Loopback;
const out = join(dir, 'run');

beforeAll(async () => {
  let completions = 0;
  server = await startLoopback(async (req, res, body) => {
    if (req.url?.endsWith('/v1/models')) return json(res, 200, { object: 'list', data: [{ id: 'm' }] });
    completions++;
    if (completions % 3 === 0) {
      return json(res, 400, {
        error: { message: `bad, "quoted" input\nsecond line; auth was ${req.headers.authorization}` },
      });
    }
    const n = (body as { max_tokens: number }).max_tokens;
    await writeEvents(res, [
      ...Array.from({ length: n }, () => chatChunk({ content: 'a' })),
      chatChunk({}, 'length', { prompt_tokens: 16, completion_tokens: n }),
      '[DONE]',
    ]);
  });
  const r = await runCliInProcess(
    [
      'run',
      '--url',
      server.url,
      '--requests',
      '6',
      '-c',
      '1',
      '--max-tokens',
      '3',
      '--max-retries',
      '0',
    ].concat(['--slo', 'ttft=10000', '--out', out, '--quiet']),
    { cwd: dir, env: { OPENAI_API_KEY: KEY } },
  );
  expect(r.stdout + r.stderr).not.toContain(KEY);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function records(): Promise<RequestRecord[]> {
  const all: RequestRecord[] = [];
  for await (const r of readRecords(out)) all.push(r);
  return all;
}

describe('report --format csv --records', () => {
  it('writes one row per record that parses back to the record, error text intact and redacted', async () => {
    const r = await runCliInProcess(['report', out, '--format', 'csv', '--records'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(leakedFragment(r.stdout + r.stderr, KEY)).toBeUndefined();
    const rows = csvObjects(r.stdout);
    const recs = await records();
    expect(rows).toHaveLength(recs.length);
    expect(rows.filter((x) => x.outcome === 'error')).toHaveLength(2);
    for (const [i, rec] of recs.entries()) {
      const row = rows[i]!;
      expect(row.run).toBe('run');
      expect(row.id).toBe(rec.id);
      expect(row.outcome).toBe(rec.outcome);
      expect(row.output_tokens).toBe(String(rec.outputTokens));
      expect(row.error_message).toBe(rec.error?.message ?? '');
      expect(row.good).toBe(String(rec.outcome === 'success'));
      if (rec.firstTokenMs !== undefined)
        expect(Number(row.ttft_ms)).toBeCloseTo(rec.firstTokenMs - rec.sentMs, 9);
      else expect(row.ttft_ms).toBe('');
    }
    const failed = rows.find((x) => x.outcome === 'error')!;
    // The client keeps a message on one line; the CSV keeps its commas and quotes.
    expect(failed.error_message).toContain('bad, "quoted" input second line; auth was Bearer [REDACTED]');
    expect(r.stdout).toContain('"HTTP 400: bad, ""quoted"" input');
    expect(failed.http_status).toBe('400');
    expect(failed.error_message).not.toContain('canary');
  });

  it('writes to -o FILE, and refuses --records without csv (2)', async () => {
    const file = join(dir, 'records.csv');
    const r = await runCliInProcess(['report', out, '--format', 'csv', '--records', '-o', file], {
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(parseCsv(readFileSync(file, 'utf8'))).toHaveLength(7);
    const bad = await runCliInProcess(['report', out, '--records'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--format csv');
  });
});

describe('report --format csv / --json of summaries', () => {
  it('gives one row per run holding the catalogue figures of its summary', async () => {
    const r = await runCliInProcess(['report', out, out, '--format', 'csv'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const rows = csvObjects(r.stdout);
    const summary = await readSummary(out);
    expect(rows.map((x) => x.run)).toEqual(['run', 'run (2)']);
    expect(rows[0]!.run_id).toBe(summary.meta.runId);
    expect(Number(rows[0]!.error_rate)).toBeCloseTo(metricById('error_rate')!.read(summary)!, 12);
    expect(Number(rows[0]!.ttft_p99)).toBe(metricById('ttft_p99')!.read(summary));
    expect(Number(rows[1]!.ttft_p99)).toBe(Number(rows[0]!.ttft_p99));
  });

  it('--json is one schemaVersion 1 document with the same figures', async () => {
    const r = await runCliInProcess(['report', out, '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    const summary = await readSummary(out);
    expect(doc).toMatchObject({ schemaVersion: 1, kind: 'goodput.report' });
    expect(doc.runs).toHaveLength(1);
    expect(doc.runs[0]).toMatchObject({ label: 'run', runId: summary.meta.runId, model: summary.meta.model });
    expect(doc.runs[0].metrics.error_rate).toBeCloseTo(2 / 6, 12);
    const conflict = await runCliInProcess(['report', out, '--json', '--format', 'csv'], { cwd: dir });
    expect(conflict.code).toBe(2);
  });
});
