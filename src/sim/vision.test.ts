import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { imageSize, imageTokenIds, imageTokens, imageUrlTokenIds } from './vision.js';

/** The start of a PNG: its signature and IHDR chunk (all the engine reads). */
function png(w: number, h: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b;
}
const jpg = (w: number, h: number) =>
  jpeg.encode({ width: w, height: h, data: Buffer.alloc(w * h * 4, 200) }, 80).data;
const dataUrl = (kind: string, bytes: Buffer) => `data:image/${kind};base64,${bytes.toString('base64')}`;

describe('image tokens as Qwen2-VL counts them (28-pixel patches after smart_resize, + 2 delimiters)', () => {
  it.each([
    [448, 448, 16 * 16 + 2],
    [28, 28, 2 * 2 + 2], // raised to min_pixels 56×56
    [640, 480, 23 * 17 + 2], // round(640/28) = 23, round(480/28) = 17
    [1024, 1024, 35 * 35 + 2], // 37×37 would pass max_pixels (28·28·1280): scaled down to 35×35
    [4096, 64, 146 * 2 + 2],
    [4096, 4096, 35 * 35 + 2], // any square past max_pixels ends at the same 35×35
  ])('%i×%i → %i tokens', (w, h, tokens) => {
    expect(imageTokens(w, h)).toBe(tokens);
  });

  it('reads the size of a PNG (IHDR) and a JPEG (start of frame); anything else has none', () => {
    expect(imageSize(png(320, 200))).toEqual({ width: 320, height: 200 });
    expect(imageSize(jpg(96, 40))).toEqual({ width: 96, height: 40 });
    expect(imageSize(Buffer.from('GIF89a....................'))).toBeUndefined();
  });

  it('charges every readable image of the messages, the same ids for the same image, none for a remote URL', () => {
    const a = dataUrl('png', png(448, 448));
    const b = dataUrl('jpeg', jpg(448, 448));
    const messages = [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: a } },
          { type: 'image_url', image_url: { url: 'https://example.invalid/x.png' } },
        ],
      },
      { role: 'user', content: [{ type: 'input_image', image_url: b }] },
    ];
    const ids = imageTokenIds(messages);
    expect(ids).toHaveLength(2 * 258);
    expect(imageUrlTokenIds(a)).toEqual(ids.slice(0, 258));
    expect(new Set(ids.slice(0, 258)).has(ids[258]!)).toBe(false);
  });
});
