/**
 * What an image's first bytes say: its type (PNG, JPEG, WebP) and its size in pixels, read
 * from the header alone (a PNG's IHDR, a JPEG's start-of-frame marker, a WebP's VP8, VP8L or
 * VP8X chunk), never decoded. The embedded engine charges image tokens from it and
 * `--images-dir` types and sizes its files with it.
 *
 * @module
 */

/** The image types read. */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/webp';

/** An image's type and size, from its header. */
export interface ImageHeader {
  mime: ImageMime;
  width: number;
  height: number;
}

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  text.split('').every((c, k) => bytes[at + k] === c.charCodeAt(0));

/** A JPEG's size from its start-of-frame marker, walking the segments before it. */
function jpegSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    // Fill bytes, and markers without a length (TEM, RSTn).
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = view.getUint16(at + 2);
    // Start of frame: SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

/** A WebP's size: lossy (VP8), lossless (VP8L) or extended (VP8X, the canvas). */
function webpSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | undefined {
  if (bytes.length < 30) return undefined;
  if (ascii(bytes, 12, 'VP8 ') && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a)
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  if (ascii(bytes, 12, 'VP8L') && bytes[20] === 0x2f) {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(bytes, 12, 'VP8X')) {
    const u24 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  return undefined;
}

/**
 * The type and size of a PNG, JPEG or WebP from its first bytes; undefined for anything else
 * (or a header cut short: a JPEG's frame marker may follow large EXIF segments).
 *
 * @example
 * imageHeader(readFileSync('cat.webp')); // { mime: 'image/webp', width: 640, height: 480 }
 */
export function imageHeader(bytes: Uint8Array): ImageHeader | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let size: { width: number; height: number } | undefined;
  let mime: ImageMime;
  if (bytes.length >= 24 && view.getUint32(0) === 0x89504e47 && ascii(bytes, 12, 'IHDR')) {
    mime = 'image/png';
    size = { width: view.getUint32(16), height: view.getUint32(20) };
  } else if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    mime = 'image/jpeg';
    size = jpegSize(bytes, view);
  } else if (bytes.length >= 16 && ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) {
    mime = 'image/webp';
    size = webpSize(bytes, view);
  } else {
    return undefined;
  }
  return size && size.width > 0 && size.height > 0 ? { mime, ...size } : undefined;
}
