import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { collect, readRecords } from '../src/results/index.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'goodput-shape-'));
});

const run = (name: string, args: string[]) =>
  runCliInProcess(
    [
      'run',
      '--time',
      'virtual',
      '--concurrency',
      '4',
      '--requests',
      '32',
      '--out',
      join(work, name),
      '--quiet',
      ...args,
    ],
    { cwd: work },
  );

describe('run: prefix groups and length distributions (virtual time)', () => {
  it("prefix groups raise the engine's prefix-cache hit rate in the server block; the meta records them", async () => {
    const grouped = await run('grouped', [
      '--prefix-groups',
      '2',
      '--prefix-tokens',
      '512',
      '--prompts-per-group',
      '16',
      '--prompt-tokens',
      '32',
      '--max-tokens',
      '8',
    ]);
    expect(grouped.code, grouped.stderr).toBe(ExitCode.OK);
    const plain = await run('plain', ['--prompt-tokens', '544', '--max-tokens', '8']);
    expect(plain.code, plain.stderr).toBe(ExitCode.OK);
    const g = readRunSummary(join(work, 'grouped'));
    const p = readRunSummary(join(work, 'plain'));
    expect(g.meta.workload.prefixGroups).toEqual({ groups: 2, prefixTokens: 512, promptsPerGroup: 16 });
    expect(g.server?.prefixCacheHitRate).toBeGreaterThan(0.5);
    expect(p.server?.prefixCacheHitRate ?? 0).toBeLessThan(0.1);
    // The same prompt lengths either way.
    expect(g.total_input_tokens).toBe(p.total_input_tokens);
  });

  it('draws prompt and output lengths from distributions given as flags and records them in the meta', async () => {
    const hist = join(work, 'outputs.csv');
    await writeFile(hist, 'tokens,count\n4,1\n12,1\n');
    const r = await run('dists', [
      '--prompt-tokens-dist',
      'lognormal:mean=200,sigma=0.5,max=600',
      '--max-tokens-dist',
      'empirical:outputs.csv',
      '--ignore-eos',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const s = readRunSummary(join(work, 'dists'));
    expect(s.meta.workload.promptTokensDist).toMatchObject({
      kind: 'lognormal',
      text: 'lognormal:mean=200,sigma=0.5,max=600',
      mean: 200,
    });
    expect(s.meta.workload.maxTokensDist).toMatchObject({
      kind: 'empirical',
      text: `empirical:${hist}`,
      mean: 8,
      source: { path: hist, samples: 2 },
    });
    const records = await collect(readRecords(join(work, 'dists')));
    const prompts = new Set(records.map((rec) => rec.promptTokens));
    expect(prompts.size).toBeGreaterThan(20);
    expect(Math.max(...prompts)).toBeLessThanOrEqual(600);
    expect(new Set(records.map((rec) => rec.outputTokens))).toEqual(new Set([4, 12]));
  });

  it.each([
    [['--prompt-tokens-dist', 'normal:mean=5'], /--prompt-tokens-dist: normal needs std=S/],
    [['--prompt-tokens-dist', 'uniform:5-9', '--prompt-tokens', '7'], /cannot be used together/],
    [['--prefix-tokens', '64'], /--prefix-tokens needs --prefix-groups/],
    [['--max-tokens-dist', 'empirical:missing.csv'], /cannot read .*missing\.csv/],
  ])('%j is refused before anything is sent', async (args, message) => {
    const r = await run('refused', args);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toMatch(message);
  });
});
