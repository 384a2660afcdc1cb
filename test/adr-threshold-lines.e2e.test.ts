/**
 * A gate threshold is one line: an ADR whose threshold holds a line break is refused by
 * `adr lint` and `emit prometheus-rules` (it passed lint, and emit copied it into a YAML
 * comment whose second line became YAML that promtool rejected).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess, writeAdrFile } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-adr-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an ADR threshold with a line break', () => {
  const adr = writeAdrFile(join(dir, 'ADR-20250102-001.md'), {
    // Parsed before as p99(ttft) < 350: the grammar skipped any whitespace.
    gate: { thresholds: ['p99(ttft)\n< 350'] },
    rollback: { metric: 'ttft_p99_ms', above: 5000, for: '15m' },
  });

  it.each([
    ['adr lint', ['adr', 'lint', adr]],
    ['emit prometheus-rules', ['emit', 'prometheus-rules', '--adr', adr, '-o', join(dir, 'rules.yml')]],
  ])('is refused by %s, naming the column', async (_name, argv) => {
    const r = await runCliInProcess(argv, { cwd: dir });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/line break or control character \(\\n\)/);
    expect(r.stderr).not.toMatch(/E_INTERNAL/);
  });
});
