/**
 * Images from a folder (`--images-dir DIR`): the PNG, JPEG and WebP files of one folder, read
 * once before the run, each request's images drawn from them (seeded: workload.ts). Every file
 * is typed and sized from its own header (util/image-header.ts), whatever its name says, and
 * sent as a `data:` URL of that type, so the summary can say the bytes sent and the embedded
 * engine charges each image's tokens from its real size.
 *
 * Bounded: at most {@link MAX_IMAGE_FILE_BYTES} a file, {@link MAX_IMAGE_FOLDER_BYTES} and
 * {@link MAX_IMAGE_FOLDER_FILES} in all (the images stay in memory, base64, for the run). The
 * folder must hold images only (hidden files and subfolders aside): any other file, an
 * unreadable one, one too large or an empty folder is a GoodputError naming it, before anything
 * is sent.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import { type ImageMime, imageHeader } from '../util/index.js';
import type { RequestImage } from './images.js';

/** Largest image file read (20 MiB, the OpenAI API's own limit per image). */
export const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;
/** Most bytes of images a folder may hold: they stay in memory for the run. */
export const MAX_IMAGE_FOLDER_BYTES = 256 * 1024 * 1024;
/** Most image files of a folder. */
export const MAX_IMAGE_FOLDER_FILES = 10_000;

/** One image of the folder, as requests carry it. */
export interface FolderImage extends RequestImage {
  /** The file's name in the folder. */
  name: string;
  mime: ImageMime;
  width: number;
  height: number;
}

/** The images of a folder, in file-name order. */
export interface ImageFolder {
  path: string;
  images: FolderImage[];
  /** Bytes of all the files. */
  bytes: number;
  /** sha256 over the files' names and bytes, in name order: the folder's identity. */
  sha256: string;
}

const HINT = '--images-dir reads every file of the folder: keep only PNG, JPEG and WebP images in it';

function folderError(message: string, hint = HINT): GoodputError {
  return new GoodputError('E_DATASET', message, hint);
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Reads the folder's images; see the module comment. `signal` stops the read (exit 130). */
export async function loadImageFolder(path: string, signal?: AbortSignal): Promise<ImageFolder> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw folderError(
      `cannot read --images-dir ${path}: ${code === 'ENOTDIR' ? 'not a folder' : (code ?? (e as Error).message)}`,
      'give a folder of PNG, JPEG or WebP images, e.g. --images-dir ./images',
    );
  }
  const names = entries
    .filter((e) => !e.name.startsWith('.') && !e.isDirectory())
    .map((e) => e.name)
    .sort();
  if (names.length === 0) {
    throw folderError(
      `--images-dir ${path} holds no files`,
      'put PNG, JPEG or WebP images in it, or give the folder that has them',
    );
  }
  if (names.length > MAX_IMAGE_FOLDER_FILES) {
    throw folderError(
      `--images-dir ${path} holds ${names.length} files, more than ${MAX_IMAGE_FOLDER_FILES}`,
      'give a folder with a sample of the images: each is held in memory for the run',
    );
  }
  const hash = createHash('sha256');
  const images: FolderImage[] = [];
  let total = 0;
  for (const name of names) {
    if (signal?.aborted) {
      throw new GoodputError(
        'E_DATASET',
        `reading --images-dir ${path} was stopped`,
        'nothing was sent; run again',
        {
          exitCode: ExitCode.INTERRUPTED,
        },
      );
    }
    const file = join(path, name);
    const bytes = await readImageFile(file);
    total += bytes.length;
    if (total > MAX_IMAGE_FOLDER_BYTES) {
      throw folderError(
        `--images-dir ${path} holds more than ${mib(MAX_IMAGE_FOLDER_BYTES)} of images (reached at ${name})`,
        'give a folder with a sample of the images: they are held in memory for the run',
      );
    }
    const header = imageHeader(bytes);
    if (!header) {
      throw folderError(
        `--images-dir: ${file} is not a PNG, JPEG or WebP image (or its size cannot be read from its header)`,
        `${HINT}; move ${name} out of it`,
      );
    }
    hash.update(`${name}\0${bytes.length}\0`).update(bytes);
    images.push({
      name,
      ...header,
      bytes: bytes.length,
      url: `data:${header.mime};base64,${bytes.toString('base64')}`,
    });
  }
  return { path, images, bytes: total, sha256: hash.digest('hex') };
}

/** One file's bytes: a regular file of at most MAX_IMAGE_FILE_BYTES (a FIFO is never opened). */
async function readImageFile(file: string): Promise<Buffer> {
  const cannot = (e: unknown) =>
    folderError(
      `--images-dir: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'check its permissions, or move it out of the folder',
    );
  let size: number;
  try {
    const st = await stat(file);
    if (!st.isFile())
      throw folderError(`--images-dir: ${file} is not a regular file`, `${HINT}; move it out`);
    size = st.size;
  } catch (e) {
    if (e instanceof GoodputError) throw e;
    throw cannot(e);
  }
  const tooLarge = (bytes: number) =>
    folderError(
      `--images-dir: ${file} is ${bytes} bytes, more than ${mib(MAX_IMAGE_FILE_BYTES)} an image`,
      'scale it down or move it out of the folder',
    );
  if (size > MAX_IMAGE_FILE_BYTES) throw tooLarge(size);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw cannot(e);
  }
  if (bytes.length > MAX_IMAGE_FILE_BYTES) throw tooLarge(bytes.length);
  return bytes;
}
