/**
 * This process's limit of open files (the soft `ulimit -n`), and whether an error is that
 * limit being hit. Every connection, file and module read takes a file descriptor, and Node
 * cannot raise the limit from inside (no setrlimit; `process.getrlimit` does not exist in
 * Node 20): it is raised in the shell that starts goodput.
 *
 * Read where it can be, bounded: Linux from /proc/self/limits (one small read); another Unix
 * (macOS, whose default is 256) from `ulimit -n` of a shell, which inherits it (one child, at
 * most 2 s); Windows, "unlimited" or no answer: unknown (undefined). Read once per process.
 *
 * @module
 */

import type * as ChildProcess from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let cached: { limit: number | undefined } | undefined;

/** The soft limit of open files of this process, or undefined when it cannot be read or is unlimited. */
export function readOpenFilesLimit(platform: NodeJS.Platform = process.platform): number | undefined {
  if (cached && platform === process.platform) return cached.limit;
  const limit = readLimit(platform);
  if (platform === process.platform) cached = { limit };
  return limit;
}

function readLimit(platform: NodeJS.Platform): number | undefined {
  try {
    if (platform === 'linux') {
      return parseLimit(/^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]);
    }
    if (platform === 'win32') return undefined;
    // Loaded here only: the entry imports this module, and only another Unix needs a child.
    const { execFileSync } = createRequire(import.meta.url)('node:child_process') as typeof ChildProcess;
    const out = execFileSync('/bin/sh', ['-c', 'ulimit -n'], {
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return parseLimit(out.trim());
  } catch {
    return undefined; // not readable here (a sandbox, no /bin/sh)
  }
}

/** A limit as `ulimit -n` or /proc print it: a positive number, else unknown ("unlimited"). */
export function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}

/** Errors of a process (EMFILE) or a machine (ENFILE) out of file descriptors. */
const OUT_OF_FILES = new Set(['EMFILE', 'ENFILE']);

/**
 * The EMFILE or ENFILE code when `e`, or an error it wraps (`cause`, a few levels), is a
 * process out of file descriptors; else undefined.
 */
export function outOfFilesCode(e: unknown): string | undefined {
  let at = e as { code?: unknown; cause?: unknown; errno?: unknown } | undefined;
  for (let depth = 0; depth < 4 && at && typeof at === 'object'; depth++) {
    if (typeof at.code === 'string' && OUT_OF_FILES.has(at.code)) return at.code;
    at = at.cause as typeof at;
  }
  return undefined;
}
