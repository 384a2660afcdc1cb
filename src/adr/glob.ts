/**
 * Globs over repository paths, matched by picomatch (the matcher most JavaScript tools
 * share), so a glob means here what it means in the user's other tools: `**` crosses
 * directories, `*` and `?` stay within one segment, `[abc]`, `{a,b}` (nesting and `**`
 * inside an alternative reaches nested paths, though `{a,b/**}/x` needs at least one
 * directory under `b`), extglobs. Three choices on top:
 *
 * - dotfiles and dot-directories match (`dot: true`), as in GitHub's `paths` filters: a
 *   serving parameter in `deploy/.staging/vllm.yaml` must not slip past `adr check`;
 * - POSIX brackets (`posix: true`), so `[!ab]` is a negated class as in a shell, not a class
 *   holding `!`;
 * - a glob that starts with `!` excludes: a path matches when some plain glob matches it and
 *   no `!` glob does, whatever their order.
 *
 * Paths use `/`; a glob matches the whole path from the repository root.
 *
 * @module
 */

import picomatch from 'picomatch';

const OPTIONS: picomatch.PicomatchOptions = { dot: true, posix: true };

/** Compiles one (positive) glob into an anchored RegExp. */
export function globToRegExp(glob: string): RegExp {
  return picomatch.makeRe(glob, OPTIONS);
}

function normalise(path: string): string {
  return path.replaceAll('\\', '/').replace(/^\.\//, '');
}

/** A predicate that is true when a path matches any plain glob and none of the `!` globs. */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const include = globs.filter((g) => !g.startsWith('!'));
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  const isIncluded = include.length > 0 ? picomatch(include, OPTIONS) : () => false;
  const isExcluded = exclude.length > 0 ? picomatch(exclude, OPTIONS) : () => false;
  return (path) => {
    const p = normalise(path);
    return isIncluded(p) && !isExcluded(p);
  };
}
