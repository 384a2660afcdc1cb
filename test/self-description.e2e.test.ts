/**
 * What was measured is recorded: every run's summary carries what its server said of itself
 * (the embedded engine answers as vLLM does: /version, vllm:cache_config_info) and goodput's own
 * version and command line with its secrets redacted; the report's header shows them, and
 * compare says when two runs' servers describe themselves differently.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareGroups, compareRuns } from '../src/compare/index.js';
import { renderRunMarkdown, renderRunTable } from '../src/report/index.js';
import { readSummary } from '../src/results/index.js';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import type { RunSummary } from '../src/types.js';
import { toolVersion } from '../src/util/index.js';
import { runCliInProcess } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-self-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const KEY = 'fake-selfdesc-abcdefghijklmnop';
const TENANT = 'tenant-secret-value-987654';

describe('self-description in the summary', () => {
  let virtual: RunSummary;

  it('a virtual run records the engine as it describes itself, and its command line without the key or header values', async () => {
    const out = join(work, 'virtual');
    const argv = [
      'run',
      '--time',
      'virtual',
      '--requests',
      '12',
      '--concurrency',
      '4',
      '--prompt-tokens',
      '32',
    ];
    const r = await runCliInProcess(
      [
        ...argv,
        '--max-tokens',
        '8',
        '--header',
        `X-Tenant: ${TENANT}`,
        '--header',
        `X-Key: env:MY_KEY`,
        '--out',
        out,
      ],
      { cwd: work, env: { GOODPUT_API_KEY: KEY, MY_KEY: `${KEY}-2` } },
    );
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(out, 'summary.json'), 'utf8');
    expect(text).not.toContain(KEY.slice(0, 10));
    expect(text).not.toContain(TENANT);
    expect(`${r.stdout}${r.stderr}`).not.toContain(TENANT);
    // read back through the schema: the new fields validate
    virtual = await readSummary(out);
    expect(virtual.meta.tool).toMatchObject({ name: 'goodput', version: toolVersion() });
    expect(virtual.meta.tool.command).toEqual([
      'goodput',
      ...argv,
      '--max-tokens',
      '8',
      '--header',
      'X-Tenant: [REDACTED]',
      '--header',
      'X-Key: [REDACTED]',
      '--out',
      out,
    ]);
    const d = virtual.meta.target.selfDescription!;
    expect(d).toMatchObject({ engine: 'goodput-sim', version: toolVersion(), models: [virtual.meta.model] });
    expect(d.settings).toMatchObject({
      'cache_config.block_size': '16',
      profile: virtual.meta.target.simProfile,
    });
    expect(Number(d.settings!['cache_config.num_gpu_blocks'])).toBeGreaterThan(0);
    // the header of the terminal and Markdown reports
    const table = renderRunTable(virtual);
    expect(table).toMatch(/server\s+goodput-sim \S+ · profile \S+ · block_size 16/);
    expect(table).toContain('command   goodput run --time virtual');
    expect(table).toContain("'X-Tenant: [REDACTED]'");
    expect(renderRunMarkdown(virtual)).toMatch(/- \*\*server\*\*: goodput-sim /);
  });

  it('a live run asks the embedded engine over HTTP, as it would ask vLLM', async () => {
    const out = join(work, 'live');
    const { summary } = await runBenchmark(
      benchmarkConfig({ load: { requests: 3, concurrency: 1 }, sampling: { maxTokens: 4 }, outDir: out }),
      { cwd: work, quiet: true, version: toolVersion() },
    );
    const d = summary.meta.target.selfDescription!;
    expect(d).toMatchObject({ engine: 'goodput-sim', version: toolVersion(), models: [summary.meta.model] });
    expect(d.sources).toMatchObject({ '/v1/models': 'ok', '/version': 'ok', '/metrics': 'ok' });
    expect(d.settings?.['cache_config.block_size']).toBe('16');
    // a library call names no command line
    expect(summary.meta.tool.command).toBeUndefined();
  });

  it('compare says when the two servers describe themselves differently, and only then', () => {
    const other: RunSummary = structuredClone(virtual);
    const d = other.meta.target.selfDescription!;
    d.version = '9.9.9';
    d.settings = { ...d.settings, 'cache_config.block_size': '32' };
    d.sources = { '/version': 'HTTP 404' };
    const report = compareRuns([
      { name: 'A', summary: virtual },
      { name: 'B', summary: other },
    ]);
    const note = report.comparisons[0]!.notes?.find((n) => n.startsWith('the servers describe themselves'));
    expect(note).toContain('server.version');
    expect(note).toContain('9.9.9');
    expect(note).toContain('server.settings.cache_config.block_size: "16" → "32"');
    expect(note).not.toContain('sources');
    const same = compareRuns([
      { name: 'A', summary: virtual },
      { name: 'C', summary: structuredClone(virtual) },
    ]);
    expect(same.comparisons[0]!.notes ?? []).toEqual([]);
    // replicates: a side is one configuration, its first run speaks for its servers
    const groups = compareGroups([
      [
        { name: 'A1', summary: virtual },
        { name: 'A2', summary: structuredClone(virtual) },
      ],
      [
        { name: 'B1', summary: other },
        { name: 'B2', summary: structuredClone(other) },
      ],
    ]);
    expect(groups.comparisons[0]!.notes?.[0]).toMatch(
      /^the servers describe themselves differently \(A1 → B1\): .*server\.version/,
    );
  });
});
