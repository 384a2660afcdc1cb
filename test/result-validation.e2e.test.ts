/**
 * Result files read back are validated, not trusted: compare, gate --from and report on a
 * damaged summary.json (truncated, a field of the wrong type, a field missing), on a damaged
 * requests.jsonl line and on a file another tool wrote each exit 2 (usage), naming the file,
 * the field path and what was found there, never E_INTERNAL.
 */

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { runCliInProcess, smallVirtualRun } from './helpers/cli.js';

let work: string;
let good: string;

const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });

/** A copy of the good run whose summary.json is `text`. */
function damaged(name: string, text: string): string {
  const dir = join(work, name);
  cpSync(good, dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), text);
  return dir;
}

/** A summary's JSON, loosely typed so that a test can break it. */
type Summaryish = Record<'counts' | 'latency' | 'meta', Record<string, unknown>>;

function editedSummary(name: string, edit: (s: Summaryish) => void): string {
  const s = JSON.parse(readFileSync(join(good, 'summary.json'), 'utf8'));
  edit(s);
  return damaged(name, JSON.stringify(s, null, 2));
}

/** The three readers of a summary, each given the damaged run. */
async function readersOn(dir: string) {
  return {
    compare: await cli(['compare', good, dir]),
    gate: await cli(['gate', '--from', dir, '--max-error-rate', '0.5', '--quiet']),
    report: await cli(['report', dir, '-o', join(work, 'r.html')]),
  };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-validate-'));
  good = join(work, 'good');
  const r = await smallVirtualRun(good, { cwd: work });
  expect(r.code, r.stderr).toBe(ExitCode.OK);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('damaged and foreign result files', () => {
  it('the good run is read by all three', async () => {
    const r = await readersOn(good);
    expect(r.compare.code, r.compare.stderr).toBe(ExitCode.OK);
    expect(r.gate.code, r.gate.stderr).toBe(ExitCode.OK);
    expect(r.report.code, r.report.stderr).toBe(ExitCode.OK);
  });

  it('a truncated summary.json: exit 2 naming the file as truncated', async () => {
    const text = readFileSync(join(good, 'summary.json'), 'utf8');
    const dir = damaged('truncated', text.slice(0, Math.floor(text.length / 2)));
    for (const [name, r] of Object.entries(await readersOn(dir))) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(ExitCode.USAGE);
      expect(r.stderr, name).toContain(`${join(dir, 'summary.json')} is truncated`);
      expect(r.stderr, name).not.toContain('E_INTERNAL');
    }
  });

  it('a field of the wrong type: exit 2 naming the file, the field path and what was found', async () => {
    const dir = editedSummary('wrong-type', (s) => {
      s.counts.completed = '12';
    });
    for (const [name, r] of Object.entries(await readersOn(dir))) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(ExitCode.USAGE);
      expect(r.stderr, name).toContain(join(dir, 'summary.json'));
      expect(r.stderr, name).toContain('field counts.completed: expected number, found string "12"');
    }
  });

  it('a required field missing: exit 2 naming it (never E_INTERNAL)', async () => {
    const dir = editedSummary('missing', (s) => {
      delete s.latency.ttft;
      delete s.meta.model;
    });
    for (const [name, r] of Object.entries(await readersOn(dir))) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(ExitCode.USAGE);
      expect(r.stderr, name).toContain(
        'field meta.model: expected string, found nothing (the field is missing)',
      );
      expect(r.stderr, name).toContain('field latency.ttft');
    }
  });

  it('a vLLM --save-result file, given by path: recognised as such', async () => {
    const dir = join(work, 'vllm');
    mkdirSync(dir);
    const file = join(dir, 'vllm-result.json');
    writeFileSync(
      file,
      JSON.stringify({
        date: '20250101-120000',
        backend: 'vllm',
        model_id: 'meta-llama/Llama-3.1-8B-Instruct',
        num_prompts: 100,
        completed: 100,
        request_throughput: 4.2,
        mean_ttft_ms: 120.5,
        p99_ttft_ms: 300.1,
      }),
    );
    // report draws it from the figures it states; summarize needs a goodput run's records.
    const report = await cli(['report', file, '-o', join(work, 'v.html')]);
    expect(report.code, report.stderr).toBe(ExitCode.OK);
    const merge = await cli(['merge', good, file, '--out', join(work, 'm')]);
    expect(merge.code).toBe(ExitCode.USAGE);
    expect(merge.stderr).toContain(
      `${file} is not a goodput run summary: this looks like a vLLM --save-result file`,
    );
    expect(merge.stderr).toContain('compare, gate --from and report read it');
    // compare reads it, but cannot check its workload against the goodput run's.
    const compare = await cli(['compare', good, file]);
    expect(compare.code, compare.stderr).toBe(ExitCode.USAGE);
    expect(compare.stderr).toContain(
      `${file} is a vLLM result: its sampling, workload and load cannot be checked`,
    );
    // gate reads it; vLLM has no error-rate figure, so that threshold fails, named, never invented.
    const gate = await cli(['gate', '--from', file, '--max-error-rate', '0.5', '--quiet']);
    expect(gate.code, gate.stderr).toBe(ExitCode.THRESHOLD_BREACH);
    expect(gate.stderr).toContain(
      `error_rate <= 0.5: ${file} (a vLLM --save-result file) does not hold this figure`,
    );
  });

  it('guidellm and GenAI-Perf exports and a goodput sweep.json are recognised too', async () => {
    // compare reads the other tools' results (and asks for --allow-different); a sweep.json is refused.
    const cases: Array<[string, unknown, string]> = [
      ['guidellm.json', { benchmarks: [{ type_: 'benchmark' }] }, 'is a guidellm result: its sampling'],
      [
        'profile_export_genai_perf.json',
        { time_to_first_token: { unit: 'ms', avg: 12 }, input_config: {} },
        'is a GenAI-Perf result: its sampling',
      ],
      [
        'sweep.json',
        { schemaVersion: 1, kind: 'goodput.sweep', points: [] },
        'this looks like a goodput sweep file',
      ],
    ];
    for (const [fileName, content, expected] of cases) {
      const file = join(work, fileName);
      writeFileSync(file, JSON.stringify(content));
      const r = await cli(['compare', good, file]);
      expect(r.code, r.stderr).toBe(ExitCode.USAGE);
      expect(r.stderr).toContain(expected);
    }
  });

  it('a damaged line of requests.jsonl: exit 2 naming the file, the line and the field', async () => {
    const dir = join(work, 'bad-line');
    cpSync(good, dir, { recursive: true });
    const path = join(dir, 'requests.jsonl');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const record = JSON.parse(lines[3]!);
    record.chunkMs = 'soon';
    lines[3] = JSON.stringify(record);
    writeFileSync(path, `${lines.join('\n')}\n`);
    for (const [name, r] of Object.entries({
      compare: await cli(['compare', good, dir]),
      report: await cli(['report', dir, '-o', join(work, 'l.html')]),
    })) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(ExitCode.USAGE);
      expect(r.stderr, name).toContain(`${path} line 4 is not a goodput.requests line`);
      expect(r.stderr, name).toContain('field chunkMs: expected array, found string "soon"');
    }
  });
});
