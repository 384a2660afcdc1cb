/**
 * A YAML bomb (or an endless file) given where goodput reads YAML is refused as bad input,
 * quickly and without growing memory: `adr enforce --config` exits 2 with the fix, an ADR whose
 * front matter is a bomb fails `adr lint`, `watch --targets` exits 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { runCliInProcess, writeAdrFile } from './helpers/cli.js';
import { YAML_BOMB } from './helpers/yaml-bomb.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-yaml-bomb-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });

const adr = writeAdrFile(join(work, 'ADR-20250102-001-x.md'), {
  rules: [{ flag: '--enable-chunked-prefill' }],
});

test('a YAML bomb as the adr enforce --config file is a usage error (2) with the fix', async () => {
  const bomb = join(work, 'deploy.yaml');
  writeFileSync(bomb, YAML_BOMB);
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const r = await cli(['adr', 'enforce', '--config', bomb, '--adr', adr]);
  expect(performance.now() - t0).toBeLessThan(5000);
  expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  expect(r.code, r.stderr).toBe(ExitCode.USAGE);
  expect(r.stderr).toContain('error[E_CONFIG]');
  expect(r.stderr).toMatch(/deploy\.yaml is not valid YAML: too many or too large aliases \(a YAML bomb\?\)/);
  expect(r.stderr).toContain('hint:');
  expect(r.stderr).not.toContain('E_INTERNAL');

  const big = join(work, 'huge.yaml');
  writeFileSync(big, `args: ["${'x'.repeat(2 * 1024 * 1024)}"]\n`);
  const large = await cli(['adr', 'enforce', '--config', big, '--adr', adr]);
  expect(large.code).toBe(ExitCode.USAGE);
  expect(large.stderr).toMatch(/larger than \d+ bytes/);
});

test('an ADR whose front matter is a bomb fails lint; watch --targets refuses a bomb', async () => {
  const dir = join(work, 'adrs');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir);
  const indented = YAML_BOMB.split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  writeFileSync(
    join(dir, 'ADR-20250102-002-bomb.md'),
    `---\nschemaVersion: 1\nid: ADR-20250102-002\ntitle: bomb\ndate: 2025-01-02\nstatus: accepted\nlol:\n${indented}\n---\n# bomb\n`,
  );
  const lint = await cli(['adr', 'lint', '--dir', dir]);
  expect(lint.code).toBe(ExitCode.ADR_VIOLATION);
  expect(lint.stdout + lint.stderr).toMatch(/YAML bomb/);

  const targets = join(work, 'targets.yaml');
  writeFileSync(targets, YAML_BOMB);
  const w = await cli(['watch', '--targets', targets, '--rounds', '1']);
  expect(w.code).toBe(ExitCode.USAGE);
  expect(w.stderr).toMatch(/targets\.yaml: not YAML or JSON \(too many or too large aliases/);
});
