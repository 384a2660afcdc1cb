import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { parseSweepResult, readSweepResult } from './sweep-file.js';

const point = {
  phase: 'step',
  mode: 'concurrency',
  load: 2,
  dir: 'c-2',
  runId: 'r',
  completed: 10,
  failed: 0,
  errorRate: 0,
  requestThroughput: 2,
  outputThroughput: 200,
  meanTtftMs: 50,
  p99TtftMs: 90,
  meanTpotMs: 10,
  p99TpotMs: 12,
  meanE2elMs: 500,
  p99E2elMs: 900,
  attainment: 1,
  requestGoodput: 2,
  passes: true,
};
const sweep = {
  schemaVersion: 1,
  kind: 'goodput.sweep',
  mode: 'concurrency',
  startedAt: '2026-12-02T00:00:00.000Z',
  slo: { ttftMs: 500 },
  minAttainment: 0.95,
  points: [point],
  interrupted: false,
};

function refusal(value: unknown): GoodputError {
  try {
    parseSweepResult(value, '/s/sweep.json');
  } catch (e) {
    if (e instanceof GoodputError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('sweep.json read back', () => {
  it('accepts what goodput sweep writes', () => {
    expect(parseSweepResult(structuredClone(sweep), 'x').points[0]!.p99TpotMs).toBe(12);
  });

  it.each([
    {
      name: 'a point figure of the wrong type',
      value: { ...sweep, points: [{ ...point, p99TtftMs: '90' }] },
      says: 'points[0].p99TtftMs',
    },
    { name: 'a missing mode', value: { ...sweep, mode: undefined }, says: 'field mode' },
    {
      name: 'an unknown phase',
      value: { ...sweep, points: [{ ...point, phase: 'warmup' }] },
      says: 'points[0].phase',
    },
  ])('refuses $name, naming the field', ({ value, says }) => {
    const e = refusal(value);
    expect(e.code).toBe('E_RESULT');
    expect(e.message).toContain('/s/sweep.json');
    expect(e.message).toContain(says);
  });

  it('refuses a newer schema and a run summary by what they are', () => {
    expect(refusal({ ...sweep, schemaVersion: 99 }).hint).toContain('upgrade goodput');
    const run = refusal({ schemaVersion: 1, kind: 'goodput.run' });
    expect(run.message).toContain('not a goodput sweep file');
  });

  it('reads a file, and names a truncated one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sweep-file-'));
    const path = join(dir, 'sweep.json');
    writeFileSync(path, JSON.stringify(sweep));
    expect((await readSweepResult(path)).mode).toBe('concurrency');
    writeFileSync(path, JSON.stringify(sweep).slice(0, 50));
    await expect(readSweepResult(path)).rejects.toThrow(/truncated/);
    await expect(readSweepResult(join(dir, 'none.json'))).rejects.toThrow(/cannot read .*ENOENT/);
  });
});
