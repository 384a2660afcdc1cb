/**
 * A healthy server under a `--duration` run: the requests the deadline cuts are the client's
 * own interruption, not the server's waste. The token goodput ratio stays ≥ 0.95 (the default
 * ADR gate), those tokens are reported apart, and diagnosis does not blame abort-on-disconnect.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { ExitCode } from '../src/errors.js';
import type { RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-duration-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('a healthy --duration run keeps token goodput ratio ≥ 0.95 and is not diagnosed as wasted work', async () => {
  const out = join(work, 'run');
  const r = await runCliInProcess(
    [
      'run',
      '--duration',
      '6s',
      '--concurrency',
      '4',
      '--prompt-tokens',
      '256',
      // Output lengths vary (no --ignore-eos) so the four streams do not run in lockstep: with
      // equal lengths they prefill together, and a deadline falling in that prefill cuts them all
      // before their first token, leaving no interrupted tokens to show.
      '--max-tokens',
      '128',
      '--quiet',
      '--out',
      out,
    ],
    { cwd: work },
  );
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
  // The deadline really cut requests mid-stream (else this test would show nothing).
  expect(s.counts.interrupted).toBeGreaterThan(0);
  expect(s.goodput.interruptedOutputTokens).toBeGreaterThan(0);
  expect(s.counts.failed).toBe(0);
  expect(s.counts.cancelled).toBe(0);
  expect(s.goodput.tokenGoodputRatio).toBeGreaterThanOrEqual(0.95);
  expect(s.goodput.wastedOutputTokens).toBeLessThanOrEqual(0.05 * s.goodput.totalOutputTokens);
  expect((s.diagnosis ?? []).map((f) => f.kind)).not.toContain('wasted-work');
  if (s.server?.wastedTokens !== undefined) {
    expect(s.server.wastedTokens).toBeLessThanOrEqual(0.05 * (s.server.generatedTokens ?? 0));
  }
}, 60_000);
