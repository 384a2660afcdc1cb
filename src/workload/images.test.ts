import { inflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import type { WorkloadSpec } from '../types.js';
import { parseImageSize, syntheticImage } from './images.js';
import { createRng } from './rng.js';
import { createTokenizer } from './tokenizer.js';
import { createWorkload } from './workload.js';

const bytesOf = (url: string) => Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');

/** The chunks of a PNG, checked against their CRCs' place (length, type, data). */
function pngChunks(png: Buffer): Map<string, Buffer[]> {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks = new Map<string, Buffer[]>();
  let at = 8;
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    chunks.set(type, [...(chunks.get(type) ?? []), png.subarray(at + 8, at + 8 + length)]);
    at += 12 + length;
  }
  expect(at).toBe(png.length);
  return chunks;
}

describe('synthetic images', () => {
  it('a PNG of the requested size: IHDR says so and the pixel rows inflate to exactly width × height', () => {
    const image = syntheticImage({ count: 1, width: 96, height: 40, format: 'png' }, createRng(1).fork('i'));
    expect(image.url.startsWith('data:image/png;base64,')).toBe(true);
    const png = bytesOf(image.url);
    expect(png.length).toBe(image.bytes);
    const chunks = pngChunks(png);
    const ihdr = chunks.get('IHDR')![0]!;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([96, 40, 8, 2]);
    expect(inflateSync(Buffer.concat(chunks.get('IDAT')!)).length).toBe((96 * 3 + 1) * 40);
    expect(chunks.has('IEND')).toBe(true);
  });

  it('a JPEG of the requested size decodes (jpeg-js); same seed same image, another seed another', () => {
    const spec = { count: 1, width: 64, height: 48, format: 'jpeg' } as const;
    const image = syntheticImage(spec, createRng(1).fork('i'));
    const decoded = jpeg.decode(bytesOf(image.url), { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([64, 48]);
    expect(syntheticImage(spec, createRng(1).fork('i')).url).toBe(image.url);
    expect(syntheticImage(spec, createRng(2).fork('i')).url).not.toBe(image.url);
  });

  it('sizes are parsed and bounded', () => {
    expect(parseImageSize('1024x768')).toEqual({ width: 1024, height: 768 });
    expect(parseImageSize('256')).toEqual({ width: 256, height: 256 });
    expect(() => parseImageSize('5000x10')).toThrow(/--image-size/);
    expect(() => parseImageSize('axb')).toThrow(/--image-size/);
  });

  it('every request of a workload carries its own images; the spec records count and bytes per request', () => {
    const spec: WorkloadSpec = {
      kind: 'synthetic',
      api: 'chat',
      promptTokens: 16,
      maxTokens: 8,
      tokenizer: 'o200k_base',
      images: { count: 2, width: 32, height: 32, format: 'png' },
    };
    const wl = createWorkload(spec, { seed: 3, warmup: 0, requests: 3, tokenizer: createTokenizer() });
    const items = [0, 1, 2].map((i) => wl.item(i));
    for (const it of items) expect(it.images).toHaveLength(2);
    expect(new Set(items.flatMap((it) => it.images!.map((im) => im.url))).size).toBe(6);
    expect(wl.spec.images).toEqual({
      ...spec.images,
      bytesPerRequest: items[0]!.images!.reduce((s, im) => s + im.bytes, 0),
    });
    expect(() =>
      createWorkload({ ...spec, api: 'completions' }, { seed: 3, warmup: 0, tokenizer: createTokenizer() }),
    ).toThrow(/--images needs --api chat or responses/);
  });
});
