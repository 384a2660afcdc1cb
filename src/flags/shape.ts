/**
 * The workload-shape flags: `--prompt-tokens-dist`, `--max-tokens-dist` (length distributions,
 * an `empirical:FILE` histogram read here, before anything runs) and `--prefix-groups`,
 * `--prefix-tokens`, `--prompts-per-group` (shared prefixes), `--images`, `--image-size`,
 * `--image-format` (synthetic images), `--images-dir` (images from a folder, read with the
 * workload), into BenchmarkWorkload.
 *
 * @module
 */

import { isAbsolute, resolve as resolvePath } from 'node:path';
import { GoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/config.js';
import {
  checkImages,
  checkPrefixGroups,
  loadLengthDist,
  parseImageSize,
  parseLengthDist,
} from '../workload/index.js';
import type { BenchmarkFlags } from './options/index.js';

/** Tokens of a group's prefix when --prefix-tokens is not given. */
export const DEFAULT_PREFIX_TOKENS = 1024;

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** `empirical:FILE` with FILE read from `cwd`; every other kind as given. */
function absoluteText(text: string, flag: string, cwd: string): string {
  const parsed = parseLengthDist(text, flag);
  if (parsed.kind !== 'empirical' || isAbsolute(parsed.path!)) return text;
  return `empirical:${resolvePath(cwd, parsed.path!)}`;
}

/**
 * Applies the shape flags to a config whose workload is already resolved. Throws E_USAGE for a
 * distribution that does not parse and for combinations that mean nothing (a distribution and
 * the fixed length it replaces, --prefix-tokens without --prefix-groups).
 */
export async function applyShapeFlags(
  o: Pick<
    BenchmarkFlags,
    | 'promptTokensDist'
    | 'maxTokensDist'
    | 'prefixGroups'
    | 'prefixTokens'
    | 'promptsPerGroup'
    | 'images'
    | 'imageSize'
    | 'imageFormat'
    | 'imagesDir'
  >,
  given: ReadonlySet<string>,
  config: BenchmarkConfig,
  cwd: string,
): Promise<void> {
  const promptDist = o.promptTokensDist || undefined;
  const outputDist = o.maxTokensDist || undefined;
  if (promptDist !== undefined) {
    for (const [key, flag] of [
      ['promptTokens', '--prompt-tokens'],
      ['promptTokensRange', '--prompt-tokens-range'],
    ] as const) {
      if (given.has(key))
        throw usage(
          `--prompt-tokens-dist and ${flag} cannot be used together`,
          `the distribution gives every prompt's length; drop ${flag}`,
        );
    }
    const flag = '--prompt-tokens-dist';
    config.workload.promptTokensDist = await loadLengthDist(
      absoluteText(promptDist, flag, cwd),
      flag,
      'input',
    );
  }
  if (outputDist !== undefined) {
    if (given.has('maxTokens'))
      throw usage(
        '--max-tokens-dist and --max-tokens cannot be used together',
        "the distribution gives every request's output limit; drop --max-tokens",
      );
    const flag = '--max-tokens-dist';
    config.workload.maxTokensDist = await loadLengthDist(absoluteText(outputDist, flag, cwd), flag, 'output');
    config.workload.outputFromDataset = false;
  }
  const imagesDir = o.imagesDir?.trim() || undefined;
  if (imagesDir !== undefined) {
    // --images N from the folder (1 without --images); the files keep their own size and format.
    for (const [key, flag] of [
      ['imageSize', '--image-size'],
      ['imageFormat', '--image-format'],
    ] as const)
      if (given.has(key))
        throw usage(
          `${flag} cannot be used with --images-dir`,
          `a folder's images keep their own size and format; drop ${flag}`,
        );
    const spec = { count: o.images ?? 1, folder: { path: resolvePath(cwd, imagesDir) } };
    checkImages(spec);
    config.workload.images = spec;
  } else if (o.images === undefined) {
    for (const [key, flag] of [
      ['imageSize', '--image-size'],
      ['imageFormat', '--image-format'],
    ] as const)
      if (given.has(key)) throw usage(`${flag} needs --images`, 'e.g. --images 1 --image-size 512x512');
  } else {
    const size = parseImageSize(o.imageSize || '512x512');
    const spec = { count: o.images, ...size, format: o.imageFormat === 'jpeg' ? 'jpeg' : 'png' } as const;
    checkImages(spec);
    config.workload.images = spec;
  }
  const { prefixGroups: groups, prefixTokens, promptsPerGroup: perGroup } = o;
  if (groups === undefined) {
    if (prefixTokens !== undefined || perGroup !== undefined)
      throw usage(
        `--${prefixTokens !== undefined ? 'prefix-tokens' : 'prompts-per-group'} needs --prefix-groups`,
        'e.g. --prefix-groups 8 --prefix-tokens 2048 --prompts-per-group 16',
      );
    return;
  }
  const spec = {
    groups,
    prefixTokens: prefixTokens ?? DEFAULT_PREFIX_TOKENS,
    ...(perGroup !== undefined ? { promptsPerGroup: perGroup } : {}),
  };
  checkPrefixGroups(spec);
  config.workload.prefixGroups = spec;
}
