import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import type { WorkloadSpec } from '../types.js';
import { imageHeader } from '../util/index.js';
import { loadImageFolder, MAX_IMAGE_FILE_BYTES } from './image-folder.js';
import { encodePng } from './images.js';
import { createTokenizer } from './tokenizer.js';
import { createWorkload } from './workload.js';

const root = mkdtempSync(join(tmpdir(), 'goodput-image-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function folder(files: Record<string, Buffer | string>): string {
  const dir = join(root, `f${n++}`);
  mkdirSync(dir);
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  return dir;
}

const png = encodePng(64, 32, new Uint8Array(64 * 32 * 3).fill(90));
const jpg = Buffer.from(
  jpeg.encode({ width: 40, height: 30, data: Buffer.alloc(40 * 30 * 4, 200) }, 80).data,
);
/** A real 1×1 lossless WebP. */
const webp = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

async function refused(dir: string): Promise<GoodputError> {
  const e = await loadImageFolder(dir).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(GoodputError);
  expect((e as GoodputError).code).toBe('E_DATASET');
  expect((e as GoodputError).hint).toBeTruthy();
  return e as GoodputError;
}

describe('loadImageFolder', () => {
  it('types and sizes each file by its header (not its name), in name order; hidden files and subfolders aside', async () => {
    const dir = folder({ 'b.jpg': jpg, 'a.png': png, 'c.bin': webp, '.DS_Store': 'junk' });
    mkdirSync(join(dir, 'thumbs'));
    const f = await loadImageFolder(dir);
    expect(
      f.images.map(({ name, mime, width, height, bytes }) => ({ name, mime, width, height, bytes })),
    ).toEqual([
      { name: 'a.png', mime: 'image/png', width: 64, height: 32, bytes: png.length },
      { name: 'b.jpg', mime: 'image/jpeg', width: 40, height: 30, bytes: jpg.length },
      { name: 'c.bin', mime: 'image/webp', width: 1, height: 1, bytes: webp.length },
    ]);
    expect(f.bytes).toBe(png.length + jpg.length + webp.length);
    // Each a data URL of its own type holding exactly the file.
    for (const [im, bytes] of [
      [f.images[0]!, png],
      [f.images[1]!, jpg],
      [f.images[2]!, webp],
    ] as const) {
      expect(im.url.startsWith(`data:${im.mime};base64,`)).toBe(true);
      expect(Buffer.from(im.url.slice(im.url.indexOf(',') + 1), 'base64').equals(bytes)).toBe(true);
    }
    // The identity follows the bytes.
    expect((await loadImageFolder(folder({ 'a.png': png, 'b.jpg': jpg, 'c.bin': webp }))).sha256).toBe(
      f.sha256,
    );
    expect((await loadImageFolder(folder({ 'a.png': png, 'b.jpg': png, 'c.bin': webp }))).sha256).not.toBe(
      f.sha256,
    );
  });

  it('refuses a missing or empty folder, a non-image file, a file too large, naming it', async () => {
    expect((await refused(join(root, 'nowhere'))).message).toMatch(
      /cannot read --images-dir .*nowhere: ENOENT/,
    );
    const empty = folder({ '.hidden.png': png });
    expect((await refused(empty)).message).toMatch(/holds no files/);
    const notImage = await refused(folder({ 'a.png': png, 'notes.txt': 'a caption' }));
    expect(notImage.message).toMatch(/notes\.txt is not a PNG, JPEG or WebP image/);
    expect(notImage.hint).toMatch(/move notes\.txt out/);
    // Named .png, truncated within its header.
    expect((await refused(folder({ 'cut.png': png.subarray(0, 16) }))).message).toMatch(
      /cut\.png is not a PNG/,
    );
    const big = folder({ 'a.png': png, 'huge.png': png });
    truncateSync(join(big, 'huge.png'), MAX_IMAGE_FILE_BYTES + 1);
    expect((await refused(big)).message).toMatch(/huge\.png is 20971521 bytes, more than 20\.0 MiB an image/);
  });
});

describe('a workload with images from a folder', () => {
  const spec: WorkloadSpec = {
    kind: 'synthetic',
    api: 'chat',
    promptTokens: 16,
    maxTokens: 4,
    tokenizer: 'o200k_base',
    images: { count: 2, folder: { path: 'unused' } },
  };
  const tokenizer = createTokenizer();

  it("draws each request's images from the folder, seeded; the spec records the folder and the mean bytes", async () => {
    const imageFolder = await loadImageFolder(folder({ 'a.png': png, 'b.jpg': jpg, 'c.webp': webp }));
    const make = (seed: number) => createWorkload(spec, { seed, warmup: 0, tokenizer, imageFolder });
    const wl = make(5);
    const picks = Array.from({ length: 60 }, (_, i) => wl.item(i).images!);
    for (const p of picks) {
      expect(p).toHaveLength(2);
      for (const im of p)
        expect(imageHeader(Buffer.from(im.url.slice(im.url.indexOf(',') + 1), 'base64'))).toBeDefined();
    }
    const urls = picks.flat().map((im) => im.url);
    // All three files drawn, each about a third of the time.
    for (const im of imageFolder.images) {
      const share = urls.filter((u) => u === im.url).length / urls.length;
      expect(share).toBeGreaterThan(0.15);
      expect(share).toBeLessThan(0.55);
    }
    // Seeded: the same seed draws the same images, another seed others.
    expect(make(5).item(7).images).toEqual(picks[7]);
    const other = make(6);
    expect(picks.some((p, i) => p[0]!.url !== other.item(i).images![0]!.url)).toBe(true);
    expect(wl.spec.images).toEqual({
      count: 2,
      folder: { path: imageFolder.path, files: 3, bytes: imageFolder.bytes, sha256: imageFolder.sha256 },
      bytesPerRequest: Math.round((2 * imageFolder.bytes) / 3),
    });
  });

  it('refuses a folder spec without its images, and --image-size beside a folder', () => {
    expect(() => createWorkload(spec, { seed: 1, warmup: 0, tokenizer })).toThrow(/were not read/);
    expect(() =>
      createWorkload(
        { ...spec, images: { count: 1, width: 64, height: 64, folder: { path: 'x' } } },
        { seed: 1, warmup: 0, tokenizer },
      ),
    ).toThrow(/--image-size and --image-format cannot be used with --images-dir/);
  });
});
