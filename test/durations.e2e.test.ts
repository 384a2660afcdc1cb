/**
 * Durations need units: a bare number was silently milliseconds (`--duration 5` ran for 5 ms
 * and reported every request failed), so it is now a usage error whose hint names the likely
 * meaning; with a unit the same command runs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-durations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a bare number for a duration is refused with the unit it probably meant', () => {
  it.each<[string, string[], string]>([
    ['run --duration 5', ['run', '--duration', '5'], "--duration: '5' has no unit"],
    ['run --timeout 30', ['run', '--timeout', '30'], "--timeout: '30' has no unit"],
    ['watch --every 5', ['watch', '--every', '5'], "--every: '5' has no unit"],
    ['sim --retry-after 2', ['sim', '--retry-after', '2'], "--retry-after: '2' has no unit"],
  ])('%s exits 2', async (_name, argv, message) => {
    const r = await runCliInProcess(argv, { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    const bare = argv[argv.length - 1]!;
    expect(r.stderr).toContain(`did you mean ${bare}s?`);
  });

  it('run --duration 5s runs for five seconds', async () => {
    const out = join(dir, 'five');
    const r = await runCliInProcess(['run', '--duration', '5s', '--rate', '4', '--out', out, '--quiet'], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      completed: number;
      failed: number;
      duration: number;
    };
    // ~20 sends in 5 s; only those still in flight at the stop are interrupted (failed)
    expect(summary.completed).toBeGreaterThanOrEqual(10);
    expect(summary.failed).toBeLessThan(summary.completed);
    expect(summary.duration).toBeGreaterThan(4);
  }, 60_000);
});
