/**
 * Image tokens, charged the way Qwen2-VL (and Qwen2.5-VL) counts them: the image is resized
 * to multiples of 28 pixels a side (`smart_resize`: nearest multiple, kept between
 * `min_pixels` = 56·56 and `max_pixels` = 28·28·1280, aspect ratio kept), cut into 14-pixel
 * patches, and each 2×2 of them merged into one token: (H/28)·(W/28) tokens, plus the two
 * `<|vision_start|>` / `<|vision_end|>` tokens. A 448×448 image is 256 + 2 tokens; a
 * 1024×1024 one 1,225 + 2 (scaled to 980×980 to stay under max_pixels).
 *
 * The size is read from the image itself: a PNG's IHDR, a JPEG's start-of-frame marker, a
 * WebP's VP8/VP8L/VP8X chunk (util/image-header.ts), in a
 * `data:` URL of an `image_url` (chat) or `input_image` (Responses) part. An image the engine
 * cannot read (another format, a remote URL) costs nothing. The tokens go after the prompt's
 * text, identified by a hash of the image, so a repeated image is a prefix-cache hit as in
 * vLLM, and another image is not.
 *
 * @module
 */

import { imageHeader } from '../util/index.js';

const PATCH = 28;
const MIN_PIXELS = 56 * 56;
const MAX_PIXELS = 28 * 28 * 1280;
/** Token ids of images start here, above every text token id. */
const IMAGE_ID_BASE = 1 << 24;

/** Qwen2-VL's smart_resize, then one token per 28×28 pixels, plus the two vision delimiters. */
export function imageTokens(width: number, height: number): number {
  let h = Math.max(PATCH, Math.round(height / PATCH) * PATCH);
  let w = Math.max(PATCH, Math.round(width / PATCH) * PATCH);
  if (h * w > MAX_PIXELS) {
    const beta = Math.sqrt((height * width) / MAX_PIXELS);
    h = Math.max(PATCH, Math.floor(height / beta / PATCH) * PATCH);
    w = Math.max(PATCH, Math.floor(width / beta / PATCH) * PATCH);
  } else if (h * w < MIN_PIXELS) {
    const beta = Math.sqrt(MIN_PIXELS / (height * width));
    h = Math.ceil((height * beta) / PATCH) * PATCH;
    w = Math.ceil((width * beta) / PATCH) * PATCH;
  }
  return (h / PATCH) * (w / PATCH) + 2;
}

/** Width and height of a PNG, JPEG or WebP, from its header (util/image-header.ts); undefined for anything else. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const header = imageHeader(bytes);
  return header ? { width: header.width, height: header.height } : undefined;
}

/**
 * Base64 characters decoded to find a size: a PNG's and a WebP's are in their first 30 bytes, a
 * JPEG's frame header usually within its first tables (else the whole image is decoded: a
 * photo's EXIF segments can run past this).
 */
const HEAD_CHARS = 64 * 1024;

/** The size of the image in a base64 `data:image/…` URL; undefined for any other URL or image. */
function dataUrlImageSize(url: string): { width: number; height: number } | undefined {
  const m = /^data:image\/[a-z+.-]+;base64,/i.exec(url);
  if (!m) return undefined;
  const size = imageSize(Buffer.from(url.slice(m[0].length, m[0].length + HEAD_CHARS), 'base64'));
  if (size || url.length - m[0].length <= HEAD_CHARS) return size;
  return imageSize(Buffer.from(url.slice(m[0].length), 'base64'));
}

/** FNV-1a of a string, sampled to at most 64 Ki characters: the identity of an image. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  const step = Math.max(1, Math.floor(text.length / 65536));
  for (let i = 0; i < text.length; i += step) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (Math.imul(h ^ text.length, 16777619) >>> 0) % 0x7fffff;
}

/** The URL of an `image_url` (chat) or `input_image` (Responses) content part. */
function partUrl(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const p = part as { type?: unknown; image_url?: unknown };
  if (p.type === 'image_url' && typeof p.image_url === 'object' && p.image_url !== null) {
    const url = (p.image_url as { url?: unknown }).url;
    return typeof url === 'string' ? url : undefined;
  }
  if (p.type === 'input_image' && typeof p.image_url === 'string') return p.image_url;
  return undefined;
}

/** The token ids of one image URL (none for an image the engine cannot read). */
export function imageUrlTokenIds(url: string): number[] {
  const size = dataUrlImageSize(url);
  if (!size) return [];
  const base = IMAGE_ID_BASE + hashOf(url) * 8;
  return Array.from({ length: imageTokens(size.width, size.height) }, (_, k) => base + k);
}

/** The token ids of every readable image in the messages' content parts, in order. */
export function imageTokenIds(messages: readonly unknown[]): number[] {
  const ids: number[] = [];
  for (const m of messages) {
    const content = (m as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      const url = partUrl(part);
      if (url !== undefined) for (const id of imageUrlTokenIds(url)) ids.push(id);
    }
  }
  return ids;
}
