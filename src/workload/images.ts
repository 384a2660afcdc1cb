/**
 * Images in chat requests (`--images N --image-size WxH --image-format png|jpeg`): each request's
 * last user message carries N synthetic images as `image_url` data URLs, as a vision model's
 * users send them. Pixels are seeded per request and image (a smooth gradient with noise, so the
 * encoders do real work and no two requests send the same image), PNG encoded with node's zlib
 * (filter 0 rows, one IDAT, fastest deflate), JPEG with jpeg-js (quality 85). Sizes are bounded: at most
 * {@link MAX_IMAGE_SIDE} pixels a side and {@link MAX_IMAGES} images a request.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { GoodputError } from '../errors.js';
import type { ImagesSpec } from '../types.js';
import type { ImageFolder } from './image-folder.js';
import type { Rng } from './rng.js';

export const MAX_IMAGE_SIDE = 4096;
export const MAX_IMAGES = 16;

/** One image as a request carries it. */
export interface RequestImage {
  /** `data:image/png;base64,…` */
  url: string;
  /** Bytes of the encoded image (before base64). */
  bytes: number;
}

/** `--image-size 512x512` (or `512`, a square). */
export function parseImageSize(text: string): { width: number; height: number } {
  const m = /^\s*(\d+)\s*(?:[x×]\s*(\d+)\s*)?$/i.exec(text);
  const width = m ? Number(m[1]) : Number.NaN;
  const height = m?.[2] !== undefined ? Number(m[2]) : width;
  if (!(width >= 1 && height >= 1 && width <= MAX_IMAGE_SIDE && height <= MAX_IMAGE_SIDE))
    throw new GoodputError(
      'E_USAGE',
      `--image-size expects WIDTHxHEIGHT from 1 to ${MAX_IMAGE_SIDE} pixels a side, got '${text}'`,
      'e.g. --image-size 512x512',
    );
  return { width, height };
}

/** Synthetic images: count, size and format all given. */
export type SyntheticImagesSpec = ImagesSpec & Required<Pick<ImagesSpec, 'width' | 'height' | 'format'>>;

/** Throws E_USAGE for a spec that cannot be generated (or drawn from its folder). */
export function checkImages(spec: ImagesSpec): void {
  if (!Number.isInteger(spec.count) || spec.count < 1 || spec.count > MAX_IMAGES)
    throw new GoodputError(
      'E_USAGE',
      `--images must be a whole number from 1 to ${MAX_IMAGES}, got ${spec.count}`,
      'e.g. --images 1 --image-size 512x512',
    );
  if (spec.folder) {
    if (spec.width !== undefined || spec.height !== undefined || spec.format !== undefined)
      throw new GoodputError(
        'E_USAGE',
        '--image-size and --image-format cannot be used with --images-dir',
        "a folder's images keep their own size and format; drop --image-size and --image-format",
      );
    return;
  }
  if (spec.format !== 'png' && spec.format !== 'jpeg')
    throw new GoodputError(
      'E_USAGE',
      `--image-format must be png or jpeg, got ${spec.format}`,
      'e.g. --image-format png',
    );
  parseImageSize(`${spec.width}x${spec.height}`);
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** An RGB image as PNG (8-bit truecolour, no interlace). */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0; // filter: none
    Buffer.from(rgb.buffer, rgb.byteOffset + y * width * 3, width * 3).copy(raw, y * (width * 3 + 1) + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/**
 * Seeded pixels: a gradient between two random colours, with noise from a xorshift32 seeded by
 * `rng` (one step per pixel: an image of megapixels is made in milliseconds).
 */
function pixels(width: number, height: number, rng: Rng): Uint8Array {
  const a = [rng.int(256), rng.int(256), rng.int(256)];
  const b = [rng.int(256), rng.int(256), rng.int(256)];
  let s = (rng.int(0xffffffff) | 1) >>> 0;
  const rgb = new Uint8ClampedArray(width * height * 3);
  const span = width + height;
  let p = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const noise = ((s >>> 0) % 25) - 12;
      const t = (x + y) / span;
      rgb[p] = a[0]! + (b[0]! - a[0]!) * t + noise;
      rgb[p + 1] = a[1]! + (b[1]! - a[1]!) * t + noise;
      rgb[p + 2] = a[2]! + (b[2]! - a[2]!) * t + noise;
      p += 3;
    }
  }
  return new Uint8Array(rgb.buffer);
}

/** One synthetic image of `spec`'s size and format, drawn from `rng`. */
export function syntheticImage(spec: SyntheticImagesSpec, rng: Rng): RequestImage {
  const { width, height } = spec;
  const rgb = pixels(width, height, rng);
  let bytes: Buffer;
  if (spec.format === 'jpeg') {
    const rgba = Buffer.alloc(width * height * 4);
    for (let p = 0; p < width * height; p++) {
      rgba[p * 4] = rgb[p * 3]!;
      rgba[p * 4 + 1] = rgb[p * 3 + 1]!;
      rgba[p * 4 + 2] = rgb[p * 3 + 2]!;
      rgba[p * 4 + 3] = 255;
    }
    // jpeg-js loads with the first JPEG, not with the workload module (~4 MB otherwise).
    bytes = (createRequire(import.meta.url)('jpeg-js') as typeof import('jpeg-js')).encode(
      { width, height, data: rgba },
      85,
    ).data;
  } else {
    bytes = encodePng(width, height, rgb);
  }
  return { url: `data:image/${spec.format};base64,${bytes.toString('base64')}`, bytes: bytes.length };
}

/** The images of each request of a run, and the images spec as run. */
export interface ImageSource {
  /** Request i's images (seeded by i alone). */
  imagesOf(i: number): RequestImage[];
  /** The spec with what was sent: a synthetic request's bytes, or the folder's files, bytes and sha256. */
  spec: ImagesSpec;
}

/**
 * Request i's images: synthetic ones drawn from `rng.fork(i).fork(k)`, or with `spec.folder`
 * the folder's files, each of a request's `count` drawn (with replacement) from the same streams.
 * The folder must be `folder`, already read (image-folder.ts).
 */
export function imageSource(spec: ImagesSpec, rng: Rng, folder?: ImageFolder): ImageSource {
  checkImages(spec);
  if (spec.folder) {
    if (!folder || folder.images.length === 0)
      throw new GoodputError(
        'E_USAGE',
        `the images of --images-dir ${spec.folder.path} were not read`,
        'read the folder with loadImageFolder and pass it as the workload option imageFolder',
      );
    const files = folder.images;
    return {
      imagesOf: (i) =>
        Array.from({ length: spec.count }, (_, k) => files[rng.fork(i).fork(k).int(files.length)]!),
      spec: {
        ...spec,
        folder: { path: folder.path, files: files.length, bytes: folder.bytes, sha256: folder.sha256 },
        bytesPerRequest: Math.round((spec.count * folder.bytes) / files.length),
      },
    };
  }
  const synthetic = spec as SyntheticImagesSpec;
  const imagesOf = (i: number) =>
    Array.from({ length: spec.count }, (_, k) => syntheticImage(synthetic, rng.fork(i).fork(k)));
  return { imagesOf, spec: { ...spec, bytesPerRequest: imagesOf(0).reduce((sum, im) => sum + im.bytes, 0) } };
}
