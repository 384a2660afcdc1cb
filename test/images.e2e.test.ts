import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { collect, readRecords } from '../src/results/index.js';
import { imageTokens, type SimServer, startSim } from '../src/sim/index.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';

let work: string;
let sim: SimServer;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'goodput-images-'));
  sim = await startSim({ seed: 2 });
});
afterAll(async () => {
  await sim.close();
});

const common = [
  '--concurrency',
  '1',
  '--requests',
  '4',
  '--warmup',
  '0',
  '--prompt-tokens',
  '32',
  '--max-tokens',
  '4',
  '--quiet',
];

describe('run --images', () => {
  it("the embedded engine charges image tokens by the image's size: TTFT rises with it (virtual time)", async () => {
    const run = async (size: string) => {
      const out = join(work, `virtual-${size}`);
      const r = await runCliInProcess(
        ['run', '--time', 'virtual', ...common, '--images', '2', '--image-size', size, '--out', out],
        { cwd: work },
      );
      expect(r.code, r.stderr).toBe(ExitCode.OK);
      return readRunSummary(out);
    };
    const small = await run('56x56');
    const large = await run('512x512');
    expect(large.meta.workload.images).toMatchObject({ count: 2, width: 512, height: 512, format: 'png' });
    expect(large.meta.workload.images!.bytesPerRequest).toBeGreaterThan(
      20 * small.meta.workload.images!.bytesPerRequest!,
    );
    // 2 × 326 image tokens against 2 × 6 (virtual time: deterministic): the prefill, and so the TTFT, is longer.
    expect(large.median_ttft_ms / small.median_ttft_ms).toBeGreaterThan(2);
  });

  it('live: bodies carry the images; the server counts their tokens in usage.prompt_tokens', async () => {
    const out = join(work, 'live');
    const r = await runCliInProcess(
      [
        'run',
        '--url',
        sim.url,
        ...common,
        '--images',
        '1',
        '--image-size',
        '224x224',
        '--image-format',
        'jpeg',
        '--out',
        out,
      ],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const records = await collect(readRecords(out));
    expect(records).toHaveLength(4);
    for (const rec of records) {
      expect(rec.outcome).toBe('success');
      expect(rec.serverPromptTokens! - rec.promptTokens).toBeGreaterThanOrEqual(imageTokens(224, 224) - 2);
      expect(rec.serverPromptTokens! - rec.promptTokens).toBeLessThanOrEqual(imageTokens(224, 224) + 2);
    }
    expect(readRunSummary(out).meta.workload.images).toMatchObject({ count: 1, format: 'jpeg' });
  });

  it('is refused where it means nothing', async () => {
    const r = await runCliInProcess(['run', '--time', 'virtual', '--image-size', '64x64'], { cwd: work });
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('--image-size needs --images');
    const c = await runCliInProcess(['run', '--time', 'virtual', '--api', 'completions', '--images', '1'], {
      cwd: work,
    });
    expect(c.code).toBe(ExitCode.USAGE);
    expect(c.stderr).toContain('--images needs --api chat or responses');
  });
});
