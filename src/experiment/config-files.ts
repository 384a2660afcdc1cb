/**
 * The configuration files a serve command names (an argv element, or the value of
 * `--flag=path`, that is an existing regular file), with their sha256, so that what was
 * tested is known even when the file changes later.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** Files larger than this are not hashed (model weights are not configuration). */
const MAX_HASHED_BYTES = 16 * 1024 * 1024;

/** Existing files among the argv elements, with their sha256 (paths as written in the command). */
export function configFileHashes(
  argv: readonly string[],
  cwd: string,
): Array<{ path: string; sha256: string }> {
  const out: Array<{ path: string; sha256: string }> = [];
  const seen = new Set<string>();
  for (const arg of argv.slice(1)) {
    const candidates = [arg];
    const eq = arg.indexOf('=');
    if (arg.startsWith('-') && eq > 0) candidates.push(arg.slice(eq + 1));
    for (const c of candidates) {
      if (c === '' || c.startsWith('-') || seen.has(c)) continue;
      const path = isAbsolute(c) ? c : resolve(cwd, c);
      try {
        const st = statSync(path);
        if (!st.isFile() || st.size > MAX_HASHED_BYTES) continue;
        seen.add(c);
        out.push({ path: c, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') });
      } catch {
        // not a file
      }
    }
  }
  return out;
}
