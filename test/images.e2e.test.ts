import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { collect, readRecords } from '../src/results/index.js';
import { imageTokens, type SimServer, startSim } from '../src/sim/index.js';
import { encodePng } from '../src/workload/index.js';
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

describe('run --images-dir', () => {
  it('live: each request carries images of the folder; the server charges each by its own size and type', async () => {
    const dir = join(work, 'folder');
    await mkdir(dir);
    await writeFile(join(dir, 'small.png'), encodePng(112, 112, new Uint8Array(112 * 112 * 3).fill(7)));
    const jpg = jpeg.encode({ width: 224, height: 224, data: Buffer.alloc(224 * 224 * 4, 99) }, 80).data;
    await writeFile(join(dir, 'large.jpg'), jpg);
    // A real 1×1 lossless WebP.
    await writeFile(
      join(dir, 'dot.webp'),
      Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64'),
    );
    const out = join(work, 'live-folder');
    const r = await runCliInProcess(
      ['run', '--url', sim.url, ...common, '--requests', '8', '--images-dir', dir, '--out', out],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const records = await collect(readRecords(out));
    expect(records).toHaveLength(8);
    const charged = new Set<number>();
    const tokens = [imageTokens(112, 112), imageTokens(224, 224), imageTokens(1, 1)];
    for (const rec of records) {
      expect(rec.outcome).toBe('success');
      const extra = rec.serverPromptTokens! - rec.promptTokens;
      const image = tokens.find((t) => Math.abs(extra - t) <= 2);
      expect(image, `${extra} prompt tokens more than the text`).toBeDefined();
      charged.add(image!);
    }
    expect(charged.size).toBeGreaterThan(1);
    const images = readRunSummary(out).meta.workload.images!;
    expect(images).toMatchObject({ count: 1, folder: { path: dir, files: 3 } });
    expect(images.folder!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(images.bytesPerRequest).toBe(Math.round(images.folder!.bytes! / 3));
  });

  it('an empty folder, or --image-size beside it, is refused before anything is sent', async () => {
    const empty = join(work, 'empty');
    await mkdir(empty);
    const r = await runCliInProcess(['run', '--time', 'virtual', '--images-dir', empty], { cwd: work });
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain(`--images-dir ${empty} holds no files`);
    const s = await runCliInProcess(
      ['run', '--time', 'virtual', '--images-dir', empty, '--image-size', '64'],
      {
        cwd: work,
      },
    );
    expect(s.code).toBe(ExitCode.USAGE);
    expect(s.stderr).toContain('--image-size cannot be used with --images-dir');
  });
});
