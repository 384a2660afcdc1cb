import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { encodePng } from '../workload/images.js';
import { imageHeader } from './image-header.js';

/** A WebP's first bytes: RIFF, WEBP, then one chunk of `type` holding `data` (the header fields only). */
function webp(type: 'VP8 ' | 'VP8L' | 'VP8X', data: number[]): Buffer {
  const body = Buffer.from([
    ...Buffer.from(`WEBP${type}`, 'latin1'),
    0,
    0,
    0,
    0,
    ...data,
    ...new Array(16).fill(0),
  ]);
  body.writeUInt32LE(data.length + 16, 8);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}
const le16 = (n: number) => [n & 0xff, n >> 8];
const le24 = (n: number) => [n & 0xff, (n >> 8) & 0xff, n >> 16];

describe('imageHeader', () => {
  it('reads a PNG and a JPEG', () => {
    expect(imageHeader(encodePng(320, 200, new Uint8Array(320 * 200 * 3)))).toEqual({
      mime: 'image/png',
      width: 320,
      height: 200,
    });
    const jpg = jpeg.encode({ width: 96, height: 40, data: Buffer.alloc(96 * 40 * 4) }, 80).data;
    expect(imageHeader(jpg)).toEqual({ mime: 'image/jpeg', width: 96, height: 40 });
  });

  it('reads the three WebP forms: lossy (VP8), lossless (VP8L) and extended (VP8X)', () => {
    // A real 1×1 lossless WebP.
    const tiny = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
    expect(imageHeader(tiny)).toEqual({ mime: 'image/webp', width: 1, height: 1 });
    // VP8: frame tag, start code 9d 01 2a, 14-bit width and height (2 scale bits above).
    const lossy = webp('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...le16(640 | 0x4000), ...le16(480)]);
    expect(imageHeader(lossy)).toEqual({ mime: 'image/webp', width: 640, height: 480 });
    // VP8L: signature 2f, then width-1 and height-1 in 14 bits each.
    const bits = (1023 - 1) | ((77 - 1) << 14);
    const lossless = webp('VP8L', [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, bits >>> 24]);
    expect(imageHeader(lossless)).toEqual({ mime: 'image/webp', width: 1023, height: 77 });
    // VP8X: flags and reserved bytes, then the canvas' width-1 and height-1 in 24 bits each.
    const extended = webp('VP8X', [0x10, 0, 0, 0, ...le24(4999), ...le24(2999)]);
    expect(imageHeader(extended)).toEqual({ mime: 'image/webp', width: 5000, height: 3000 });
  });

  it('says nothing of other files, cut headers and zero sizes', () => {
    expect(imageHeader(Buffer.from('GIF89a................................'))).toBeUndefined();
    expect(imageHeader(Buffer.from('{"prompt": "not an image"}'))).toBeUndefined();
    expect(imageHeader(encodePng(8, 8, new Uint8Array(8 * 8 * 3)).subarray(0, 20))).toBeUndefined();
    expect(imageHeader(webp('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0, 0, 0, 0]))).toBeUndefined();
    expect(imageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0]))).toBeUndefined();
  });
});
