/**
 * `goodput summarize DIR`: a run killed with SIGKILL leaves requests.jsonl but no
 * summary.json; summarize rebuilds the summary from the records (the run meta is in the
 * header line), after which report and compare accept the folder. A torn last line is
 * tolerated and said; a damaged line in the middle is named, never skipped silently.
 */

import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { ensureBuilt, readRunSummary, runBin, runCliInProcess } from './helpers/cli.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'goodput-summarize-e2e-'));
  ensureBuilt();
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const VIRTUAL = [
  '--time',
  'virtual',
  '--requests',
  '40',
  '--concurrency',
  '4',
  '--max-tokens',
  '32',
  '--warmup',
  '3',
];

/** A completed virtual run in its own folder. */
async function virtualRun(name: string, extra: string[] = []): Promise<string> {
  const out = join(work, name);
  const res = await runCliInProcess(['run', ...VIRTUAL, ...extra, '--out', out, '--quiet'], { cwd: work });
  expect(res.code, res.stderr).toBe(ExitCode.OK);
  return out;
}

describe('summarize rebuilds what the run would have written', () => {
  it('from the records of a complete run, the same counts, latencies and histograms', async () => {
    const out = await virtualRun('complete', ['--slo', 'ttft=200,tpot=20']);
    const original = readRunSummary(out);
    unlinkSync(join(out, 'summary.json'));

    const refused = await runCliInProcess(['report', out, '-o', join(work, 'r.html')], { cwd: work });
    expect(refused.code).toBe(ExitCode.USAGE);
    expect(refused.stderr).toContain("but the run's records are there");
    expect(refused.stderr).toContain(`hint: rebuild the summary from the records: goodput summarize ${out}`);

    const res = await runCliInProcess(['summarize', out], { cwd: work });
    expect(res.code, res.stderr).toBe(ExitCode.OK);
    expect(res.stderr).toContain(`rebuilt ${join(out, 'summary.json')} from 43 records`);
    expect(res.stderr).not.toContain('interrupted');
    const rebuilt = readRunSummary(out);
    expect(rebuilt.meta).toEqual(original.meta);
    expect(rebuilt.counts).toEqual(original.counts);
    expect(rebuilt.latency).toEqual(original.latency);
    expect(rebuilt.histograms).toEqual(original.histograms);
    // the virtual engine's own token counters are not in the records: the client's count stands in
    expect(rebuilt.goodput).toEqual({ ...original.goodput, tokenSource: 'client' });
    expect(res.stderr).toContain("virtual engine's counters");
    expect(rebuilt.p99_tpot_ms).toBe(original.p99_tpot_ms);
    expect(rebuilt.load.peakInFlight).toBe(original.load.peakInFlight);
    expect(rebuilt.interrupted).toBe(false);

    // a summary that is there is not replaced unless asked
    const again = await runCliInProcess(['summarize', out], { cwd: work });
    expect(again.code).toBe(ExitCode.USAGE);
    expect(again.stderr).toContain('already has a summary.json');
    expect((await runCliInProcess(['summarize', out, '--force'], { cwd: work })).code).toBe(ExitCode.OK);
  });

  it("the client's GC pauses and start window, measured by the run and not in the records, survive a --force rebuild", async () => {
    const out = await virtualRun('gc');
    // As a live run writes them (a virtual run measures none): the run's own self-check.
    const path = join(out, 'summary.json');
    const written = readRunSummary(out);
    const gcPauses = { count: 7, totalMs: 210.5, p99Ms: 80.25, maxMs: 81 };
    const startWindow = { ms: 1000, sends: 2000, p99Ms: 29.5, laterSends: 18000, laterP99Ms: 2 };
    writeFileSync(path, JSON.stringify({ ...written, load: { ...written.load, gcPauses, startWindow } }));
    const forced = await runCliInProcess(['summarize', out, '--force'], { cwd: work });
    expect(forced.code, forced.stderr).toBe(ExitCode.OK);
    expect(forced.stderr).toContain(
      "the client's GC pauses are carried over from the summary.json this replaces, and so is the open loop's start window",
    );
    const rebuilt = readRunSummary(out);
    expect(rebuilt.load.gcPauses).toEqual(gcPauses);
    expect(rebuilt.load.startWindow).toEqual(startWindow);
    expect(rebuilt.caveats?.map((c) => c.id)).toEqual(
      expect.arrayContaining(['gc-pauses', 'client-warming-up']),
    );

    unlinkSync(path);
    const killed = await runCliInProcess(['summarize', out], { cwd: work });
    expect(killed.code, killed.stderr).toBe(ExitCode.OK);
    expect(readRunSummary(out).load.gcPauses).toBeUndefined();
    expect(readRunSummary(out).load.startWindow).toBeUndefined();
  });

  it('a torn last line is ignored and said; a damaged middle line is named and refused unless --skip-corrupt', async () => {
    const out = await virtualRun('damaged');
    unlinkSync(join(out, 'summary.json'));
    const path = join(out, 'requests.jsonl');
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);
    expect(lines.length).toBe(44);
    // line 10 damaged in the middle, the last line cut off mid-write
    lines[9] = lines[9]!.slice(0, 40);
    const last = lines.pop()!;
    writeFileSync(path, `${lines.join('\n')}\n${last.slice(0, 25)}`);

    const refused = await runCliInProcess(['summarize', out], { cwd: work });
    expect(refused.code).toBe(ExitCode.USAGE);
    expect(refused.stderr).toContain(
      `error[E_RESULT]: ${path} is damaged in the middle: line 10 is not valid JSON`,
    );
    expect(refused.stderr).toContain('--skip-corrupt');

    const res = await runCliInProcess(['summarize', out, '--skip-corrupt'], { cwd: work });
    expect(res.code, res.stderr).toBe(ExitCode.OK);
    expect(res.stderr).toContain('from 41 records');
    expect(res.stderr).toContain('note: the last line (44) was cut off mid-write');
    expect(res.stderr).toContain('note: skipped damaged line 10');
    expect(res.stderr).toContain('marked interrupted');
    const s = readRunSummary(out);
    expect(s.counts.attempted + s.counts.warmup).toBe(41);
    expect(s.interrupted).toBe(true);

    // every other reader of the records names the damaged line too, instead of skipping it
    const merged = await runCliInProcess(['merge', await virtualRun('other'), out, '-o', join(work, 'mm')], {
      cwd: work,
    });
    expect(merged.code).toBe(ExitCode.USAGE);
    expect(merged.stderr).toContain(`${path} line 10 is not valid JSON`);
  });

  it('a folder whose records carry no run meta (older goodput, merge) is refused with the reason', async () => {
    const a = await virtualRun('m1');
    const b = await virtualRun('m2');
    const merged = join(work, 'merged');
    expect((await runCliInProcess(['merge', a, b, '-o', merged], { cwd: work })).code).toBe(ExitCode.OK);
    unlinkSync(join(merged, 'summary.json'));
    const res = await runCliInProcess(['summarize', merged], { cwd: work });
    expect(res.code).toBe(ExitCode.USAGE);
    expect(res.stderr).toContain('has no run meta in its header line');
  });
});

describe('a run killed with SIGKILL', () => {
  it('leaves records that summarize turns into a summary report and compare accept', async () => {
    const killed = join(work, 'killed');
    let sent = false;
    const res = await runBin(
      ['run', '--requests', '100000', '--concurrency', '4', '--max-tokens', '16', '--out', killed],
      {
        cwd: work,
        timeoutMs: 30_000,
        onStderr: (text, child) => {
          if (!sent && text.includes('results:')) {
            sent = true;
            setTimeout(() => child.kill('SIGKILL'), 1_500);
          }
        },
      },
    );
    expect(sent, res.stderr).toBe(true);
    expect(res.signal).toBe('SIGKILL');
    expect(() => readFileSync(join(killed, 'summary.json'))).toThrow();

    const rebuilt = await runCliInProcess(['summarize', killed], { cwd: work });
    expect(rebuilt.code, rebuilt.stderr).toBe(ExitCode.OK);
    expect(rebuilt.stderr).toContain('marked interrupted');
    const s = readRunSummary(killed);
    expect(s.interrupted).toBe(true);
    expect(s.completed).toBeGreaterThan(0);
    expect(s.counts.attempted).toBeLessThan(100000);
    expect(s.meta.target.embedded).toBe(true);

    const report = await runCliInProcess(['report', killed, '-o', join(work, 'killed.html')], { cwd: work });
    expect(report.code, report.stderr).toBe(ExitCode.OK);
    expect(readFileSync(join(work, 'killed.html'), 'utf8')).toContain(s.meta.runId);

    // a normal run of the same workload is comparable with the rebuilt one
    const base = join(work, 'base');
    const baseRun = await runCliInProcess(
      ['run', '--requests', '30', '--concurrency', '4', '--max-tokens', '16', '--out', base, '--quiet'],
      { cwd: work },
    );
    expect(baseRun.code, baseRun.stderr).toBe(ExitCode.OK);
    const compare = await runCliInProcess(['compare', base, killed, '--allow-different'], { cwd: work });
    expect(compare.code, compare.stderr).toBe(ExitCode.OK);
    expect(compare.stdout).toContain('TTFT');
  }, 90_000);
});
