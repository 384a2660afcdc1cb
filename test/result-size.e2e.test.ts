/**
 * Result files are read whole only up to a bound: a file past it (sparse, so the test writes
 * nothing to disk) is a usage error naming its size, for every reader of results.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-result-size-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a result file larger than the bound', () => {
  const big = join(dir, 'vllm-huge.json');
  writeFileSync(big, '{"mean_ttft_ms": 1, "ttfts": [');
  truncateSync(big, 600 * 1024 * 1024); // 600 MiB, sparse

  it.each([
    ['gate --from', ['gate', '--from', big, 'p99(ttft)<350']],
    ['compare', ['compare', big, big]],
    ['import', ['import', big, '-o', join(dir, 'imported')]],
  ])('%s: exit 2 naming the size and the bound, not E_INTERNAL', async (_name, argv) => {
    const r = await runCliInProcess(argv, { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/is 600 MiB, more than the 256 MiB a result file is read whole up to/);
    expect(r.stderr).not.toMatch(/E_INTERNAL|no run summary/);
  });
});
